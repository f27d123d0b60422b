// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthPlatform

/// Time that passes only when a test says so: give ``clock`` to an ``EmbeddedProvider`` (its
/// ``EmbeddedProvider/Configuration/clock``) and codes, tokens and device codes expire when the
/// test moves time forward, not when the machine gets round to it; a fault's delay ends the
/// same way.
///
/// ```swift
/// let time = SteppedClock()
/// var configuration = EmbeddedProvider.Configuration()
/// configuration.clock = time.clock
/// let provider = try await EmbeddedProvider.start(configuration)
/// // … start a device authorization (its code lives 10 minutes) …
/// time.advance(by: .seconds(601))     // polling it now answers expired_token
/// ```
///
/// The date starts at the real date when the clock is made, so what the provider issues (an
/// ID token's `iat`, say) still looks current to a client that reads the real time.
public final class SteppedClock: Sendable {
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var elapsed: Duration = .zero
        var sleepers: [UUID: Sleeper] = [:]
        var cancelled: Set<UUID> = []
        /// Callers of ``waitForSleepers(_:)``: how many waits each wants to see.
        var watchers: [UUID: (count: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]

        /// Takes the watchers whose count the waits in progress now reach.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, any Error>] {
            let satisfied = watchers.filter { $0.value.count <= sleepers.count }
            for id in satisfied.keys { watchers[id] = nil }
            return satisfied.values.map(\.continuation)
        }
    }
    private let start: Date
    private let state = Locked(State())

    /// A clock standing still at `start` (default: now).
    public init(startingAt start: Date = Date()) {
        self.start = start
    }

    /// The clock's date: its start plus every ``advance(by:)`` so far.
    public var now: Date {
        let elapsed = state.withLock { $0.elapsed }
        return start.addingTimeInterval(
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The clock for ``EmbeddedProvider/Configuration/clock``: this clock's date, and waits
    /// that end when it has moved far enough.
    public var clock: EmbeddedProvider.Clock {
        EmbeddedProvider.Clock(now: { [self] in now }, sleep: { [self] in try await sleep($0) })
    }

    /// How many waits are in progress now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until ``advance(by:)`` has moved time `duration` past now; throws
    /// `CancellationError` when the task is cancelled first, as `Task.sleep` does.
    @Sendable public func sleep(_ duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: state.elapsed + duration, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                for watcher in state.withLock({ $0.satisfiedWatchers() }) { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once `count` waits are in progress at the same time: the event a test waits for
    /// before it moves time, so that it moves the time of a wait that has begun. Throws
    /// `CancellationError` when the task is cancelled first (bound it with a deadline).
    public func waitForSleepers(_ count: Int = 1) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil || state.sleepers.count >= count { return true }
                    state.watchers[id] = (count, continuation)
                    return false
                }
                if ready { continuation.resume(with: Task.isCancelled ? .failure(CancellationError()) : .success(())) }
            }
        } onCancel: {
            let watcher = state.withLock { state in
                if let watcher = state.watchers.removeValue(forKey: id) { return Optional(watcher) }
                state.cancelled.insert(id)
                return nil
            }
            watcher?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, ending every wait whose end it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.elapsed += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.elapsed }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
