// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import WebAuthCore
import WebAuthPlatform

/// A loopback listener bound before its session starts, for a sign-in whose redirect URI must
/// be known, port included, before the authorization request exists — such as one a provider
/// registers exactly (dynamic client registration at a provider that does not allow any port,
/// as RFC 8252 §7.3 asks).
///
/// Bind it, use its ``redirectURI``, then give it to the session's environment ahead of the
/// standard receivers: the first session that listens for its callback takes the listener as
/// it is, and ends it as it ends any listener. Until then every request to the callback path is
/// refused (400), as a session's listener refuses everything before it is ready.
///
/// ```swift
/// let bound = try await BoundLoopbackReceiver.bind(.loopback(path: "/callback"))
/// defer { Task { await bound.close() } }
/// // … register bound.redirectURI with the provider …
/// var environment = SessionEnvironment.standard(browser: browser)
/// environment.receivers.insert(bound, at: 0)
/// ```
public final class BoundLoopbackReceiver: CallbackReceiver {
    /// What the listener and the receiver share: the session's rule, once a session took the
    /// listener. The listener is made before the receiver, so it holds this, not the receiver.
    private final class Handover: Sendable {
        struct State {
            var rule: (@Sendable (URL) -> CallbackVerdict)?
            /// Whether a session took the listener (it then closes it), or it was closed.
            var isTaken = false
        }

        let state = Locked(State())

        func decide(_ url: URL) -> CallbackVerdict {
            guard let rule = state.withLock({ $0.rule }) else {
                return .refused(.callbackMismatch("no sign-in is waiting for the callback yet"))
            }
            return rule(url)
        }
    }

    private let listener: any CallbackListener
    private let handover: Handover

    private init(listener: any CallbackListener, handover: Handover) {
        self.listener = listener
        self.handover = handover
    }

    /// Binds `callback` (a loopback callback; port 0 for a port the system picks) with
    /// `receiver`'s configuration.
    ///
    /// - Throws: What ``LoopbackReceiver/listen(for:deciding:)`` throws: a busy port is
    ///   ``WebAuthenticationSessionError/Code/callbackListenerFailed`` naming it.
    public static func bind(
        _ callback: Callback, using receiver: LoopbackReceiver = LoopbackReceiver()
    ) async throws(WebAuthenticationSessionError) -> BoundLoopbackReceiver {
        let handover = Handover()
        let listener = try await receiver.listen(for: callback) { url in handover.decide(url) }
        return BoundLoopbackReceiver(listener: listener, handover: handover)
    }

    /// The redirect URI with the bound port, such as `http://127.0.0.1:49152/callback`.
    public var redirectURI: URL { listener.redirectURI }

    /// The callback as bound: pinned to its port.
    public var callback: Callback { listener.callback }

    /// Whether `callback` is this listener's: a loopback callback on the same address and path,
    /// on its port or on port 0 (any), while no session has taken the listener.
    public func canReceive(_ callback: Callback) -> Bool {
        guard let wanted = callback.loopbackEndpoint, let bound = listener.callback.loopbackEndpoint else {
            return false
        }
        let matches =
            wanted.host == bound.host && wanted.path == bound.path && (wanted.port == 0 || wanted.port == bound.port)
        return matches && !handover.state.withLock { $0.isTaken }
    }

    /// Hands the bound listener to the session, which answers each callback request by its
    /// rule from now on.
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/callbackListenerFailed`` when the
    ///   listener is taken or closed already, or `callback` is not this listener's.
    public func listen(
        for callback: Callback, deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        let port = listener.callback.loopbackEndpoint?.port
        guard canReceive(callback) else {
            throw .listenerFailed(port: port, "the bound listener is taken, or is not for \(callback)")
        }
        let took = handover.state.withLock { state in
            guard !state.isTaken else { return false }
            state.isTaken = true
            state.rule = deciding
            return true
        }
        guard took else { throw .listenerFailed(port: port, "the bound listener is taken") }
        return listener
    }

    /// Releases the port when no session took the listener (a session closes what it took);
    /// no session can take it afterwards.
    public func close() async {
        let taken = handover.state.withLock { state in
            defer { state.isTaken = true }
            return state.isTaken
        }
        if !taken { await listener.close() }
    }
}
