// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Whether a URL completes a session: the accepted callback, or why it was refused.
///
/// Only a session's rule makes an accepted verdict, from the redirect URI it pinned; a
/// listener that is handed one learns the callback's parameters (to show an OAuth `error` on
/// its page) without reading the URL again.
public enum CallbackVerdict: Sendable, Hashable {
    /// The URL is the session's callback and passes its test.
    case accepted(ReceivedCallback)
    /// The URL does not complete the session, and why.
    case refused(WebAuthenticationSessionError)

    /// The accepted callback, or `nil` when refused.
    public var accepted: ReceivedCallback? {
        if case .accepted(let received) = self { return received }
        return nil
    }

    /// Whether the URL was accepted.
    public var isAccepted: Bool { accepted != nil }
}

/// The one rule that decides whether a URL completes a session: it must be the session's
/// ``Callback`` (``Callback/matchesURL(_:)``, with a loopback port once bound) and pass the
/// session's tests (``WebAuthSession/acceptsCallback``, and the test on the parsed parameters
/// that an OAuth client sets).
///
/// The session's state machine applies it, once per URL: listeners ask the machine
/// (``SessionStateMachine/decide(_:)``) and hand back the callback an accepted verdict carries.
package struct CallbackAcceptance: Sendable {
    /// The callback to match; the state machine pins it to the bound port once listening.
    package var callback: Callback
    private let test: (@Sendable (URL) -> Bool)?
    private let receivedTest: (@Sendable (ReceivedCallback) -> Bool)?

    /// A rule for `callback` with the extra tests (such as "its `state` is the one I sent"):
    /// `test` on the URL, `receivedTest` on the callback with its parameters read.
    package init(
        callback: Callback, test: (@Sendable (URL) -> Bool)? = nil,
        receivedTest: (@Sendable (ReceivedCallback) -> Bool)? = nil
    ) {
        self.callback = callback
        self.test = test
        self.receivedTest = receivedTest
    }

    /// The same rule for another callback (the one pinned to the listener's port).
    package func pinned(to callback: Callback) -> CallbackAcceptance {
        CallbackAcceptance(callback: callback, test: test, receivedTest: receivedTest)
    }

    /// Whether `url` completes the session that sent `redirectURI`: the URL is split into
    /// components once, for matching and for its parameters.
    package func verdict(_ url: URL, redirectURI: URL) -> CallbackVerdict {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        guard let components, callback.matches(components) else {
            return .refused(.callbackMismatch("\(url.redactedForLogs) is not the callback \(callback)"))
        }
        let received = ReceivedCallback(
            url: url, redirectURI: redirectURI, parameters: CallbackParameters(components: components))
        guard test?(url) ?? true, receivedTest?(received) ?? true else {
            return .refused(.callbackMismatch("the callback was not accepted (unexpected state or parameters)"))
        }
        return .accepted(received)
    }
}
