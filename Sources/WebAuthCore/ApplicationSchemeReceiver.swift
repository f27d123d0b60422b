// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Receives custom-scheme callbacks that the application itself is handed: the Linux form of
/// an Apple app's `application(_:open:)`.
///
/// A desktop app that carries its own scheme in its `.desktop` entry
/// (`MimeType=x-scheme-handler/com.example.app`) is started by the desktop with the callback
/// URL; a single-instance app (GApplication with `G_APPLICATION_HANDLES_OPEN`) receives it in
/// its running instance, in the `open` signal. The app hands it to the session waiting for that
/// scheme with ``open(_:)``:
///
/// ```swift
/// let receiver = ApplicationSchemeReceiver(schemes: ["com.example.app"])
/// let environment = SessionEnvironment(receivers: [receiver]) { _ in myBrowser }
/// // A session for .customScheme("com.example.app") in `environment` now waits on `receiver`.
///
/// // In the app's open-URL handler:
/// if !receiver.open(url) { print("no sign-in is waiting for this URL") }
/// ```
///
/// It receives only the ``schemes`` it was made with — the ones the app's `.desktop` entry
/// declares — and nothing leaves the process: no socket, no file. One session waits per scheme
/// at a time; a second one fails at start with
/// ``WebAuthenticationSessionError/Code/callbackListenerFailed``. A URL is checked by the
/// waiting session (its callback and its `state`) before it ends the session; a URL the
/// session refuses, or one that arrives with no session waiting, is dropped and ``open(_:)``
/// returns `false`. Nothing is kept for a later session.
public final class ApplicationSchemeReceiver: CallbackReceiver {
    /// The schemes this receiver takes, lower-cased, in the order given.
    public let schemes: [String]

    private let waiting = Locked([String: Waiting]())

    /// A session waiting for a scheme: its rule and where the callback it accepts goes.
    private struct Waiting {
        let id: UUID
        let deciding: @Sendable (URL) -> CallbackVerdict
        let continuation: AsyncStream<ReceivedCallback>.Continuation
    }

    /// Creates a receiver for the custom schemes the application declares, such as
    /// `["com.example.app"]`.
    public init(schemes: [String]) {
        var seen = Set<String>()
        self.schemes = schemes.map { $0.lowercased() }.filter { seen.insert($0).inserted }
    }

    /// Whether `callback` is a custom-scheme callback for one of ``schemes``.
    public func canReceive(_ callback: Callback) -> Bool {
        callback.isCustomScheme && schemes.contains(callback.scheme)
    }

    /// The first of ``schemes``: what a session that names no callback scheme (Apple's `nil`
    /// scheme) waits for. `nil` when there is none.
    public func registeredCallback() throws(WebAuthenticationSessionError) -> Callback? {
        schemes.first.map(Callback.customScheme)
    }

    /// Why a session for `callback` cannot start now: another session of this receiver is
    /// waiting for its scheme.
    public func unavailability(for callback: Callback) -> WebAuthenticationSessionError? {
        guard callback.isCustomScheme, waiting.withLock({ $0[callback.scheme] != nil }) else { return nil }
        return Self.busy(callback.scheme)
    }

    /// Starts waiting for `callback`, answering each URL handed to ``open(_:)`` by the
    /// session's verdict; the callback an accepted verdict carries goes to the session.
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/invalidCallback`` for a callback that is
    ///   not one of ``schemes``; ``WebAuthenticationSessionError/Code/callbackListenerFailed``
    ///   when another session waits for the scheme.
    public func listen(
        for callback: Callback, deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        guard canReceive(callback) else {
            throw .invalidCallback("\(callback) is not one of this application's schemes (\(schemes))")
        }
        let scheme = callback.scheme
        let (callbacks, continuation) = AsyncStream.makeStream(of: ReceivedCallback.self)
        let id = UUID()
        let taken = waiting.withLock { waiting in
            guard waiting[scheme] == nil else { return false }
            waiting[scheme] = Waiting(id: id, deciding: deciding, continuation: continuation)
            return true
        }
        guard taken else {
            continuation.finish()
            throw Self.busy(scheme)
        }
        return Listener(callback: callback, callbacks: callbacks) { [weak self] in
            self?.stopWaiting(scheme: scheme, id: id)
        }
    }

    /// Hands `url`, which the application was opened with, to the session waiting for its
    /// scheme.
    ///
    /// Call it from the application's open-URL handler (GApplication's `open` signal). It
    /// returns at once; the session delivers its result as it always does.
    ///
    /// - Returns: `true` when the waiting session accepted the URL and ends with it; `false`
    ///   when no session waits for its scheme, or the session refused it (another callback,
    ///   a wrong `state`) and keeps waiting.
    @discardableResult
    public func open(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        guard let session = waiting.withLock({ $0[scheme] }) else { return false }
        guard let received = session.deciding(url).accepted else { return false }
        // The first accepted URL ends the wait: a later one finds no session.
        let first = waiting.withLock { waiting in
            guard waiting[scheme]?.id == session.id else { return false }
            waiting[scheme] = nil
            return true
        }
        guard first else { return false }
        session.continuation.yield(received)
        session.continuation.finish()
        return true
    }

    /// Ends the wait `id` for `scheme`, if it is still the one registered.
    private func stopWaiting(scheme: String, id: UUID) {
        let ended = waiting.withLock { waiting -> Waiting? in
            guard let current = waiting[scheme], current.id == id else { return nil }
            waiting[scheme] = nil
            return current
        }
        ended?.continuation.finish()
    }

    private static func busy(_ scheme: String) -> WebAuthenticationSessionError {
        WebAuthenticationSessionError(
            code: .callbackListenerFailed,
            message: "another sign-in is already waiting for \(scheme): callbacks; finish or cancel it first")
    }

    /// One session's wait.
    private final class Listener: CallbackListener {
        let callback: Callback
        let callbacks: AsyncStream<ReceivedCallback>
        private let stop: @Sendable () -> Void

        var redirectURI: URL { callback.redirectURI }

        init(callback: Callback, callbacks: AsyncStream<ReceivedCallback>, stop: @escaping @Sendable () -> Void) {
            self.callback = callback
            self.callbacks = callbacks
            self.stop = stop
        }

        func close() async { stop() }

        deinit { stop() }
    }
}
