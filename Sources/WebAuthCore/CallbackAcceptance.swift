import Foundation

/// The one rule that decides whether a URL completes a session: it must be the session's
/// ``Callback`` (``Callback/matchesURL(_:)``, with a loopback port once bound) and pass the
/// session's ``WebAuthSession/acceptsCallback`` test.
///
/// The session's state machine applies it to every URL offered, from a listener or a browser;
/// listeners get the same rule through ``accepts(_:)`` to answer a refused request at once.
package struct CallbackAcceptance: Sendable {
    /// The callback to match; the state machine pins it to the bound port once listening.
    package var callback: Callback
    private let test: @Sendable (URL) -> Bool

    /// A rule for `callback` with the extra `test` (such as "its `state` is the one I sent").
    package init(callback: Callback, test: (@Sendable (URL) -> Bool)? = nil) {
        self.callback = callback
        self.test = test ?? { _ in true }
    }

    /// Why `url` does not complete the session, or `nil` when it does.
    package func verdict(_ url: URL) -> WebAuthenticationSessionError? {
        guard callback.matchesURL(url) else {
            return .callbackMismatch("\(url.redactedForLogs) is not the callback \(callback)")
        }
        guard test(url) else {
            return .callbackMismatch("the callback was not accepted (unexpected state or parameters)")
        }
        return nil
    }

    /// Whether `url` completes the session.
    package func accepts(_ url: URL) -> Bool { verdict(url) == nil }
}
