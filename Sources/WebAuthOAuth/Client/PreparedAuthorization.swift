import Foundation
import Synchronization

/// A sign-in's authorization step, ready for a browser: the one-time request values, the
/// authorization URL builder and the validator for the response.
///
/// Made by ``OAuthClient/prepareAuthorization()`` for callers that run their own session. It
/// answers one response only: once a redirect with its `state` has been taken by
/// ``OAuthClient/completeAuthorization(_:callbackURL:redirectURI:)``, another one (a replay, a
/// second tab) is refused, copies of the value included.
public struct PreparedAuthorization: Sendable {
    /// The `state`, `nonce` and PKCE values of this sign-in.
    public let request: AuthorizationRequest
    /// Checks the redirect that answers this request.
    public let validator: AuthorizationResponseValidator
    let target: RedirectTarget
    let authorizationEndpoint: URL
    let clientID: String
    let additionalParameters: [String: String]
    /// Whether a response with this `state` has been taken; shared by every copy.
    private let answered = Answered()

    init(
        request: AuthorizationRequest, target: RedirectTarget, authorizationEndpoint: URL, clientID: String,
        additionalParameters: [String: String], validator: AuthorizationResponseValidator
    ) {
        self.request = request
        self.target = target
        self.authorizationEndpoint = authorizationEndpoint
        self.clientID = clientID
        self.additionalParameters = additionalParameters
        self.validator = validator
    }

    /// Records that a response with this `state` is being taken; `false` if one already was.
    func takeAnswer() -> Bool {
        answered.flag.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }

    /// The callback the session must wait for.
    public var callback: Callback { target.callback }

    /// The redirect URI to send, given the session's (which has the loopback port).
    public func redirectURI(sessionRedirectURI: URL) -> URL {
        target.redirectURI(sessionRedirectURI: sessionRedirectURI)
    }

    /// The authorization URL for the session's redirect URI.
    public func url(sessionRedirectURI: URL) -> URL {
        request.url(
            authorizationEndpoint: authorizationEndpoint, clientID: clientID,
            redirectURI: redirectURI(sessionRedirectURI: sessionRedirectURI), additional: additionalParameters)
    }
}

/// A flag that copies of a ``PreparedAuthorization`` share.
private final class Answered: Sendable {
    let flag = Mutex(false)
}
