// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthPlatform

/// Runs `operation`, failing with ``HTTPTransportError/Code/timedOut`` once `limit` has passed
/// — whether or not `operation` ever stops: FoundationNetworking's own timeout is an idle timeout
/// that some requests never reach, so this bounds the whole exchange and returns without waiting.
/// Both transports, `CurlTransport` and `URLSessionTransport`, bound their exchanges with it.
///
/// On the deadline or the caller's cancellation it calls `giveUp` (on a dispatch queue) to stop
/// the operation, and never cancels the operation's task: FoundationNetworking's cancellation
/// handler for `URLSession.data(for:)` waits for the session's queue, which can at that moment be
/// waiting for the cancelled task's status lock — a deadlock that took every cooperative thread
/// with it.
package func withDeadline<Value: Sendable>(
    _ limit: Duration, onGiveUp giveUp: @escaping @Sendable () -> Void = {},
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = OneShot<Value>()
    let abandon: @Sendable (any Error) -> Void = { error in
        if outcome.resume(with: .failure(error)) { DispatchQueue.global().async(execute: giveUp) }
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            outcome.attach(continuation)
            Task {
                do {
                    outcome.resume(with: .success(try await operation()))
                } catch {
                    outcome.resume(with: .failure(error))
                }
            }
            let timer = Task {
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                abandon(HTTPTransportError(code: .timedOut, message: "no answer within \(limit)"))
            }
            outcome.onFinish { timer.cancel() }
        }
    } onCancel: {
        abandon(CancellationError())
    }
}

/// A continuation resumed by whichever result comes first; later ones are dropped. The deadline
/// gives up only when its timeout wins this race, so a result in time can never be given up.
package final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Locked(State())

    package func attach(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    package func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.finished { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Resumes with `result` if nothing has yet; returns whether it did.
    @discardableResult
    package func resume(with result: Result<Value, any Error>) -> Bool {
        let (continuation, cleanup, resumed) = state.withLock {
            state -> (CheckedContinuation<Value, any Error>?, (@Sendable () -> Void)?, Bool) in
            guard !state.finished else { return (nil, nil, false) }
            state.finished = true
            let continuation = state.continuation
            state.continuation = nil
            if continuation == nil { state.early = result }
            let cleanup = state.cleanup
            state.cleanup = nil
            return (continuation, cleanup, true)
        }
        continuation?.resume(with: result)
        cleanup?()
        return resumed
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
