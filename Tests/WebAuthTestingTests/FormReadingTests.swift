// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The provider's form reader against the WHATWG URL Standard's
/// "application/x-www-form-urlencoded parser", with the standard's own test cases
/// (web-platform-tests `url/urlencoded-parser`), and what the provider does with what it reads.
@Suite("Embedded provider: reading forms as the URL Standard says")
struct FormReadingTests {
    /// Input, and the name/value pairs the standard's parser gives for it.
    static let standardCases: [(String, [(String, String)])] = [
        ("", []),
        ("test", [("test", "")]),
        ("\u{FEFF}test=\u{FEFF}", [("\u{FEFF}test", "\u{FEFF}")]),
        ("%EF%BB%BFtest=%EF%BB%BF", [("\u{FEFF}test", "\u{FEFF}")]),
        ("%EF%BF%BF=%EF%BF%BF", [("\u{FFFF}", "\u{FFFF}")]),
        ("%FE%FF", [("\u{FFFD}\u{FFFD}", "")]),
        ("%FF%FE", [("\u{FFFD}\u{FFFD}", "")]),
        ("†&†=x", [("†", ""), ("†", "x")]),
        ("%C2", [("\u{FFFD}", "")]),
        ("%C2x", [("\u{FFFD}x", "")]),
        ("_charset_=windows-1252&test=%C2x", [("_charset_", "windows-1252"), ("test", "\u{FFFD}x")]),
        ("a", [("a", "")]),
        ("a=b", [("a", "b")]),
        ("a=", [("a", "")]),
        ("=b", [("", "b")]),
        ("&", []),
        ("&a", [("a", "")]),
        ("a&", [("a", "")]),
        ("a&a", [("a", ""), ("a", "")]),
        ("a&b&c", [("a", ""), ("b", ""), ("c", "")]),
        ("a=b&c=d", [("a", "b"), ("c", "d")]),
        ("a=b&c=d&", [("a", "b"), ("c", "d")]),
        ("&&&a=b&&&&c=d&", [("a", "b"), ("c", "d")]),
        ("a=a&a=b&a=c", [("a", "a"), ("a", "b"), ("a", "c")]),
        ("a==a", [("a", "=a")]),
        ("a=a+b+c+d", [("a", "a b c d")]),
        ("%=a", [("%", "a")]),
        ("%a=a", [("%a", "a")]),
        ("%a_=a", [("%a_", "a")]),
        ("%61=a", [("a", "a")]),
        ("%61+%4d%4D=", [("a MM", "")]),
        ("id=0&value=%", [("id", "0"), ("value", "%")]),
        ("b=%2sf%2a", [("b", "%2sf*")]),
        ("b=%2%2af%2a", [("b", "%2*f*")]),
        ("b=%%2a", [("b", "%*")]),
    ]

    @Test(arguments: 0..<standardCases.count)
    func readsEveryCaseOfTheStandardsOwnTestsAsTheStandardDoes(_ index: Int) {
        let (input, expected) = Self.standardCases[index]
        let read = FormCoding.decode(input)
        #expect(read.map(\.name) == expected.map(\.0), "names of \(input.debugDescription)")
        #expect(read.map(\.value) == expected.map(\.1), "values of \(input.debugDescription)")
    }

    @Test func aPlusIsASpaceButAnEncodedPlusIsAPlus() {
        let read = FormCoding.decode("a+b=%2B+%2b&c%20d=e+%2B")
        #expect(read.map(\.name) == ["a b", "c d"])
        #expect(read.map(\.value) == ["+ +", "e +"])
    }

    @Test func aBrokenEscapeStaysAsItIsAndSpoilsNothingElse() {
        // A decoder that gives up on the whole value at the first bad escape would keep
        // "%zz%41" as it is; the standard decodes what it can.
        let read = FormCoding.decode("x=%zz%41&y=%4&z=100%")
        #expect(read.map(\.value) == ["%zzA", "%4", "100%"])
    }

    @Test func bytesThatAreNotUTF8BecomeReplacementCharactersEachWhereItWas() {
        // Escaped and raw, in names and values; what is valid around them is kept.
        let read = FormCoding.decode(Array("a%FFb=c".utf8) + [0x26, 0x64, 0x3D, 0xC3, 0x28, 0x65])
        #expect(read.map(\.name) == ["a\u{FFFD}b", "d"])
        #expect(read.map(\.value) == ["c", "\u{FFFD}(e"])
        // An escaped multi-byte character is one character.
        #expect(FormCoding.decode("n=%E2%80%BD%25%2E").first?.value == "‽%.")
    }

    @Test func onlyTheFirstEqualsSignSplitsAndEmptyNamesAreKept() {
        let read = FormCoding.decode("==&=&a===b")
        #expect(read.map(\.name) == ["", "", "a"])
        #expect(read.map(\.value) == ["=", "", "==b"])
    }

    @Test func whatTheClientsEncoderWritesTheReaderReadsBack() {
        let pairs = [
            ("redirect_uri", "http://127.0.0.1:8080/callback?x=1&y=2"), ("scope", "openid profile"),
            ("secret", "s3cret: with symbols & more +%=/"), ("name", "Zoë ‽ 🙂"),
        ]
        let read = FormCoding.decode(FormEncoding.encode(pairs))
        #expect(read.map(\.name) == pairs.map(\.0))
        #expect(read.map(\.value) == pairs.map(\.1))
    }

    /// RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
    @Test func everyBackChannelEndpointRefusesAParameterSentTwice() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let cases: [(EmbeddedProvider.Endpoint, [(String, String)])] = [
                (.token, [("grant_type", "refresh_token"), ("refresh_token", "x"), ("refresh_token", "x")]),
                (.token, [("grant_type", "refresh_token"), ("grant_type", "refresh_token"), ("refresh_token", "x")]),
                (
                    .revocation,
                    [("token", "x"), ("token_type_hint", "access_token"), ("token_type_hint", "refresh_token")]
                ),
                (.deviceAuthorization, [("scope", "openid"), ("scope", "openid")]),
                (.pushedAuthorization, [("response_type", "code"), ("state", "s"), ("state", "s")]),
            ]
            for (endpoint, form) in cases {
                let response = try await provider.postForm(endpoint, [("client_id", "webauth-demo")] + form)
                let names = form.map(\.0).joined(separator: ",")
                #expect(response.status == 400, "\(endpoint) \(names)")
                #expect(try jsonObject(response)["error"] as? String == "invalid_request", "\(endpoint) \(names)")
                #expect(try jsonObject(response)["error_description"] as? String != nil)
            }
            // A single value of each is fine: the same revocation, sent once, is answered 200.
            let once = try await provider.postForm(
                .revocation, [("client_id", "webauth-demo"), ("token", "x"), ("token_type_hint", "access_token")])
            #expect(once.status == 200)
            // RFC 8707 and RFC 8693 let `resource` and `audience` be sent several times.
            let several = try await provider.postForm(
                .revocation,
                [
                    ("client_id", "webauth-demo"), ("token", "x"), ("resource", "https://a.example/"),
                    ("resource", "https://b.example/"), ("audience", "a"), ("audience", "b"),
                ])
            #expect(several.status == 200)
        }
    }
}
