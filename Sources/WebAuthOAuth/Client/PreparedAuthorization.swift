import Foundation

/// A sign-in's authorization step, ready for a browser: the one-time request values, the
/// authorization URL builder and the validator for the response.
///
/// Made by ``OAuthClient/prepareAuthorization()`` for callers that run their own session.
public struct PreparedAuthorization: Sendable {
    /// The `state`, `nonce` and PKCE values of this sign-in.
    public let request: AuthorizationRequest
    /// Checks the redirect that answers this request.
    public let validator: AuthorizationResponseValidator
    let target: RedirectTarget
    let authorizationEndpoint: URL
    let clientID: String
    let additionalParameters: [String: String]

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
