// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Durations given on the command line as a number of seconds (`--timeout 90`,
/// `--min-validity 0.5`): the range both programs take, and the plain spelling the fast path
/// reads. The full program's parser checks its values with ``isValid(_:allowsZero:)`` too.
///
/// ```swift
/// SecondsRule.isValid(90, allowsZero: false)  // true
/// SecondsRule.seconds("1e3")                  // nil: the full program decides
/// ```
package enum SecondsRule {
    /// The longest duration accepted: a year, far beyond any sign-in or token lifetime, and far
    /// below what a `Duration` can hold.
    package static let maximum: Double = 365 * 24 * 3600

    /// Whether `value` is in range: positive (or zero, when `allowsZero`) and at most
    /// ``maximum``.
    package static func isValid(_ value: Double, allowsZero: Bool) -> Bool {
        value.isFinite && value <= maximum && (allowsZero ? value >= 0 : value > 0)
    }

    /// The usage error for `option` out of range.
    package static func refusal(option: String, allowsZero: Bool) -> String {
        let lower = allowsZero ? "zero or a positive number" : "a positive number"
        return "\(option) must be \(lower) of seconds, at most \(Int(maximum)) (a year)."
    }

    /// `text` read as seconds when it is written as plain decimal digits (with at most one `.`)
    /// and is zero or more, at most ``maximum``; `nil` for any other spelling or value, which
    /// the full program's parser may read differently.
    package static func seconds(_ text: String) -> Double? {
        let digits = text.utf8
        guard (1...16).contains(digits.count), digits.first != UInt8(ascii: "."), digits.last != UInt8(ascii: "."),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".") }),
            digits.count(where: { $0 == UInt8(ascii: ".") }) <= 1,
            let value = Double(text), isValid(value, allowsZero: true)
        else { return nil }
        return value
    }

    /// `value` seconds as the duration both programs use: to the millisecond.
    package static func duration(_ value: Double) -> Duration {
        .milliseconds(Int64((value * 1000).rounded()))
    }
}
