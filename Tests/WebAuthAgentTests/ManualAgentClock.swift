// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthAgent
import WebAuthPlatform

/// A clock a test moves: `now()` is what the test last set, and a `sleep(until:)` returns once
/// the test moves the clock to its time (or the sleeping task is cancelled). Nothing waits for
/// real time.
final class ManualAgentClock: AgentClock {
    private struct Sleeper {
        var until: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
        /// How many sleeps have begun: a timer that went round once more has begun one more.
        var sleepsBegun = 0
    }

    private let state: Locked<State>

    init(_ start: Date) {
        state = Locked(State(now: start))
    }

    func now() -> Date { state.withLock { $0.now } }

    /// How many sleeps have begun so far.
    var sleepsBegun: Int { state.withLock { $0.sleepsBegun } }

    /// Moves the clock to `time` (never back) and wakes the sleepers whose time has come.
    func set(_ time: Date) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, time)
            let due = state.sleepers.filter { $0.value.until <= state.now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Moves the clock on by `seconds`.
    func advance(by seconds: TimeInterval) {
        set(now().addingTimeInterval(seconds))
    }

    func sleep(until time: Date) async throws {
        let id = state.withLock { state -> Int in
            state.sleepsBegun += 1
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if time <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(until: time, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
