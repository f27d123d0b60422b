// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import WebAuthFastPath

/// Durations given on the command line as a number of seconds (`--timeout 90`, `--min-validity
/// 0.5`): checked once, turned into a `Duration` once, by the fast path's ``SecondsRule``.
enum SecondsOption {
    /// Throws a usage error naming `option` unless `value` is a number of seconds in range:
    /// positive (or zero, when `allowsZero`) and at most a year.
    static func validate(_ value: Double, option: String, allowsZero: Bool = false) throws {
        guard SecondsRule.isValid(value, allowsZero: allowsZero) else {
            throw ValidationError(SecondsRule.refusal(option: option, allowsZero: allowsZero))
        }
    }

    /// `value` seconds, to the millisecond. Call after ``validate(_:option:allowsZero:)``.
    static func duration(_ value: Double) -> Duration {
        SecondsRule.duration(value)
    }
}
