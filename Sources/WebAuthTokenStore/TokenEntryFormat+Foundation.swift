// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The JSON coders of the stored entry's format, beside the store that writes it: not in the
/// fast path's program, which reads entries without them.
extension TokenEntryFormat {
    /// The encoder the store writes entries with: compact, sorted keys, ISO 8601 dates.
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The decoder entries are read with: ISO 8601 dates, read as ``date(iso8601:)`` reads them.
    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let date = date(iso8601: try container.decode(String.self)) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Expected date string to be ISO8601-formatted.")
            }
            return date
        }
        return decoder
    }

    /// The date an ISO 8601 string names, exactly as the `.iso8601` date strategy of
    /// `JSONDecoder` reads it (`Date.ISO8601FormatStyle()`), or `nil` where that strategy fails.
    ///
    /// The form ``encoder()`` writes, `2026-11-26T12:00:00Z`, is read directly; anything else
    /// goes to `Date.ISO8601FormatStyle`. Its first use in a process costs more than the whole
    /// rest of reading an entry (runtime type lookups, the local time zone's file), which the
    /// fast path's cached token pays on every call.
    package static func date(iso8601 string: String) -> Date? {
        if let date = utcDate(string) { return date }
        return try? Date.ISO8601FormatStyle().parse(string)
    }
}
