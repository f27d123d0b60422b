// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTokenFiles

@Suite("JSON written without Foundation")
struct JSONTextTests {
    @Test("quotes strings as JSONEncoder does")
    func quotesStringsAsJSONEncoderDoes() throws {
        var controls = ""
        for value in 0..<0x20 { controls.unicodeScalars.append(Unicode.Scalar(UInt8(value))) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for text in [controls, "\"\\/", "plain", "", "Zöe 😀 \u{7F}\u{2028}", "a\u{0}b", "https://id.example.com/x"] {
            let expected = String(decoding: try encoder.encode([text]), as: UTF8.self)
            #expect("[" + JSONText.quoted(text) + "]" == expected)
        }
    }

    @Test("writes UTC timestamps as ISO 8601 formatting does")
    func writesUTCTimestampsAsISO8601FormattingDoes() {
        var generator = SeededGenerator(seed: 0x7133)
        let edges: [Int64] = [
            0, 59, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_400, 253_402_300_799, 253_402_300_800,
            3_093_527_980_799,
        ]
        let samples = edges + (0..<5_000).map { _ in Int64.random(in: 0...3_093_527_980_799, using: &generator) }
        for seconds in samples {
            #expect(
                JSONText.timestamp(secondsSince1970: seconds)
                    == Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601), "\(seconds)")
        }
    }

    @Test("writes no timestamp before 1970 or after year 99999")
    func writesNoTimestampOutsideItsYears() {
        #expect(JSONText.timestamp(secondsSince1970: -1) == nil)
        #expect(JSONText.timestamp(secondsSince1970: 3_093_527_980_800) == nil)
    }

    @Test("reads back what it writes")
    func readsBackWhatItWrites() {
        for seconds: Int64 in [0, 1_764_392_400, 253_402_300_799] {
            let text = JSONText.timestamp(secondsSince1970: seconds)
            #expect(text.flatMap(TokenEntryFormat.utcDate)?.timeIntervalSince1970 == Double(seconds))
        }
    }
}
