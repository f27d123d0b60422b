// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Logging
public import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): the end-session URL the
/// browser opens and the check of the redirect that comes back — pure functions of their
/// inputs, so every rule is tested without a browser or a server.
///
/// Made by ``OAuthClient/prepareEndSession(idTokenHint:postLogoutRedirectURI:)`` for callers
/// that run their own session; `OAuthClient.endSession(idTokenHint:)` (in `WebAuthSignIn`)
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

    /// How the ID token hint reaches the provider when the browser is one the session does not
    /// control: the person's own browser (`xdg-open`, `$BROWSER`, a browser program), or the
    /// terminal. Such a browser is started with the address it opens on its command line, which
    /// every local user can read, so the end-session URL with `id_token_hint` is never handed to
    /// it. A browser the session controls (Chromium over its DevTools pipe, Firefox over
    /// WebDriver BiDi, a registered authentication browser over its private socket) receives
    /// the address on no command line, and opens the end-session URL as it is.
    public enum HintDelivery: Sendable, Hashable {
        /// The browser opens a one-use loopback page (`http://127.0.0.1:PORT/` and a random
        /// path), answered once and only to a connection of this user's, that posts the request
        /// as a form to the end-session endpoint (RP-Initiated Logout 1.0 §2: the provider must
        /// accept POST). The default.
        case formPost
        /// The browser opens the end-session URL without `id_token_hint`, with `client_id`, the
        /// post-logout redirect URI and `state`: for a provider that refuses a form posted from
        /// another site (django-oauth-toolkit behind Django's CSRF check does). The provider then
        /// does not know which session to end and, as the specification asks, asks the person;
        /// a provider that requires the hint refuses the request.
        case omitted
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
    /// loopback: with the bound port). It carries the ID token: hand it only to a browser that
    /// receives it on no command line (see ``HintDelivery``).
    public func url(postLogoutRedirectURI: URL) -> URL {
        AuthorizationRequest.url(endSessionEndpoint, adding: parameters(postLogoutRedirectURI: postLogoutRedirectURI))
    }

    /// The URL of ``HintDelivery/omitted``: as ``url(postLogoutRedirectURI:)``, without
    /// `id_token_hint`.
    public func urlWithoutHint(postLogoutRedirectURI: URL) -> URL {
        AuthorizationRequest.url(
            endSessionEndpoint,
            adding: parameters(postLogoutRedirectURI: postLogoutRedirectURI).filter { $0.0 != "id_token_hint" })
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
