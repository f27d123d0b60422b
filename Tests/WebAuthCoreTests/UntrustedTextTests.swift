// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebAuthCore

@Suite("Text from outside the program")
struct UntrustedTextTests {
    @Test func terminalControlsAreReplaced() {
        let hostile = "a\u{1B}]0;title\u{07}b\u{1B}[2Jc\u{1B}]52;c;aGk=\u{07}d\u{9B}31me\u{7F}\r\n\t"
        #expect(UntrustedText(hostile).description == "a?]0;title?b?[2Jc?]52;c;aGk=?d?31me????")
    }

    @Test func formatBidiAndSeparatorCharactersAreReplaced() {
        for scalar in [
            "\u{202E}", "\u{202A}", "\u{2066}", "\u{2069}", "\u{200B}", "\u{200E}", "\u{FEFF}", "\u{2028}", "\u{2029}",
            "\u{E0001}", "\u{061C}",
        ] as [Unicode.Scalar] {
            let text = UntrustedText("x" + String(scalar) + "y")
            #expect(text.displayed() == "x?y", "U+\(String(scalar.value, radix: 16))")
            #expect(text.raw == "x" + String(scalar) + "y", "the raw value stays exact")
        }
    }

    @Test func ordinaryTextIsKept() {
        for text in ["user@example.com", "José Müller", "日本語 テキスト", "openid profile", "emoji 👩‍💻 ok", "e\u{301}"] {
            #expect(UntrustedText(text).displayed() == text)
        }
    }

    @Test func replacementAndLimit() {
        #expect(UntrustedText("a\u{1B}b").displayed(replacingWith: " ") == "a b")
        #expect(UntrustedText(String(repeating: "x", count: 10)).displayed(limit: 4) == "xxxx…")
        #expect(UntrustedText("xxxx").displayed(limit: 4) == "xxxx")
    }
}
