// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore
import WebAuthPlatform

/// The session's side of a controlled browser's presentation: the events it hears, and one
/// dismissal.
///
/// A callback is passed on while the page is open; a final event (the person closed the window,
/// the browser failed) at most once, and it finishes the stream. Once dismissal has begun nothing
/// more is reported — the browser going away is then expected, not news — and however often
/// ``dismiss(tearingDownWith:)`` is called, the teardown runs once.
final class PresentationEvents: Sendable {
    /// What the session reads.
    let stream: AsyncStream<BrowserEvent>

    private let continuation: AsyncStream<BrowserEvent>.Continuation
    private let state = Locked(State())

    private struct State: Sendable {
        /// Dismissal has begun.
        var dismissing = false
        /// A final event was reported.
        var ended = false
        var teardown: Task<Void, Never>?
    }

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
    }

    /// Whether the session still listens: not dismissed, no final event yet.
    var isOpen: Bool { state.withLock { !$0.dismissing && !$0.ended } }

    /// Reports a ``BrowserEvent/callback(_:)`` the browser was stopped at, unless the page is
    /// closing. The session may turn it down and go on waiting.
    ///
    /// - Returns: Whether it was reported.
    @discardableResult
    func deliver(_ callback: BrowserEvent) -> Bool {
        guard isOpen else { return false }
        continuation.yield(callback)
        return true
    }

    /// Reports a final event, once, unless the page is being dismissed; finishes the stream.
    ///
    /// - Returns: Whether it was reported.
    @discardableResult
    func end(_ event: BrowserEvent) -> Bool {
        let report = state.withLock { state -> Bool in
            guard !state.dismissing, !state.ended else { return false }
            state.ended = true
            return true
        }
        guard report else { return false }
        continuation.yield(event)
        continuation.finish()
        return true
    }

    /// Stops reporting, finishes the stream, and runs `tearDown` the first time; later calls wait
    /// for that one.
    func dismiss(tearingDownWith tearDown: @escaping @Sendable () async -> Void) async {
        let teardown = state.withLock { state -> Task<Void, Never> in
            if let teardown = state.teardown { return teardown }
            state.dismissing = true
            let teardown = Task { await tearDown() }
            state.teardown = teardown
            return teardown
        }
        continuation.finish()
        await teardown.value
    }
}
