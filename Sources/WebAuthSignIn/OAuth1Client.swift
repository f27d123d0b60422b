// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import HTTPTypes
public import Logging
public import WebAuth
public import WebAuthOAuth

/// Signs a person in with OAuth 1.0a (RFC 5849's redirection-based authorization, the
/// "three-legged" flow) in a `WebAuthSession`, and signs API requests with the
/// token credentials it obtains.
///
/// ```swift
/// import WebAuthOAuth
/// import WebAuthSignIn
///
/// let client = OAuth1Client(
///     configuration: OAuth1Configuration(
///         consumerKey: "dpf43f3p2l4k3l03",
///         consumerSecret: "kd94hf93k423kf44",
///         requestTokenURL: URL(string: "https://photos.example.net/initiate")!,
///         authorizationURL: URL(string: "https://photos.example.net/authorize")!,
///         accessTokenURL: URL(string: "https://photos.example.net/token")!))
///
/// let credentials = try await client.signIn()          // opens the browser
/// print(credentials.additionalParameters["screen_name"] ?? "")
///
/// let photo = HTTPTransportRequest(
///     method: "GET", url: URL(string: "https://photos.example.net/photos?file=vacation.jpg")!)
/// let response = try await CurlTransport().send(client.sign(photo, with: credentials))
/// ```
///
/// ``signIn(sessionTimeout:prefersEphemeralWebBrowserSession:)`` runs the three steps of RFC 5849
/// §2:
///
/// 1. `POST` to the request token URL, signed with the consumer secret, with `oauth_callback`
///    set to the callback URI. The response must carry `oauth_token`, `oauth_token_secret` and
///    `oauth_callback_confirmed=true` (the OAuth 1.0a guard against session fixation).
/// 2. The browser opens the authorization URL with `oauth_token`. The session only accepts a
///    callback whose `oauth_token` is that temporary token, so a forged callback does not end it
///    (the loopback listener answers it with an error page and keeps waiting). The callback's
///    `oauth_verifier` is read.
/// 3. `POST` to the access token URL, signed with the temporary credentials, with
///    `oauth_verifier`. The response's `oauth_token` and `oauth_token_secret` are the token
///    credentials; its other parameters (`user_id`, `screen_name`, …) come along.
///
/// ## The loopback callback
///
/// The callback URI must be sent in step 1, before the browser opens, but a loopback listener
/// on port 0 only learns its port once bound. So for a loopback callback the client binds the
/// listener first, with the loopback receiver of its ``environment``, sends that listener's
/// redirect URI (`http://127.0.0.1:{port}/callback`) as `oauth_callback`, and then runs the
/// session on that same listener. The port is held throughout: nothing else can take it between
/// the request and the callback. Custom-scheme and `https` callbacks are sent as configured.
///
/// ## Errors and logs
///
/// Every failure is an `OAuthError`: `OAuthError.Code.unexpectedStatus` for a non-2xx
/// answer (with the status and a short, sanitized excerpt of a text body),
/// `OAuthError.Code.invalidResponse` for a response without the credentials,
/// `OAuthError.Code.invalidCallback` for a callback without a verifier or with another token,
/// `OAuthError.Code.session` when the browser session fails, and the transport codes
/// (`OAuthError.Code.transportFailed`, `OAuthError.Code.timedOut`,
/// `OAuthError.Code.responseTooLarge`). No token, secret or verifier ever appears in an error
/// message or a log line; URLs are logged without their query.
public struct OAuth1Client: Sendable {
    /// The provider and the client's registration.
    public let configuration: OAuth1Configuration
    /// Sends the requests to the provider's endpoints.
    public let transport: any HTTPTransport
    /// The browser and callback receivers the sign-in session uses.
    public let environment: SessionEnvironment
    /// Where the client logs what it does. By default it logs nothing.
    public var logger: Logger
    /// The signer for the configuration's consumer credentials.
    public let signer: OAuth1Signer

    /// How long a request to an endpoint may take. Default `HTTPTransportRequest.defaultTimeout`.
    public var requestTimeout: Duration = HTTPTransportRequest.defaultTimeout

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: The provider and the client's registration.
    ///   - transport: How requests are sent. Default a new `CurlTransport`.
    ///   - environment: The browser and callback receivers for the sign-in session. Default
    ///     `SessionEnvironment.standard`.
    ///   - logger: Where to log. Default: nowhere.
    ///   - nonce: Makes each request's `oauth_nonce`. Default `OAuth1Signer.randomNonce()`.
    ///   - timestamp: Makes each request's `oauth_timestamp`. Default the clock.
    public init(
        configuration: OAuth1Configuration,
        transport: any HTTPTransport = CurlTransport(),
        environment: SessionEnvironment = .standard,
        logger: Logger = .webAuthSilent,
        nonce: @escaping @Sendable () -> String = { OAuth1Signer.randomNonce() },
        timestamp: @escaping @Sendable () -> Int = { OAuth1Signer.currentTimestamp() }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.environment = environment
        self.logger = logger
        self.signer = OAuth1Signer(
            consumerKey: configuration.consumerKey, consumerSecret: configuration.consumerSecret,
            signatureMethod: configuration.signatureMethod, realm: configuration.realm, nonce: nonce,
            timestamp: timestamp)
    }

