// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation

/// `application/x-www-form-urlencoded`, as OAuth token requests (RFC 6749 Appendix B), OAuth
/// 1.0a responses and authorization responses in a callback's query use it.
///
/// The embedded provider keeps its own codec (`FormCoding`): it checks this package's client, so
/// it does not share the client's parsing.
package enum FormEncoding {
    /// Characters left as they are: RFC 3986 unreserved.
    package static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()

    /// Encodes the pairs in order, percent-encoding everything but unreserved characters.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes everything but unreserved characters (so a space is `%20`, which every
    /// form decoder reads).
    package static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: unreserved) ?? string
    }

    /// Decodes `a=b&c=d`; `+` is a space. Later duplicates are kept after earlier ones.
    package static func decode(_ string: String) -> [(String, String)] {
        string.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func unescape(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }
}
