import Foundation
import WebAuthCore

/// One RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): the end-session URL the
/// browser opens and the check of the redirect that comes back — pure functions of their
/// inputs, so every rule is tested without a browser or a server.
///
/// Made by ``OAuthClient/prepareEndSession(idTokenHint:postLogoutRedirectURI:)`` for callers
/// that run their own session; ``OAuthClient/endSession(idTokenHint:postLogoutRedirectURI:environment:configureSession:)``
/// runs one for you.
///
/// The request carries `id_token_hint`, `client_id`, `post_logout_redirect_uri` and a fresh
/// `state` (256 random bits); the provider must send the `state` back. Its description shows
/// neither the ID token nor the `state`.
public struct EndSessionRequest: Sendable, CustomStringConvertible {
    /// The provider's `end_session_endpoint`.
    public let endSessionEndpoint: URL
    /// The ID token sent as `id_token_hint`: it names the session to end and the client that
    /// asks.
    public let idTokenHint: String
    /// The `client_id` sent with the hint.
    public let clientID: String
    /// The `state` sent and expected back.
    public let state: String
    /// The callback the session waits for, made from the post-logout redirect URI.
    public let callback: Callback

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - endSessionEndpoint: The provider's `end_session_endpoint`.
    ///   - idTokenHint: The ID token the provider issued for this sign-in.
    ///   - clientID: The client's ID.
    ///   - state: The `state` to send; a fresh random one by default.
    ///   - callback: The callback the post-logout redirect arrives at.
    public init(
        endSessionEndpoint: URL, idTokenHint: String, clientID: String, state: String? = nil, callback: Callback
    ) {
        self.endSessionEndpoint = endSessionEndpoint
        self.idTokenHint = idTokenHint
        self.clientID = clientID
        self.state = state ?? RandomToken.make()
        self.callback = callback
    }

    /// The request's parameters, in the order they are sent.
    public func parameters(postLogoutRedirectURI: URL) -> [(String, String)] {
        [
            ("id_token_hint", idTokenHint), ("client_id", clientID),
            ("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString), ("state", state),
        ]
    }

    /// The URL the browser opens: the end-session endpoint with the request's parameters added
    /// to any query it already has, for the redirect URI the session gives its builder (for
    /// loopback: with the bound port).
    public func url(postLogoutRedirectURI: URL) -> URL {
        AuthorizationRequest.url(endSessionEndpoint, adding: parameters(postLogoutRedirectURI: postLogoutRedirectURI))
    }

    /// Whether a redirect with these parameters ends the wait: its `state` is this request's,
    /// or it has none. A redirect whose `state` is another one is a forgery, and a session keeps
    /// waiting for the real one; a redirect without `state` is answered with an error by
    /// ``validate(_:)`` rather than waited out, since it comes from a provider that drops it.
    public func endsWait(_ parameters: CallbackParameters) -> Bool {
        guard let returned = parameters.query["state"] else { return true }
        return !state.isEmpty && returned == state
    }

    /// Checks the post-logout redirect.
    ///
    /// - Throws: ``OAuthError`` with ``OAuthError/Code/stateMismatch`` when `state` is missing
    ///   or not this request's; ``OAuthError/Code/server`` when the redirect carries an `error`
    ///   (``OAuthServerError/endpoint`` is ``OAuthEndpoint/endSession``).
    public func validate(_ parameters: CallbackParameters) throws(OAuthError) {
        let query = parameters.query
        guard let returned = query["state"] else {
            throw OAuthError(
                code: .stateMismatch,
                message: "the provider's redirect after signing out has no state, so it cannot be told from a forgery")
        }
        guard !state.isEmpty, returned == state else {
            throw OAuthError(
                code: .stateMismatch, message: "the provider's redirect after signing out carries another state")
        }
        if let error = query["error"] {
            let serverError = OAuthServerError(
                code: .init(rawValue: error), rawDescription: query["error_description"],
                uri: query["error_uri"].flatMap(URL.init(string:)).flatMap { $0.scheme == "https" ? $0 : nil },
                endpoint: .endSession)
            throw OAuthError(
                code: .server, message: "the provider did not end the session: \(serverError)",
                serverError: serverError)
        }
    }

    /// The endpoint and client; never the ID token or the `state`.
    public var description: String {
        "EndSessionRequest(\(endSessionEndpoint.redactedForLogs), client_id: \(clientID))"
    }
}

extension OAuthClient {
    // MARK: - Signing out of the provider

