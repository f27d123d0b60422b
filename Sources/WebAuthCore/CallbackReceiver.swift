// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Something that can receive a callback URL outside the browser: a loopback HTTP listener, a
/// desktop URL-scheme handler.
///
/// A session asks its receiver to ``listen(for:deciding:)`` before it opens the browser, so that
/// the redirect URI is known when the authorization URL is built.
public protocol CallbackReceiver: Sendable {
    /// Whether this receiver can receive `callback` on this machine.
    func canReceive(_ callback: Callback) -> Bool

    /// Starts listening for `callback`, answering each URL it receives by the session's verdict.
    ///
    /// `deciding` is the session's one rule, pinned to the listener's redirect URI once the
    /// listener is ready; ask it once per URL. An accepted verdict carries the callback with
    /// its parameters read (a listener shows an OAuth `error` on its page from them): the
    /// listener yields that value on ``CallbackListener/callbacks``, and the session takes it
    /// as its result without reading or deciding the URL again. A URL that is refused (for
    /// example one whose `state` is wrong) is answered as a failure and does **not** end the
    /// listening: an attacker's forged request must not consume the session.
    ///
    /// - Parameters:
    ///   - callback: What to listen for.
    ///   - deciding: The session's verdict on a URL.
    /// - Returns: A listener that yields the first callback the session accepted.
    /// - Throws: ``WebAuthenticationSessionError/Code/callbackListenerFailed`` when it cannot
    ///   listen (naming the port), ``WebAuthenticationSessionError/Code/invalidCallback`` when
    ///   the callback cannot be listened for (such as a loopback path without a leading `/`).
    func listen(
        for callback: Callback,
        deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener

    /// Why this receiver cannot listen for `callback` now, when it can tell before trying —
    /// such as another session already waiting for the same custom scheme. A session asks
    /// when it starts, so that it can refuse at once; ``listen(for:deciding:)`` still decides.
    /// The default is `nil`.
    func unavailability(for callback: Callback) -> WebAuthenticationSessionError?

    /// The callback registered for this program with this receiver, for sessions that name
    /// none (Apple's `nil` callback scheme, which means the scheme of the app's `Info.plist`).
    ///
    /// - Returns: `nil` when this receiver keeps no registrations (the default).
    /// - Throws: ``WebAuthenticationSessionError/Code/noCallbackReceiver`` when it keeps them
    ///   but none is registered for this program, saying how to register one.
    func registeredCallback() throws(WebAuthenticationSessionError) -> Callback?
}

extension CallbackReceiver {
    /// Knows nothing before trying: `nil`.
    public func unavailability(for callback: Callback) -> WebAuthenticationSessionError? { nil }

    /// Keeps no registrations: `nil`.
    public func registeredCallback() throws(WebAuthenticationSessionError) -> Callback? { nil }
}

/// A receiver that is listening.
public protocol CallbackListener: Sendable {
    /// The redirect URI to put in the authorization request, such as
    /// `http://127.0.0.1:49152/callback`.
    var redirectURI: URL { get }
    /// The callback as bound, such as a loopback callback pinned to its port.
    var callback: Callback { get }
    /// Yields the first callback the session accepted, then finishes: the value the accepted
    /// ``CallbackVerdict`` carried, which the session takes as it is. A callback the listener
    /// made itself, or changed, is decided again as a browser's URL is. It finishes without a
    /// value when the listener is closed first.
    var callbacks: AsyncStream<ReceivedCallback> { get }
    /// Stops listening and releases what the listener holds (the port, the socket). Called once
    /// when the session ends, whatever the ending; safe to call more than once.
    func close() async
}
