// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import WebAuth
public import WebAuthOAuth

extension OAuthClient {
    /// Signs the person out of the provider (OpenID Connect RP-Initiated Logout 1.0), through
    /// a browser session as a sign-in runs: opens the provider's `end_session_endpoint` with
    /// the tokens' ID token as `id_token_hint`, `client_id`, the post-logout redirect URI and a
    /// fresh `state`, waits for the redirect back and checks its `state`.
    ///
    /// It does not revoke the tokens; call `revoke(_:)` too (after this: the provider checks
    /// the ID token first).
    ///
    /// ```swift
    /// try await client.endSession(for: tokens)
    /// try await client.revoke(tokens)
    /// ```
    ///
    /// - Parameters:
    ///   - tokens: The signed-in tokens; their `TokenSet.idToken` is the hint.
    ///   - postLogoutRedirectURI: Where the provider sends the browser afterwards; `nil` for the
    ///     configuration's `ClientConfiguration.redirectURI`. For a loopback URI the session
    ///     binds the port (any port, RFC 8252 §7.3), so register the URI with the provider as a
    ///     post-logout redirect URI without one.
    ///   - hintDelivery: How the hint reaches the provider through a browser the session does
    ///     not control (`EndSessionRequest.HintDelivery`). Default
    ///     `EndSessionRequest.HintDelivery.formPost`.
    ///   - environment: Where the browser session runs.
    ///   - configureSession: Adjusts the session before it starts (timeout, progress…).
    /// - Throws: `OAuthError` — `OAuthError.Code.noIDToken` when the tokens have no ID
    ///   token; otherwise as ``endSession(idTokenHint:postLogoutRedirectURI:hintDelivery:environment:configureSession:)``.
    public func endSession(
        for tokens: TokenSet, postLogoutRedirectURI: URL? = nil,
        hintDelivery: EndSessionRequest.HintDelivery = .formPost, environment: SessionEnvironment = .standard,
        configureSession: (WebAuthSession) -> Void = { _ in }
    ) async throws(OAuthError) {
        guard let idToken = tokens.idToken, !idToken.isEmpty else {
            throw OAuthError(
                code: .noIDToken,
                message: "the tokens have no ID token, which the provider needs to know which session to end")
        }
        try await endSession(
            idTokenHint: idToken, postLogoutRedirectURI: postLogoutRedirectURI, hintDelivery: hintDelivery,
            environment: environment, configureSession: configureSession)
    }

    /// Signs the person out of the provider with `idTokenHint` naming the session: opens the
    /// end-session request in a browser session, waits for the redirect back and checks it.
    ///
    /// A browser the session controls opens the end-session URL. Any other browser — the
    /// person's own, started with the address on its command line, or the terminal — is given
    /// no URL that carries the ID token: by default a one-use loopback page that posts the
    /// request to the provider (`EndSessionRequest.HintDelivery`).
    ///
    /// A redirect with another `state` does not end the session: the session keeps waiting for
    /// the real one.
    ///
    /// - Parameters:
    ///   - idTokenHint: The ID token naming the session.
    ///   - postLogoutRedirectURI: Where the provider sends the browser afterwards; `nil` for the
    ///     configuration's `ClientConfiguration.redirectURI`.
    ///   - hintDelivery: How the hint reaches the provider through a browser the session does
    ///     not control. Default `EndSessionRequest.HintDelivery.formPost`.
    ///   - environment: Where the browser session runs.
    ///   - configureSession: Adjusts the session before it starts (timeout, progress…).
    ///
    /// - Throws: `OAuthError` — `OAuthError.Code.endpointUnavailable` when the provider has
    ///   no `end_session_endpoint`; `OAuthError.Code.insecureEndpoint` when it is neither
    ///   `https` nor `http` to a loopback address; `OAuthError.Code.session` when the browser
    ///   session ends without a redirect (cancelled, timed out…); `OAuthError.Code.stateMismatch`
    ///   or `OAuthError.Code.server` from `EndSessionRequest.validate(_:)`.
    public func endSession(
        idTokenHint: String, postLogoutRedirectURI: URL? = nil,
        hintDelivery: EndSessionRequest.HintDelivery = .formPost, environment: SessionEnvironment = .standard,
        configureSession: (WebAuthSession) -> Void = { _ in }
    ) async throws(OAuthError) {
        let request = try await prepareEndSession(
            idTokenHint: idTokenHint, postLogoutRedirectURI: postLogoutRedirectURI)
        let logger = logger
        let presenting = SessionEnvironment(receivers: environment.receivers) { needs in
            EndSessionBrowser(
                browser: environment.browser(for: needs), request: request, hintDelivery: hintDelivery, logger: logger)
        }
        let session = WebAuthSession(
            callback: request.callback, environment: presenting,
            authorizationURL: { redirectURI in request.url(postLogoutRedirectURI: redirectURI) })
        session.acceptsReceivedCallback = { received in request.endsWait(received.parameters) }
        session.logger = logger
        configureSession(session)
        try completeEndSession(request, received: try await session.receivedCallback())
    }
}

extension EndSessionRequest {
    /// The form of `HintDelivery.formPost`: the request's parameters, posted to the
    /// end-session endpoint (with any query it already has).
    func formPost(postLogoutRedirectURI: URL) -> LoopbackFormPost {
        LoopbackFormPost(
            action: endSessionEndpoint,
            fields: parameters(postLogoutRedirectURI: postLogoutRedirectURI).map { (name: $0.0, value: $0.1) },
            title: "Signing out", message: "Sending the sign-out request to the provider…",
            buttonLabel: "Continue to the provider")
    }
}
