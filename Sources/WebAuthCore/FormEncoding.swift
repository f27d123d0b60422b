// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// `application/x-www-form-urlencoded`, as OAuth token requests (RFC 6749 Appendix B), OAuth
/// 1.0a responses and authorization responses in a callback's query use it.
///
/// The embedded provider keeps its own codec (`FormCoding`): it checks this package's client, so
/// it does not share the client's parsing.
package enum FormEncoding {
    /// Whether `byte` is an RFC 3986 unreserved character, left as it is (and the alphabet of
    /// a PKCE verifier, RFC 7636 §4.1).
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// Encodes the pairs in order, percent-encoding everything but unreserved characters.
    package static func encode(_ pairs: [(String, String)]) -> String {
        var bytes: [UInt8] = []
        for (index, (name, value)) in pairs.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            escape(name, into: &bytes)
            bytes.append(UInt8(ascii: "="))
            escape(value, into: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encodes everything but unreserved characters, each other UTF-8 byte as `%XX` in
    /// upper case (so a space is `%20`, which every form decoder reads).
    package static func escape(_ string: String) -> String {
        var bytes: [UInt8] = []
        escape(string, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The upper-case hexadecimal digits, by value.
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends `string` to `bytes`, percent-encoded as ``escape(_:)`` says. Byte by byte: the
    /// `CharacterSet` route through Foundation cost more than the rest of a token request's
    /// encoding.
    static func escape(_ string: String, into bytes: inout [UInt8]) {
        for byte in string.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
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