    // MARK: - Signing in

    /// Runs the whole sign-in: temporary credentials, the browser, token credentials.
    ///
    /// - Parameters:
    ///   - sessionTimeout: How long to wait for the person in the browser. Default 10 minutes;
    ///     `nil` waits until the task is cancelled.
    ///   - prefersEphemeralWebBrowserSession: Whether to ask the browser for a private session
    ///     (see `WebAuthSession.prefersEphemeralWebBrowserSession`). Default `false`.
    /// - Returns: The token credentials and the response's other parameters.
    /// - Throws: `OAuthError`; see the type's documentation.
    public func signIn(
        sessionTimeout: Duration? = .seconds(600), prefersEphemeralWebBrowserSession: Bool = false
    ) async throws(OAuthError) -> OAuth1Credentials {
        let configuration = try configuration.validated()
        let callback = try Callback.configured(configuration.callbackURL)
        let gate = OAuth1CallbackGate()
        let (redirectURI, sessionEnvironment, listener) = try await prepareCallback(for: callback)
        do throws(OAuthError) {
            let temporary = try await requestTemporaryCredentials(callback: redirectURI.absoluteString)
            gate.expect(temporary.token)
            let verifier = try await authorize(
                temporary, callback: callback, environment: sessionEnvironment, gate: gate,
                timeout: sessionTimeout, ephemeral: prefersEphemeralWebBrowserSession)
            let credentials = try await requestTokenCredentials(temporary: temporary, verifier: verifier)
            await listener?.close()
            return credentials
        } catch {
            await listener?.close()
            logger.debug("OAuth 1.0a sign-in failed", metadata: ["code": "\(error.code)"])
            throw error
        }
    }

    /// Step 1: asks the request token URL for temporary credentials (RFC 5849 §2.1).
    ///
    /// - Parameter callback: The `oauth_callback`: an absolute URI, or `oob` when the person
    ///   will copy the verifier by hand.
    /// - Returns: The temporary credentials; any further response parameters are in
    ///   `OAuth1Credentials.additionalParameters`.
    /// - Throws: `OAuthError.Code.invalidResponse` when the response lacks `oauth_token` or
    ///   `oauth_token_secret`, or `oauth_callback_confirmed` is not `true`; the HTTP and
    ///   transport errors described on the type.
    public func requestTemporaryCredentials(callback: String) async throws(OAuthError) -> OAuth1Credentials {
        let url = configuration.requestTokenURL
        try EndpointPolicy.check(url, role: "request token URL")
        let body = configuration.requestTokenParameters.filter { !$0.key.hasPrefix("oauth_") }
            .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        logger.debug("requesting temporary credentials", metadata: ["endpoint": "\(url.redactedForLogs)"])
        let response = try await post(
            url, endpoint: .requestToken, token: nil, protocolParameters: ["oauth_callback": callback], body: body)
        guard Self.firstValue("oauth_callback_confirmed", in: response) == "true" else {
            throw OAuthError(
                code: .invalidResponse,
                message: "the request token response lacks oauth_callback_confirmed=true: "
                    + "the server does not speak OAuth 1.0a (RFC 5849 §2.1)")
        }
        return try Self.credentials(from: response, endpoint: .requestToken)
    }

    /// Step 2's URL: the authorization URL with `oauth_token` added to its query (RFC 5849
    /// §2.2).
    public func authorizationURL(for temporary: OAuth1Credentials) -> URL {
        var components = URLComponents(url: configuration.authorizationURL, resolvingAgainstBaseURL: false)
        let existing = components?.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components?.percentEncodedQuery = existing + "oauth_token=" + OAuth1Signer.percentEncode(temporary.token)
        return components?.url ?? configuration.authorizationURL
    }

