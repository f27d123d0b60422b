// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one place a number from a provider becomes a duration or a date: each is checked for
/// finiteness and bounded before use, so no later arithmetic or conversion can trap and nothing
/// stays fresh for ever.
///
/// JSON allows `1e300` and `-1e300`, and providers that send numbers as strings allow `NaN` and
/// `inf` too. A duration (`expires_in`, `interval`) that is not finite is refused; a finite one
/// is clamped into its range (a negative lifetime is an expired one; an absurdly long one is
/// the longest this package believes). A time (`exp`, `iat`, `nbf`, `auth_time`) must be a
/// finite number of seconds between 1970 and the end of 9999, or it is refused.
enum ProviderNumbers {
    /// The longest access token lifetime believed: ten years. Some providers (AniList) issue
    /// tokens for a year.
    static let longestTokenLifetime: TimeInterval = 10 * 365 * 86_400

    /// The latest time a claim may name: 9999-12-31T23:59:59Z.
    static let latestTime: TimeInterval = 253_402_300_799

    /// `value` clamped into `range`, or an ``OAuthError/Code/invalidResponse`` naming `field`
    /// when it is not a finite number.
    static func seconds(
        _ value: Double, field: String, within range: ClosedRange<TimeInterval>
    ) throws(OAuthError) -> TimeInterval {
        guard value.isFinite else {
            throw OAuthError(code: .invalidResponse, message: "the provider's \(field) is not a finite number")
        }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// The date `value` seconds after 1970 (a JWT NumericDate), or `nil` when it is not finite
    /// or outside 1970–9999.
    static func date(_ value: Double) -> Date? {
        guard value.isFinite, (0...latestTime).contains(value) else { return nil }
        return Date(timeIntervalSince1970: value)
    }
}
