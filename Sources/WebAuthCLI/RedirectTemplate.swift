// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation

/// The `{redirect_uri}` placeholder of `webauth open`.
package enum RedirectTemplate {
    /// The placeholder, written literally in the URL given on the command line.
    package static let placeholder = "{redirect_uri}"

    /// `template` with every `{redirect_uri}` replaced by `redirectURI`, percent-encoded for a
    /// query value (everything but RFC 3986 unreserved characters is encoded).
    package static func expand(_ template: String, redirectURI: URL) -> String {
        template.replacingOccurrences(of: placeholder, with: percentEncoded(redirectURI.absoluteString))
    }

    /// `value` with every character outside `A–Z a–z 0–9 - . _ ~` percent-encoded.
    package static func percentEncoded(_ value: String) -> String {
        var unreserved = CharacterSet(charactersIn: "-._~")
        unreserved.formUnion(
            CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
