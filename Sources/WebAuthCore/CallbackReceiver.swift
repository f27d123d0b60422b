// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Something that can receive a callback URL outside the browser: a loopback HTTP listener, a
/// desktop URL-scheme handler.
///
/// A session asks its receiver to ``listen(for:accepting:)`` before it opens the browser, so that
/// the redirect URI is known when the authorization URL is built.
public protocol CallbackReceiver: Sendable {
    /// Whether this receiver can receive `callback` on this machine.
    func canReceive(_ callback: Callback) -> Bool

    /// Starts listening for `callback`.
    ///
    /// - Parameters:
    ///   - callback: What to listen for.
    ///   - accepting: The session's acceptance rule. A URL that matches the callback but is not
    ///     accepted (for example one whose `state` is wrong) is answered as a failure and does
    ///     **not** end the listening: an attacker's forged request must not consume the session.
    /// - Returns: A listener that yields the first accepted callback URL.
    /// - Throws: ``WebAuthenticationSessionError/Code/callbackListenerFailed`` when it cannot
    ///   listen (naming the port), ``WebAuthenticationSessionError/Code/invalidCallback`` when
    ///   the callback cannot be listened for (such as a loopback path without a leading `/`).
    func listen(
        for callback: Callback,
        accepting: @escaping @Sendable (URL) -> Bool
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener

    /// Starts listening for `callback`, answering each request by the session's verdict.
    ///
    /// A session listens this way: `deciding` is its one rule, pinned to the listener's
    /// redirect URI once the listener is ready, and it is asked once per URL. An accepted
    /// verdict carries the callback with its parameters read, for the answer the receiver
    /// gives (a listener shows an OAuth `error` on its page). A refused URL does **not** end
    /// the listening. The default calls ``listen(for:accepting:)`` with whether the verdict
    /// accepts.
    ///
    /// - Throws: As ``listen(for:accepting:)``.
    func listen(
        for callback: Callback,
        deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener

    /// Why this receiver cannot listen for `callback` now, when it can tell before trying —
    /// such as another session already waiting for the same custom scheme. A session asks
    /// when it starts, so that it can refuse at once; ``listen(for:accepting:)`` still decides.
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
    /// Listens with ``listen(for:accepting:)``, accepting what the verdict accepts.
    public func listen(
        for callback: Callback,
        deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        try await listen(for: callback, accepting: { deciding($0).isAccepted })
    }

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
    /// Yields the first accepted callback URL, then finishes. It finishes without a value when
    /// the listener is closed first.
    var callbacks: AsyncStream<URL> { get }
    /// Stops listening and releases what the listener holds (the port, the socket). Called once
    /// when the session ends, whatever the ending; safe to call more than once.
    func close() async
}
