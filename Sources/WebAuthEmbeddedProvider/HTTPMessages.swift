// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import NIOCore

/// The head of an HTTP/1.1 request: just enough parsing for GET requests from a browser.
package struct RequestHead: Sendable, Hashable {
    package var method: String
    package var target: String
    package var version: String
    package var headerFields: HTTPFields

    /// The result of looking for a complete head in the bytes received so far.
    package enum ParseResult: Sendable, Hashable {
        /// The blank line that ends the head has not arrived yet.
        case incomplete
        /// The head is there but is not an HTTP/1.x request head.
        case invalid
        case complete(RequestHead)
    }

    /// The largest head accepted; browsers send a few kilobytes at most.
    package static let maximumSize = 32 * 1024

    /// Parses the head at the start of `bytes`, if it is complete (ends in an empty line).
    package static func parse(_ bytes: ByteBuffer) -> ParseResult {
        let view = bytes.readableBytesView
        guard let end = endOfHead(in: view) else { return .incomplete }
        // Split bytes, not characters: in a Swift string "\r\n" is one character.
        var lines = view[view.startIndex..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { line in String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self) }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { return .invalid }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), parts[1].hasPrefix("/") else { return .invalid }

        var fields: HTTPFields = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return .invalid }
            guard let name = HTTPField.Name(String(line[..<colon])) else { return .invalid }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append(HTTPField(name: name, value: value))
        }
        return .complete(
            RequestHead(
                method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headerFields: fields
            ))
    }

    /// The index just past the empty line that ends the head (`\r\n\r\n`, or a bare `\n\n`).
    private static func endOfHead(in view: ByteBufferView) -> ByteBufferView.Index? {
        var index = view.startIndex
        var previousWasNewline = false
        while index < view.endIndex {
            switch view[index] {
            case UInt8(ascii: "\n"):
                if previousWasNewline { return view.index(after: index) }
                previousWasNewline = true
            case UInt8(ascii: "\r"):
                break
            default:
                previousWasNewline = false
            }
            index = view.index(after: index)
        }
        return nil
    }
}

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
