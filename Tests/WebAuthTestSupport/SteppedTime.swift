import Foundation
import Synchronization

/// Time that passes only when a test says so, for code that waits out a duration (a provider's
/// delayed answer): what happens "during" the wait is then ordered by the test, not by how busy
/// the machine is.
///
/// ```swift
/// let time = SteppedTime()
/// let provider = try await HostileProvider.start(sleep: time.sleep)
/// provider.script { $0.faults[.token] = .delay(.seconds(3)) }
/// // … a token request now waits: #expect(await eventually { time.sleeperCount == 1 })
/// time.advance(by: .seconds(3))   // and now it is answered
/// ```
package final class SteppedTime: Sendable {
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now: Duration = .zero
        var sleepers: [UUID: Sleeper] = [:]
        var cancelled: Set<UUID> = []
    }
    private let state = Mutex(State())

    /// Time standing still at zero.
    package init() {}

    /// How many sleeps are waiting now.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until ``advance(by:)`` has moved time `duration` past now; throws
    /// `CancellationError` when the task is cancelled first, as `Task.sleep` does.
    @Sendable package func sleep(_ duration: Duration) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if duration <= .zero { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: state.now + duration, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
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

    /// Moves time forward by `duration`, waking every sleep whose end it reaches.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
