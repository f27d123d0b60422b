// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation

/// The agent's time: what time it is, and waiting for a time to come. Every time the agent
/// decides by — a token's freshness, a lifetime's or an idle time's end, when to refresh
/// ahead — comes from here, and its timer waits here, so that tests drive a clock of their own
/// (`ManualAgentClock` in the agent's tests) and wait for nothing. The agent runs on
/// ``SystemAgentClock``.
package protocol AgentClock: Sendable {
    /// The current time.
    func now() -> Date

    /// Returns once the clock reads `time` or later.
    ///
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until time: Date) async throws
}

/// The system's clock: `Date()`, and `Task.sleep` for the time left.
package struct SystemAgentClock: AgentClock {
    /// The system's clock.
    package init() {}

    /// The system's current time.
    package func now() -> Date { Date() }

    /// Sleeps for the time from now until `time`.
    package func sleep(until time: Date) async throws {
        let left = time.timeIntervalSinceNow
        if left > 0 { try await Task.sleep(for: .milliseconds(Int64((left * 1000).rounded(.up)))) }
        try Task.checkCancellation()
    }
}
