// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Time for the OAuth layer: the wall-clock date (token expiry, ID token `exp`/`iat`) and
/// sleeping (device-flow polling). Tests inject a clock they control.
///
/// ```swift
/// let fixed = OAuthClock(now: { Date(timeIntervalSince1970: 1_800_000_000) }, sleep: { _ in })
/// let client = try OAuthClient(configuration: configuration, clock: fixed)
/// ```
public struct OAuthClock: Sendable {
    /// The current date.
    public var now: @Sendable () -> Date
    /// Suspends for a duration; throws `CancellationError` when the task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Creates a clock.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system's clock: `Date()` and `Task.sleep`.
    public static let system = OAuthClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}
