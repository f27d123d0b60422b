// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthOAuth
import WebAuthTokenStore

/// How `status` and `login` describe a stored entry to people: its issuer and its access
/// token's expiry — never a token.
enum EntryDescription {
    /// The issuer to show: the stored one, else the ID token's.
    static func issuer(of entry: StoredTokens) -> String? {
        entry.issuer ?? entry.tokens.idTokenClaims?.issuer
    }

    /// `expires 2025-01-31T12:00:00Z (in 59 min)`, `expired 2025-…`, or `no expiry given`.
    static func expiry(_ date: Date?, now: Date) -> String {
        guard let date else { return "no expiry given" }
        // Bounded before the conversion, so no stored date can make it trap.
        let interval = date.timeIntervalSince(now)
        guard interval.isFinite else { return "no expiry given" }
        let seconds = Int(min(max(interval, -1e15), 1e15).rounded())
        guard seconds > 0 else { return "expired (at \(JSONDate.string(date)))" }
        return "expires \(JSONDate.string(date)) (in \(duration(seconds)))"
    }

    /// `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`.
    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<60: "\(seconds) s"
        case ..<3600: "\(seconds / 60) min"
        case ..<86400: "\(seconds / 3600) h \(seconds % 3600 / 60) min"
        default: "\(seconds / 86400) d \(seconds % 86400 / 3600) h"
        }
    }
}
