// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// JSON text written without Foundation, byte for byte as `JSONEncoder` (with
/// `.withoutEscapingSlashes`) and `Date.ISO8601FormatStyle` write it: for the fast path, whose
/// program would otherwise carry all of FoundationEssentials for a line or two of JSON. The
/// tests compare both with Foundation's.
///
/// ```swift
/// JSONText.quoted("a \"b\"\n")  // "\"a \\\"b\\\"\\n\""
/// JSONText.timestamp(secondsSince1970: 0)  // "1970-01-01T00:00:00Z"
/// ```
package enum JSONText {
    /// `text` as a JSON string: quoted, with `"` and `\` escaped, the control characters
    /// U+0000 to U+001F as `\b`, `\t`, `\n`, `\f`, `\r` or `\u00xx`, and everything else as it is.
    package static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\u{8}": quoted += "\\b"
            case "\t": quoted += "\\t"
            case "\n": quoted += "\\n"
            case "\u{C}": quoted += "\\f"
            case "\r": quoted += "\\r"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// The UTC time `seconds` after 1970 in ISO 8601's extended form with whole seconds,
    /// `2026-11-29T05:00:00Z`; the year has four digits or five. `nil` before 1970 or after
    /// year 99999 (Foundation writes dates before 1582 in the Julian calendar).
    package static func timestamp(secondsSince1970 seconds: Int64) -> String? {
        guard (0...3_093_527_980_799).contains(seconds) else { return nil }
        let days = seconds / 86_400
        let secondOfDay = seconds - days * 86_400
        // The civil date of a day count from 1970-01-01 (H. Hinnant's civil_from_days), the
        // inverse of what TokenEntryFormat.utcDate computes.
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
            + padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay % 3600 / 60, 2) + ":"
            + padded(secondOfDay % 60, 2) + "Z"
    }
}
