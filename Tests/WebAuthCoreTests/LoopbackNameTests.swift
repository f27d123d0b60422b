// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import WebAuthCore

@Suite("Loopback names")
struct LoopbackNameTests {
    @Test(arguments: [
        ("127.0.0.1", LoopbackName.ipv4("127.0.0.1")), ("127.1.2.3", .ipv4("127.1.2.3")),
        ("127.255.255.255", .ipv4("127.255.255.255")), ("::1", .ipv6), ("[::1]", .ipv6),
        ("localhost", .localhost), ("LocalHost", .localhost),
    ])
    func loopbackHostsAreRecognised(_ host: String, _ name: LoopbackName) {
        #expect(LoopbackName(host: host) == name)
        #expect(LoopbackName.isLoopback(host))
        #expect(AuthorizationURLPolicy.isLoopback(host: host))
    }

    @Test(arguments: [
        "127.0.0.1.example", "localhost.example", "localhost.", "0x7f.1", "0x7f000001", "2130706433", "127.1",
        "127.0.0.01", "127.0.0.256", "127.0.0.", "128.0.0.1", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]",
        "0:0:0:0:0:0:0:1", "[::2]", "", "[]", "example.com", "127.0.0.1:80",
        "[127.0.0.1]", "[localhost]",
    ])
    func lookalikesAreNotLoopback(_ host: String) {
        #expect(LoopbackName(host: host) == nil, "\(host)")
        #expect(!AuthorizationURLPolicy.isLoopback(host: host))
    }
}
