// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthPlatform

/// A browser stand-in for driving sessions without launching anything: records requests and
/// lets the test play the browser's events.
final class StandInBrowser: Browser {
    let name = "stand-in"
    let capabilities: BrowserCapabilities
    private let failure: WebAuthenticationSessionError?
    private let recorded = Locked<[BrowserRequest]>([])
    let presentations: AsyncStream<StandInPresentation>
    private let presentationsContinuation: AsyncStream<StandInPresentation>.Continuation

    init(capabilities: BrowserCapabilities = [], failure: WebAuthenticationSessionError? = nil) {
        self.capabilities = capabilities
        self.failure = failure
        (presentations, presentationsContinuation) = AsyncStream.makeStream(of: StandInPresentation.self)
    }

    var requests: [BrowserRequest] { recorded.withLock { $0 } }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        recorded.withLock { $0.append(request) }
        if let failure { throw failure }
        let presentation = StandInPresentation()
        presentationsContinuation.yield(presentation)
        return presentation
    }

    /// The next page this browser presents.
    func nextPresentation() async -> StandInPresentation {
        var iterator = presentations.makeAsyncIterator()
        return await iterator.next()!
    }
}

final class StandInPresentation: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    let continuation: AsyncStream<BrowserEvent>.Continuation
    private let dismissals = Locked(0)

    init() { (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self) }

    var dismissCount: Int { dismissals.withLock { $0 } }

    func dismiss() async {
        dismissals.withLock { $0 += 1 }
        continuation.finish()
    }
}

/// A receiver stand-in that "binds" a fixed port and lets the test deliver callbacks.
final class StandInReceiver: CallbackReceiver {
    private let port: Int
    private let failure: WebAuthenticationSessionError?
    private let slow: Bool
    private let taken: WebAuthenticationSessionError?
    private let made = Locked<[StandInListener]>([])
    /// Yields each time ``listen(for:deciding:)`` is entered.
    let listenCalls: AsyncStream<Void>
    private let listenCallsContinuation: AsyncStream<Void>.Continuation

    /// - Parameter slow: Whether listening takes until the listening task is cancelled (at
    ///   most a minute), so that the listener arrives after the session has ended.
    /// - Parameter taken: What ``unavailability(for:)`` reports, as if another session had the callback.
    init(
        port: Int = 40_000, failure: WebAuthenticationSessionError? = nil, slow: Bool = false,
        taken: WebAuthenticationSessionError? = nil
    ) {
        self.port = port
        self.failure = failure
        self.slow = slow
        self.taken = taken
        (listenCalls, listenCallsContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    var listeners: [StandInListener] { made.withLock { $0 } }

    func canReceive(_ callback: Callback) -> Bool { callback.isLoopback }

    func unavailability(for callback: Callback) -> WebAuthenticationSessionError? { taken }

    func listen(
        for callback: Callback, deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        listenCallsContinuation.yield()
        // Real time is the point: a listener that takes a minute to bind, unless cancelled.
        if slow { try? await Task.sleep(for: .seconds(60)) }
        if let failure { throw failure }
        let bound = callback.boundToPort(port)
        let listener = StandInListener(callback: bound, deciding: deciding)
        made.withLock { $0.append(listener) }
        return listener
    }
}

final class StandInListener: CallbackListener {
    let callback: Callback
    let redirectURI: URL
    let callbacks: AsyncStream<ReceivedCallback>
    private let continuation: AsyncStream<ReceivedCallback>.Continuation
    private let deciding: @Sendable (URL) -> CallbackVerdict
    private let closes = Locked(0)

    init(callback: Callback, deciding: @escaping @Sendable (URL) -> CallbackVerdict) {
        self.callback = callback
        self.deciding = deciding
        self.redirectURI = URL(string: callback.description)!
        (callbacks, continuation) = AsyncStream.makeStream(of: ReceivedCallback.self)
    }

    var closeCount: Int { closes.withLock { $0 } }

    /// Plays a request arriving at the listener, decided by the session's verdict as a real
    /// listener decides it; returns whether it was accepted.
    @discardableResult
    func deliver(_ url: URL) -> Bool {
        guard let received = deciding(url).accepted else { return false }
        continuation.yield(received)
        continuation.finish()
        return true
    }

    func close() async {
        closes.withLock { $0 += 1 }
        continuation.finish()
    }
}
