// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

extension String {
    /// Percent-encoded for a query name or value: everything but RFC 3986 unreserved characters.
    package var queryEncoded: String {
        addingPercentEncoding(withAllowedCharacters: .unreservedURICharacters) ?? self
    }

    /// Escaped for use in HTML text and attribute values.
    package var htmlEscaped: String {
        var escaped = ""
        for character in self {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

extension CharacterSet {
    /// RFC 3986 §2.3: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    static let unreservedURICharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
