// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthCore

/// Base64url and form encoding, written byte by byte, give exactly what Foundation's string
/// routes give, on fixed cases and on many random ones.
@Suite("Base64url and form encoding")
struct ByteEncodingTests {
    /// What the encoders were before they went byte by byte.
    static func foundationBase64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    @Test func base64URLOfRFC7636AppendixB() {
        let verifier = Data([
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214,
            191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ])
        #expect(verifier.base64URLEncodedString() == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(Data(base64URLEncoded: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == verifier)
    }

    @Test func base64URLMatchesFoundationAndRoundTrips() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<300 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let encoded = data.base64URLEncodedString()
            #expect(encoded == Self.foundationBase64URL(data))
            #expect(Data(base64URLEncoded: encoded) == data)
            #expect(Data(base64URLEncoded: data.base64EncodedString()) == data, "standard base64 is read too")
        }
    }

    @Test func base64URLRefusesWhatIsNotBase64() {
        for text in ["a", "ab$c", "é", "ab cd", "****"] {
            #expect(Data(base64URLEncoded: text) == nil, "\(text)")
        }
    }

    @Test func formEscapingMatchesFoundationPercentEncoding() {
        let fixed = [
            "", "plain", "a b", "a+b", "a&b=c", "~-._", "http://127.0.0.1:8080/callback?x=1#f", "é", "日本語", "👩‍💻",
            "\u{0}\u{1}\u{7F}", "%41", "line\r\nbreak",
        ]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2_000).map { _ in
            String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...12, using: &generator)).compactMap { _ in
                        Unicode.Scalar(
                            Bool.random(using: &generator)
                                ? UInt32.random(in: 0...0x7F, using: &generator)
                                : UInt32.random(in: 0x80...0xD7FF, using: &generator))
                    }))
        }
        for text in fixed + random {
            #expect(FormEncoding.escape(text) == text.addingPercentEncoding(withAllowedCharacters: Self.unreserved))
        }
        #expect(FormEncoding.encode([("a b", "c&d"), ("e", "")]) == "a%20b=c%26d&e=")
        #expect(FormEncoding.encode([]) == "")
    }
}
