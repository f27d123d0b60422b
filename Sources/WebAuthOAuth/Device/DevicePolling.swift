// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The polling rules of RFC 8628 §3.4–3.5 as a pure state machine: what to do after each
/// token-endpoint answer, given the time.
struct DevicePolling: Sendable {
    /// The current interval between polls.
    private(set) var interval: Duration
    /// When the device code expires.
    let expiresAt: Date

    /// The smallest interval honoured, whatever the server says.
    static let minimumInterval: Duration = .seconds(1)
    /// The longest interval a server can ask for; longer ones are taken as this.
    static let maximumInterval: Duration = .seconds(300)
    /// How far a timed-out poll backs off: doubling, up to this — but never below the interval
    /// the server asked for.
    static let backOffLimit: Duration = .seconds(60)
    /// What `slow_down` adds (RFC 8628 §3.5).
    static let slowDownIncrement: Duration = .seconds(5)

    init(interval: Duration, expiresAt: Date) {
        self.interval = min(max(interval, Self.minimumInterval), Self.maximumInterval)
        self.expiresAt = expiresAt
    }

    /// What a poll's answer means.
    enum Answer: Sendable {
        case tokens
        case pending
        case slowDown
        case expired
        case denied
        /// The request did not get through in time; RFC 8628 §3.5 asks for back-off.
        case timedOut
        case failed
    }

    /// What to do next.
    enum Step: Sendable, Equatable {
        case wait(Duration)
        case finish
        case expire
        case deny
        case fail
    }

    /// The first step: wait one interval before the first poll.
    func start(now: Date) -> Step {
        now >= expiresAt ? .expire : .wait(interval)
    }

    /// The step after `answer`, at `now`.
    mutating func next(after answer: Answer, now: Date) -> Step {
        switch answer {
        case .tokens: return .finish
        case .denied: return .deny
        case .expired: return .expire
        case .failed: return .fail
        case .pending: break
        case .slowDown: interval += Self.slowDownIncrement
        case .timedOut: interval = max(interval, min(interval * 2, Self.backOffLimit))
        }
        return now.addingTimeInterval(interval.timeInterval) >= expiresAt ? .expire : .wait(interval)
    }
}
