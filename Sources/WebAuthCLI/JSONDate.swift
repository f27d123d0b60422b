// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Dates in JSON output: ISO 8601 in UTC, whole seconds.
enum JSONDate {
    /// `2025-01-31T12:00:00Z`. A date outside years 1–9999 (or not a number), as an entry
    /// written before provider numbers were bounded may hold, is shown as the nearest of them.
    static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let bounded = seconds.isNaN ? 0 : min(max(seconds, -62_135_596_800), 253_402_300_799)
        return Date(timeIntervalSince1970: bounded).formatted(.iso8601)
    }
}
