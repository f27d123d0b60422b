// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// `application/x-www-form-urlencoded`, as token requests use it.
///
/// The reader follows the WHATWG URL Standard's "application/x-www-form-urlencoded parser"
/// step by step, on bytes, and shares nothing with the client's codec in `WebAuthCore`: the
/// provider exists to check that client, so a mistake in one must not hide in the other.
package enum FormCoding {
    /// Encodes the pairs in order, percent-encoding everything but RFC 3986 unreserved characters.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0.queryEncoded)=\($0.1.queryEncoded)" }.joined(separator: "&")
    }

    /// Decodes a form or a query such as `a=b&c=d`, keeping order and duplicates.
    ///
    /// As the URL Standard parses: split on `&` and skip empty pieces; the name is what comes
    /// before the first `=` (the whole piece when there is none, with an empty value), the value
    /// what follows it; `+` becomes a space; `%` and two hex digits become that byte, and any
    /// other `%` stays; then the bytes are read as UTF-8, each invalid sequence becoming U+FFFD.
    package static func decode(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for piece in Array(bytes).split(separator: ampersand, omittingEmptySubsequences: true) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = piece.firstIndex(of: equalsSign) {
                name = piece[..<equals]
                value = piece[(equals + 1)...]
            } else {
                name = piece
                value = []
            }
            pairs.append((text(name), text(value)))
        }
        return pairs
    }

    /// Decodes the string's UTF-8 bytes as the byte-reading `decode` does.
    package static func decode(_ string: String) -> [(name: String, value: String)] {
        decode(Array(string.utf8))
    }

    /// `+` replaced by a space, percent-decoded, then UTF-8 decoded with replacement.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let spaced = bytes.map { $0 == plus ? space : $0 }
        return String(decoding: percentDecoded(spaced), as: UTF8.self)
    }

    /// The URL Standard's "percent-decode": `%` followed by two hex digits is that byte;
    /// every other byte, a lone `%` included, is kept as it is.
    static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == percent, index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    /// The value of an ASCII hex digit (either case), or `nil`.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let ampersand = UInt8(ascii: "&")
    private static let equalsSign = UInt8(ascii: "=")
    private static let plus = UInt8(ascii: "+")
    private static let space = UInt8(ascii: " ")
    private static let percent = UInt8(ascii: "%")

    /// `uri` with the percent-encoded `parameters` added to its query (after `?`, or after `&`
    /// when it already has one), in front of any fragment.
    package static func appendingQuery(_ parameters: [(String, String)], to uri: String) -> String {
        let encoded = encode(parameters)
        var base = uri
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let separator: String
        if !base.contains("?") {
            separator = "?"
        } else if base.hasSuffix("?") || base.hasSuffix("&") {
            separator = ""
        } else {
            separator = "&"
        }
        return base + separator + encoded + fragment
    }
}
