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