    /// Signs the person out of the provider (OpenID Connect RP-Initiated Logout 1.0), through
    /// a browser session as a sign-in runs: opens the provider's `end_session_endpoint` with
    /// the tokens' ID token as `id_token_hint`, `client_id`, the post-logout redirect URI and a
    /// fresh `state`, waits for the redirect back and checks its `state`.
    ///
    /// It does not revoke the tokens; call ``revoke(_:)`` too (after this: the provider checks
    /// the ID token first).
    ///
    /// ```swift
    /// try await client.endSession(for: tokens)
    /// try await client.revoke(tokens)
    /// ```
    ///
    /// - Parameters:
    ///   - tokens: The signed-in tokens; their ``TokenSet/idToken`` is the hint.
    ///   - postLogoutRedirectURI: Where the provider sends the browser afterwards; `nil` for the
    ///     configuration's ``ClientConfiguration/redirectURI``. For a loopback URI the session
    ///     binds the port (any port, RFC 8252 §7.3), so register the URI with the provider as a
    ///     post-logout redirect URI without one.
    ///   - environment: Where the browser session runs.
    ///   - configureSession: Adjusts the session before it starts (timeout, progress…).
    /// - Throws: ``OAuthError`` — ``OAuthError/Code/noIDToken`` when the tokens have no ID
    ///   token; otherwise as ``endSession(idTokenHint:postLogoutRedirectURI:environment:configureSession:)``.
    public func endSession(
        for tokens: TokenSet, postLogoutRedirectURI: URL? = nil, environment: SessionEnvironment = .standard,
        configureSession: (WebAuthSession) -> Void = { _ in }
    ) async throws(OAuthError) {
        guard let idToken = tokens.idToken, !idToken.isEmpty else {
            throw OAuthError(
                code: .noIDToken,
                message: "the tokens have no ID token, which the provider needs to know which session to end")
        }
        try await endSession(
            idTokenHint: idToken, postLogoutRedirectURI: postLogoutRedirectURI, environment: environment,
            configureSession: configureSession)
    }

    /// Signs the person out of the provider with `idTokenHint` naming the session: opens the
    /// end-session URL in a browser session, waits for the redirect back and checks it.
    ///
    /// A redirect with another `state` does not end the session: the session keeps waiting for
    /// the real one.
    ///
    /// - Throws: ``OAuthError`` — ``OAuthError/Code/endpointUnavailable`` when the provider has
    ///   no `end_session_endpoint`; ``OAuthError/Code/insecureEndpoint`` when it is neither
    ///   `https` nor `http` to a loopback address; ``OAuthError/Code/session`` when the browser
    ///   session ends without a redirect (cancelled, timed out…); ``OAuthError/Code/stateMismatch``
    ///   or ``OAuthError/Code/server`` from ``EndSessionRequest/validate(_:)``.
    public func endSession(
        idTokenHint: String, postLogoutRedirectURI: URL? = nil, environment: SessionEnvironment = .standard,
        configureSession: (WebAuthSession) -> Void = { _ in }
    ) async throws(OAuthError) {
        let request = try await prepareEndSession(
            idTokenHint: idTokenHint, postLogoutRedirectURI: postLogoutRedirectURI)
        let session = WebAuthSession(
            callback: request.callback, environment: environment,
            authorizationURL: { redirectURI in request.url(postLogoutRedirectURI: redirectURI) })
        session.acceptsReceivedCallback = { received in request.endsWait(received.parameters) }
        session.logger = logger
        configureSession(session)
        let received: ReceivedCallback
        do throws(WebAuthenticationSessionError) {
            received = try await session.authenticate()
        } catch {
            throw OAuthError(code: .session, message: "the browser session ended: \(error)", sessionError: error)
        }
        try completeEndSession(request, received: received)
    }

    /// The parts of signing out before the browser: the metadata's `end_session_endpoint`, a
    /// fresh `state`, and the callback. Use it with your own session or browser; finish with
    /// ``completeEndSession(_:received:)``.
    ///
    /// - Parameters:
    ///   - idTokenHint: The ID token naming the session.
    ///   - postLogoutRedirectURI: Where the provider sends the browser afterwards; `nil` for
    ///     the configuration's ``ClientConfiguration/redirectURI``.
    /// - Throws: ``OAuthError/Code/endpointUnavailable``, ``OAuthError/Code/insecureEndpoint``,
    ///   ``OAuthError/Code/invalidConfiguration`` for an unusable redirect URI.
    public func prepareEndSession(
        idTokenHint: String, postLogoutRedirectURI: URL? = nil
    ) async throws(OAuthError) -> EndSessionRequest {
        guard let endpoint = try await metadata().endSessionEndpoint else {
            throw OAuthError(
                code: .endpointUnavailable,
                message: "the provider has no end-session endpoint (OpenID Connect RP-Initiated Logout)")
        }
        try EndpointPolicy.check(endpoint, role: "end_session_endpoint")
        let callback = try Callback.configured(postLogoutRedirectURI ?? configuration.redirectURI)
        return EndSessionRequest(
            endSessionEndpoint: endpoint, idTokenHint: idTokenHint, clientID: configuration.clientID,
            callback: callback)
    }

    /// Checks the redirect that ends an end-session request, as
    /// ``EndSessionRequest/validate(_:)`` does, logging only the failed check's name.
    ///
    /// - Parameters:
    ///   - request: What ``prepareEndSession(idTokenHint:postLogoutRedirectURI:)`` returned.
    ///   - received: The redirect, as `WebAuthSession.authenticate()` returns it.
    public func completeEndSession(_ request: EndSessionRequest, received: ReceivedCallback) throws(OAuthError) {
        do {
            try request.validate(received.parameters)
        } catch {
            logger.info("end-session redirect rejected", metadata: ["reason": "\(error.code)"])
            throw error
        }
        logger.debug("provider session ended")
    }
}
