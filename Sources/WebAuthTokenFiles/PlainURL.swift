// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// An absolute URL in its plainest form, read without Foundation:
/// `scheme://host[:port][path][?query][#fragment]`, where the host is a name of letters, digits,
/// `.`, `_`, `~` and `-`, or an IPv6 address in brackets; the port is one to five digits; and
/// the rest uses only the characters RFC 3986 allows outside an IP literal — no `%`, no `[` or
/// `]`, no user information.
///
/// It is the fast path's way to read a URL. Foundation's `URL` would link the whole of
/// FoundationEssentials into the fast path's static program: about 10 MB more of it to map, more
/// than a third of its page faults and 1.5 MiB more memory, for one call. Every string this
/// reads is one `URL(string:)` reads too, with the same scheme, host, port, path, query and
/// fragment (`PlainURLTests` checks that against `URL`); a string it does not read (`nil`) may
/// still be a URL, and is then left to the full program, which reads it with `URL`.
///
/// ```swift
/// PlainURL("https://id.example.com:8443/token")?.host  // "id.example.com"
/// PlainURL("https://[::1]:8443/")?.host  // "::1"
/// PlainURL("https://id.example.com/a%20b")  // nil: percent-encoding is the full program's to read
/// ```
package struct PlainURL: Sendable, Hashable {
    /// The scheme, as written.
    package var scheme: String
    /// The host, as written; an IPv6 address without its brackets.
    package var host: String
    /// The port, when one is written.
    package var port: Int?
    /// The path, as written: empty, or starting with `/` (Foundation's `path` drops trailing
    /// `/`s, but from a path of nothing else).
    package var path: String
    /// The query, without its `?`, when there is one.
    package var query: String?
    /// The fragment, without its `#`, when there is one.
    package var fragment: String?

    /// Reads `text`; `nil` unless it is a URL in the plain form above.
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func take(while allowed: (UInt8) -> Bool) -> String {
            let start = index
            while index < bytes.count, allowed(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        func next(is character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }
        // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
        guard let first = bytes.first, Self.isLetter(first) else { return nil }
        scheme = take { Self.isLetter($0) || Self.isDigit($0) || "+-.".utf8.contains($0) }
        guard next(is: ":"), next(is: "/"), next(is: "/") else { return nil }
        if next(is: "[") {
            // An IPv6 address: hexadecimal digits, `:` and `.`; `host` is what is inside, as
            // Foundation's `host` gives it.
            host = take { Self.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
            guard host.utf8.contains(UInt8(ascii: ":")), next(is: "]") else { return nil }
        } else {
            host = take { Self.isLetter($0) || Self.isDigit($0) || "._~-".utf8.contains($0) }
            guard !host.isEmpty else { return nil }
        }
        if next(is: ":") {
            let digits = take(while: Self.isDigit)
            guard (1...5).contains(digits.utf8.count), let number = Int(digits) else { return nil }
            port = number
        }
        // The rest, in RFC 3986's characters less `%`, `[` and `]`: a path up to `?` or `#`, a
        // query up to `#`, a fragment without another `#`.
        path = take { Self.isPathCharacter($0) && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        guard path.isEmpty || path.utf8.first == UInt8(ascii: "/") else { return nil }
        if next(is: "?") { query = take { Self.isPathCharacter($0) && $0 != UInt8(ascii: "#") } }
        if next(is: "#") { fragment = take { Self.isPathCharacter($0) && $0 != UInt8(ascii: "#") } }
        guard index == bytes.count else { return nil }
    }

    /// Whether `byte` is one of RFC 3986's characters for a path, a query or a fragment (with
    /// `?` and `#`), less `%`.
    private static func isPathCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || "-._~!$&'()*+,;=:@/?#".utf8.contains(byte)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
