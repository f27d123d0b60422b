// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTokenFiles

@Suite("A URL read without Foundation")
struct PlainURLTests {
    /// Foundation's reading of `text`, in `PlainURL`'s terms.
    static func foundationParts(_ text: String) -> [String?]? {
        guard let url = URL(string: text) else { return nil }
        return [url.scheme, url.host, url.port.map(String.init), url.path, url.query, url.fragment, url.user]
    }

    static func plainParts(_ url: PlainURL) -> [String?] {
        // Foundation's `path` drops trailing `/`s, but for a path of nothing else.
        var path = url.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return [url.scheme, url.host, url.port.map(String.init), path, url.query, url.fragment, nil]
    }

    @Test(
        "reads plain URLs as Foundation does",
        arguments: [
            "https://id.example.com", "https://id.example.com/", "https://ID.Example.COM:8443/token",
            "http://127.0.0.1:8080/callback?x=1#top", "a+b.c-d://h_x~y/p;q=1/a:b@c", "https://h?", "https://h#",
            "https://[::1]:8443/x", "https://[FD00::a]/", "https://[::ffff:1.2.3.4]/", "https://h:0/",
            "https://h:00443",
            "https://h/a/../b/./c/", "https://h/!$&'()*+,;=", "https://h?a/b?c", "https://h./",
        ])
    func readsPlainURLsAsFoundationDoes(text: String) throws {
        let url = try #require(PlainURL(text))
        #expect(Self.plainParts(url) == Self.foundationParts(text))
    }

    @Test(
        "leaves anything else to Foundation",
        arguments: [
            "", "id.example.com", "https:h", "https:///p", "https://", "https://:443", "https://h:", "https://h:123456",
            "https://user@h/", "https://h/a%20b", "https://h%2e/", "https://h/[x]", "https://h#a#b", "https://[]/",
            "https://[zz]/", "https://[::1%25eth0]/", "https://h h/", "https://h/\u{e9}", "1https://h/", "https://h\\/",
            "https://h/\"", "https://h/<a>", "https://h/|", "https://h/ ",
        ])
    func leavesAnythingElseToFoundation(text: String) {
        #expect(PlainURL(text) == nil)
    }

    /// Strings put together from URL-shaped pieces, from a fixed seed: every one `PlainURL`
    /// reads, Foundation reads the same way. A bounded count, so the test stays fast.
    @Test("never reads a URL otherwise than Foundation")
    func neverReadsAURLOtherwiseThanFoundation() {
        let schemes = ["https", "HTTP", "a+b.c", "h", "1x", ""]
        let separators = ["://", "://", "://", ":/", "//", ":"]
        let hosts = ["h", "H.example", "id.example.com.", "127.0.0.1", "[::1]", "[fd00::A]", "[zz]", "", "u@h", "h%41"]
        let ports = ["", "", ":8443", ":0", ":99999", ":", ":123456", ":x"]
        let rest = [
            "/", "/p", "//", "?", "q=1", "#", "f", "%20", "@", ":", ".", "..", "-", "_", "~", ";", "é", " ", "[", "]",
        ]
        var generator = SeededGenerator(seed: 0x5eed)
        var read = 0
        for _ in 0..<20_000 {
            let tail = (0..<Int.random(in: 0...4, using: &generator)).map { _ in rest.randomElement(using: &generator)!
            }
            let text =
                schemes.randomElement(using: &generator)! + separators.randomElement(using: &generator)!
                + hosts.randomElement(using: &generator)! + ports.randomElement(using: &generator)! + tail.joined()
            guard let url = PlainURL(text) else { continue }
            read += 1
            #expect(Self.plainParts(url) == Self.foundationParts(text), "\(text)")
        }
        // Enough of them are URLs for the comparison to mean something.
        #expect(read > 500)
    }
}

/// A small deterministic generator (SplitMix64), so that a failure names the same strings again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