    /// Reads the verifier from a callback URL, checking it is for `temporary` (RFC 5849 §2.2).
    ///
    /// - Throws: `OAuthError.Code.invalidCallback` when the callback's `oauth_token` is not
    ///   the temporary token or it has no `oauth_verifier`; `OAuthError.Code.server` with
    ///   `OAuthServerError.Code.accessDenied` when it carries `denied` (as Twitter's does when
    ///   the person declines).
    public func verifier(fromCallback url: URL, temporary: OAuth1Credentials) throws(OAuthError) -> String {
        let parameters = OAuth1CallbackGate.queryParameters(of: url)
        func first(_ name: String) -> String? { parameters.first { $0.0 == name }?.1 }
        if let denied = first("denied"), denied == temporary.token, first("oauth_verifier") == nil {
            throw OAuthError(
                code: .server, message: "the authorization was declined",
                serverError: OAuthServerError(code: .accessDenied, endpoint: .authorization))
        }
        guard first("oauth_token") == temporary.token else {
            throw OAuthError(
                code: .invalidCallback, message: "the callback is not for the temporary token this sign-in obtained")
        }
        guard let verifier = first("oauth_verifier"), !verifier.isEmpty else {
            throw OAuthError(code: .invalidCallback, message: "the callback has no oauth_verifier")
        }
        return verifier
    }

    /// Step 3: exchanges the temporary credentials and the verifier for token credentials at
    /// the access token URL (RFC 5849 §2.3).
    ///
    /// - Returns: The token credentials; the response's other parameters (`user_id`,
    ///   `screen_name`, …) are in `OAuth1Credentials.additionalParameters`.
    /// - Throws: `OAuthError.Code.invalidResponse` when the response lacks `oauth_token` or
    ///   `oauth_token_secret`; the HTTP and transport errors described on the type.
    public func requestTokenCredentials(temporary: OAuth1Credentials, verifier: String) async throws(OAuthError)
        -> OAuth1Credentials
    {
        let url = configuration.accessTokenURL
        try EndpointPolicy.check(url, role: "access token URL")
        logger.debug("requesting token credentials", metadata: ["endpoint": "\(url.redactedForLogs)"])
        let response = try await post(
            url, endpoint: .accessToken, token: temporary, protocolParameters: ["oauth_verifier": verifier], body: [])
        let credentials = try Self.credentials(from: response, endpoint: .accessToken)
        logger.debug(
            "signed in with OAuth 1.0a",
            metadata: ["parameters": "\(credentials.additionalParameters.keys.sorted().joined(separator: ","))"])
        return credentials
    }

    // MARK: - Signing API requests

    /// Returns `request` signed with `credentials`: an `Authorization: OAuth …` header
    /// (replacing any) with a fresh nonce and timestamp.
    ///
    /// Give a form body its `Content-Type: application/x-www-form-urlencoded` header before
    /// signing; its parameters are then signed too (RFC 5849 §3.4.1.3.1).
    public func sign(_ request: HTTPTransportRequest, with credentials: OAuth1Credentials) -> HTTPTransportRequest {
        signer.sign(request, token: credentials)
    }

    // MARK: - Internals

    /// For a loopback callback, binds the listener now (see the type's documentation) and
    /// returns its redirect URI and an environment that hands it to the session. Otherwise the
    /// configured URI and the environment as it is.
    private func prepareCallback(
        for callback: Callback
    ) async throws(OAuthError) -> (URL, SessionEnvironment, (any CallbackListener)?) {
        guard callback.isLoopback else { return (callback.redirectURI, environment, nil) }
        guard let receiver = environment.receivers.first(where: { $0.canReceive(callback) }) else {
            let error = WebAuthenticationSessionError.noCallbackReceiver(
                "no loopback listener is available for \(callback)")
            throw OAuthError(code: .session, message: error.message, sessionError: error)
        }
        let prebound: PreboundLoopbackReceiver
        do throws(WebAuthenticationSessionError) {
            prebound = try await PreboundLoopbackReceiver.bind(callback, with: receiver)
        } catch {
            throw OAuthError(code: .session, message: "cannot listen for the callback: \(error)", sessionError: error)
        }
        let listener = prebound.listener
        logger.debug(
            "listening for the callback", metadata: ["redirect_uri": "\(listener.redirectURI.redactedForLogs)"])
        let original = environment
        let sessionEnvironment = SessionEnvironment(receivers: [prebound]) { needs in original.browser(for: needs) }
        return (listener.redirectURI, sessionEnvironment, listener)
    }

    /// Step 2: the browser session, ending with the verifier.
    private func authorize(
        _ temporary: OAuth1Credentials, callback: Callback, environment: SessionEnvironment,
        gate: OAuth1CallbackGate, timeout: Duration?, ephemeral: Bool
    ) async throws(OAuthError) -> String {
        let url = authorizationURL(for: temporary)
        let session = WebAuthSession(callback: callback, environment: environment) { _ in url }
        session.acceptsCallback = { gate.accepts($0) }
        session.timeout = timeout
        session.prefersEphemeralWebBrowserSession = ephemeral
        session.logger = logger
        logger.debug("opening the authorization page", metadata: ["url": "\(url.redactedForLogs)"])
        let callbackURL: URL
        do throws(WebAuthenticationSessionError) {
            callbackURL = try await session.authenticate().url
        } catch {
            throw OAuthError(
                code: .session, message: "the browser sign-in did not complete: \(error)", sessionError: error)
        }
        return try verifier(fromCallback: callbackURL, temporary: temporary)
    }

