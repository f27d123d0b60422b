// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTokenFiles
import WebAuthTokenStore

@Suite("The dates of a stored token entry")
struct TokenEntryDateTests {
    /// What `JSONDecoder`'s own `.iso8601` strategy reads from `string`, or `nil`.
    static func standardDate(_ string: String) -> Date? {
        struct Box: Decodable { var date: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let json = try? JSONEncoder().encode(["date": string])
        return json.flatMap { try? decoder.decode(Box.self, from: $0).date }
    }

    /// Whole seconds from 1970 to 9999, the edges, leap days and random instants in between.
    static let instants: [Double] = {
        var generator = SystemRandomNumberGenerator()
        let edges: [Double] = [
            0, 59, 86_399, 86_400, 951_782_400, 951_868_799, 1_709_164_800, 4_107_542_399, 253_402_300_799,
        ]
        return edges + (0..<2_000).map { _ in Double(Int.random(in: 0...253_402_300_799, using: &generator)) }
    }()

    @Test func everyDateTheEncoderWritesIsReadAsJSONDecodersISO8601StrategyReadsIt() throws {
        let encoder = TokenEntryFormat.encoder()
        for instant in Self.instants {
            let date = Date(timeIntervalSince1970: instant)
            let written = String(decoding: try encoder.encode([date]), as: UTF8.self)
            let string = String(written.dropFirst(2).dropLast(2))
            #expect(TokenEntryFormat.utcDate(string) != nil, "\(string) took the full parser")
            #expect(TokenEntryFormat.date(iso8601: string) == date, "\(string)")
            #expect(TokenEntryFormat.date(iso8601: string) == Self.standardDate(string), "\(string)")
        }
    }

    @Test(arguments: [
        "2026-11-26T12:00:00+01:00", "2026-11-26T12:00:00.250Z", "2026-11-26 12:00:00Z", "2026-11-26t12:00:00z",
        "20261126T120000Z", "2026-02-29T00:00:00Z", "2024-02-29T00:00:00Z", "2026-02-30T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-26T24:00:00Z",
        "2026-11-26T23:60:00Z", "2016-12-31T23:59:60Z", "1969-12-31T23:59:59Z", "1582-10-10T00:00:00Z",
        "0001-01-01T00:00:00Z", "+2026-11-26T12:00:00Z", "2026-11-26T12:00:0Z", "2026-11-26T12:00:00ZZ",
        "2026-11-26T12:00:00", "٢٠٢٦-11-26T12:00:00Z", "2026-1a-26T12:00:00Z", "", "Z",
    ])
    func anyOtherStringIsJudgedAsJSONDecodersISO8601StrategyJudgesIt(string: String) {
        #expect(TokenEntryFormat.date(iso8601: string) == Self.standardDate(string))
    }

    @Test func anEntryWithADateThatIsNotISO8601IsRefusedWholly() throws {
        struct Shape: Decodable { var savedAt: Date }
        let decoder = TokenEntryFormat.decoder()
        #expect(throws: DecodingError.self) {
            try decoder.decode(Shape.self, from: Data(#"{"savedAt":"yesterday"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try decoder.decode(Shape.self, from: Data(#"{"savedAt":1764158400}"#.utf8))
        }
        #expect(
            try decoder.decode(Shape.self, from: Data(#"{"savedAt":"2025-11-26T12:00:00Z"}"#.utf8)).savedAt
                == Date(timeIntervalSince1970: 1_764_158_400))
    }
}