    /// Sends a signed, form-encoded `POST` and returns the form-encoded response's parameters.
    private func post(
        _ url: URL, endpoint: OAuthEndpoint, token: OAuth1Credentials?, protocolParameters: [String: String],
        body: [(String, String)]
    ) async throws(OAuthError) -> [(String, String)] {
        var request = HTTPTransportRequest(method: "POST", url: url, body: Data(), timeout: requestTimeout)
        request.headerFields[.accept] = "application/x-www-form-urlencoded, text/plain"
        if !body.isEmpty {
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            request.body = Data(FormEncoding.encode(body).utf8)
        }
        let signed = signer.sign(request, token: token, additionalProtocolParameters: protocolParameters)
        let response: HTTPTransportResponse
        do throws(HTTPTransportError) {
            response = try await transport.send(signed)
        } catch {
            throw Self.transportFailure(error, endpoint: endpoint, url: url)
        }
        guard (200..<300).contains(response.status) else {
            var secrets = [configuration.consumerSecret] + protocolParameters.values
            if let token { secrets += [token.token, token.tokenSecret] }
            let excerpt = Self.excerpt(of: response, hiding: secrets).map { ": \($0)" } ?? ""
            logger.debug(
                "unexpected status", metadata: ["endpoint": "\(url.redactedForLogs)", "status": "\(response.status)"])
            throw OAuthError(
                code: .unexpectedStatus,
                message: "the \(endpoint) endpoint \(url.redactedForLogs) answered HTTP \(response.status)\(excerpt)")
        }
        guard let text = String(data: response.body, encoding: .utf8) else {
            throw OAuthError(
                code: .invalidResponse, message: "the \(endpoint) response is not UTF-8 form-encoded text")
        }
        return FormEncoding.decode(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func firstValue(_ name: String, in parameters: [(String, String)]) -> String? {
        parameters.first { $0.0 == name }?.1
    }

    /// `oauth_token`, `oauth_token_secret` and the rest of a credentials response.
    static func credentials(from parameters: [(String, String)], endpoint: OAuthEndpoint) throws(OAuthError)
        -> OAuth1Credentials
    {
        guard let token = firstValue("oauth_token", in: parameters), !token.isEmpty else {
            throw OAuthError(code: .invalidResponse, message: "the \(endpoint) response has no oauth_token")
        }
        guard let secret = firstValue("oauth_token_secret", in: parameters) else {
            throw OAuthError(code: .invalidResponse, message: "the \(endpoint) response has no oauth_token_secret")
        }
        var additional: [String: String] = [:]
        for (name, value) in parameters
        where !["oauth_token", "oauth_token_secret", "oauth_callback_confirmed"].contains(name)
            && additional[name] == nil
        {
            additional[name] = value
        }
        return OAuth1Credentials(token: token, tokenSecret: secret, additionalParameters: additional)
    }

    static func transportFailure(_ error: HTTPTransportError, endpoint: OAuthEndpoint, url: URL) -> OAuthError {
        OAuthError(
            code: error.oauthCode, message: "the \(endpoint) endpoint \(url.redactedForLogs): \(error.message)",
            transportError: error)
    }

    /// At most 160 characters of a text body, control characters replaced by spaces — or `nil`
    /// when the body is empty, not text, or may carry credentials: it mentions `oauth_token`,
    /// `oauth_verifier`, `oauth_signature` or `oauth_consumer_key` (as an echoed request or base
    /// string would) or contains one of `secrets`, as it is or percent-encoded.
    static func excerpt(of response: HTTPTransportResponse, hiding secrets: [String]) -> String? {
        guard !response.body.isEmpty else { return nil }
        if let contentType = response.headerFields[values: .contentType].first?.lowercased() {
            let textual = ["text/", "application/x-www-form-urlencoded", "application/json", "application/xml"]
            guard textual.contains(where: { contentType.hasPrefix($0) }) else { return nil }
        }
        let text = String(decoding: response.body.prefix(1024), as: UTF8.self)
        let lowered = text.lowercased()
        let credentialNames = ["oauth_token", "oauth_verifier", "oauth_signature", "oauth_consumer_key"]
        if credentialNames.contains(where: { lowered.contains($0) }) { return nil }
        let forms = secrets.filter { $0.count >= 4 }.flatMap { [$0, OAuth1Signer.percentEncode($0)] }
        if forms.contains(where: { text.contains($0) }) { return nil }
        let printable = UntrustedText(text).displayed(replacingWith: " ")
        let collapsed = printable.split(whereSeparator: { $0 == " " }).joined(separator: " ")
        guard !collapsed.isEmpty else { return nil }
        return collapsed.count > 160 ? String(collapsed.prefix(160)) + "…" : collapsed
    }
}
