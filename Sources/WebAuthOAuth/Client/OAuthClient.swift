// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Logging
public import WebAuthCore
import WebAuthPlatform

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An OAuth 2.0 / OpenID Connect client: the authorization code flow with PKCE, token refresh,
/// revocation, UserInfo, the device flow, client credentials and token exchange, with every
/// check of RFC 9700, RFC 9207 and OpenID Connect Core §3.1.3.7 done for you.
///
/// Signing a person in through a browser, `signIn()`, comes with the `WebAuthSignIn` module,
/// which runs ``prepareAuthorization()`` and ``completeAuthorization(_:received:)`` around a
/// `WebAuthSession`:
///
/// ```swift
/// import WebAuthOAuth
/// import WebAuthSignIn
///
/// let client = try OAuthClient(configuration: ClientConfiguration(
///     issuer: URL(string: "https://accounts.example.com")!,
///     clientID: "my-cli",
///     scopes: ["openid", "profile", "offline_access"]))
/// let tokens = try await client.signIn()         // browser, loopback, PKCE, state, nonce, iss
/// print(tokens.idTokenClaims?.subject ?? "")      // validated claims
/// let refreshed = try await client.refresh(tokens)
/// try await client.revoke(refreshed)
/// ```
///
/// The client is `Sendable` and cheap to share; it caches the provider's metadata and keys.
/// Nothing it logs or throws contains a token, code, verifier, secret or query string.
public final class OAuthClient: Sendable {
    /// The configuration, validated.
    public let configuration: ClientConfiguration
    /// The clock used for expiry and ID token times.
    public let clock: OAuthClock
    /// How far ID token `exp`/`iat` may be off the local clock. At most 5 minutes.
    public let leeway: Duration

    /// The key new sign-ins are bound to when ``ClientConfiguration/dpop`` asks for DPoP
    /// (one per client); `nil` otherwise. Tokens keep the key they were bound to
    /// (``TokenSet/dpopKey``).
    public let dpopKey: DPoPKey?

    /// The key `private_key_jwt` assertions are signed with: ``ClientConfiguration/clientKey``,
    /// or the one read from ``ClientConfiguration/clientKeyFile`` when the client was made.
    let clientKey: ClientAssertionKey?
    let endpoints: EndpointClient
    package let logger: Logger
    /// The servers' DPoP nonces.
    let dpopNonces = DPoPNonces()
    private let state: ClientState

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: The client and provider; checked at once (see
    ///     ``ClientConfiguration/validated()``).
    ///   - transport: How HTTP requests are sent. Default ``CurlTransport``.
    ///   - clock: The time source. Default ``OAuthClock/system``.
    ///   - leeway: Allowed clock difference for ID token times, 0 to 5 minutes. Default 60 s.
    ///   - requestTimeout: How long each endpoint request may take. Default 30 s.
    ///   - logger: Where to log (endpoints and statuses, never secrets). Default: nowhere.
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` (also for a client key file that
    ///   others can read, or that holds no usable key) or ``OAuthError/Code/insecureEndpoint``.
    public init(
        configuration: ClientConfiguration,
        transport: any HTTPTransport = CurlTransport(),
        clock: OAuthClock = .system,
        leeway: Duration = .seconds(60),
        requestTimeout: Duration = HTTPTransportRequest.defaultTimeout,
        logger: Logger = .webAuthSilent
    ) throws(OAuthError) {
        self.configuration = try configuration.validated()
        self.clock = clock
        self.leeway = min(max(leeway, .zero), .seconds(300))
        self.logger = logger
        self.endpoints = EndpointClient(transport: transport, logger: logger, timeout: requestTimeout)
        self.state = ClientState()
        self.dpopKey = self.configuration.dpop.map { DPoPKey(storage: $0) }
        if self.configuration.effectiveClientAuthentication == .privateKeyJWT {
            if let key = self.configuration.clientKey {
                self.clientKey = key
            } else if let file = self.configuration.clientKeyFile {
                self.clientKey = try ClientAssertionKey.load(from: file)
            } else {
                self.clientKey = nil
            }
        } else {
            self.clientKey = nil
        }
    }

    /// How this client authenticates at the provider's endpoints; for `private_key_jwt` and
    /// `client_secret_jwt`, with the assertions' audience, from the metadata when it names the
    /// token endpoint or the issuer.
    func clientAuthentication() async throws(OAuthError) -> ClientCredentials {
        guard configuration.effectiveClientAuthentication.usesAssertion else {
            return ClientCredentials(configuration)
        }
        return try clientAuthentication(metadata: try await metadata())
    }

    /// ``clientAuthentication()`` with the metadata at hand.
    func clientAuthentication(metadata: ProviderMetadata) throws(OAuthError) -> ClientCredentials {
        guard configuration.effectiveClientAuthentication.usesAssertion else {
            return ClientCredentials(configuration)
        }
        func tokenEndpoint() throws(OAuthError) -> String {
            guard let url = metadata.tokenEndpoint else {
                throw OAuthError(code: .endpointUnavailable, message: "the provider has no token endpoint")
            }
            return url.absoluteString
        }
        let audience: String
        switch configuration.clientAssertionAudience {
        case .url(let url): audience = url.absoluteString
        case .tokenEndpoint: audience = try tokenEndpoint()
        case .endpoint: return ClientCredentials(configuration, key: clientKey, audience: nil, now: clock.now)
        case .issuer:
            if let issuer = metadata.issuer ?? configuration.issuer?.absoluteString {
                audience = issuer
            } else {
                audience = try tokenEndpoint()
            }
        }
        return ClientCredentials(configuration, key: clientKey, audience: audience, now: clock.now)
    }

    // MARK: - Metadata

    /// The provider's metadata: discovered from the issuer (once, then cached), with the
    /// configuration's explicit endpoints taking precedence.
    ///
    /// - Throws: ``OAuthError/Code/invalidMetadata`` when discovery fails or the document names
    ///   another issuer; transport errors.
    public func metadata() async throws(OAuthError) -> ProviderMetadata {
        if let cached = await state.metadata { return cached }
        var metadata: ProviderMetadata
        if let issuer = configuration.issuer {
            metadata = try await Discovery.metadata(for: issuer, client: endpoints)
            logger.debug("discovered provider metadata", metadata: ["issuer": "\(issuer.absoluteString)"])
        } else {
            metadata = ProviderMetadata()
        }
        metadata = metadata.overriding(with: configuration.endpoints)
        if configuration.allowedTenants != nil, TenantIssuerTemplate(accepted: metadata.issuer ?? "") == nil {
            throw OAuthError(
                code: .invalidConfiguration,
                message:
                    "allowed tenants are set, but the provider's issuer is not a multi-tenant template with {tenantid}")
        }
        await state.setMetadata(metadata)
        return metadata
    }

    // MARK: - Sign-in

    /// Starts fetching the keys that will check the ID token while the person signs in, and
    /// returns what cancels the fetch when it is no longer wanted; `nil` when there is nothing
    /// to fetch.
    package func prefetchKeysWhileSigningIn() async -> (@Sendable () -> Void)? {
        guard let fetch = await prefetchKeys() else { return nil }
        return { fetch.cancel() }
    }

    /// The parts of a sign-in before the browser: metadata, fresh `state`/`nonce`/PKCE, and
    /// the authorization URL. Use it with your own session or browser; finish with
    /// ``completeAuthorization(_:received:)``.
    public func prepareAuthorization() async throws(OAuthError) -> PreparedAuthorization {
        let metadata = try await metadata()
        guard let authorizationEndpoint = metadata.authorizationEndpoint else {
            throw OAuthError(code: .endpointUnavailable, message: "the provider has no authorization endpoint")
        }
        if configuration.responseType == .code, metadata.tokenEndpoint == nil {
            throw OAuthError(code: .endpointUnavailable, message: "the provider has no token endpoint")
        }
        let callback = try Callback.configured(configuration.redirectURI)
        if configuration.responseType == .token, callback.isLoopback {
            throw OAuthError(
                code: .invalidConfiguration,
                message:
                    "the implicit flow returns the token in the URL fragment, which never reaches a loopback listener; use a custom scheme"
            )
        }
        let request = AuthorizationRequest(configuration: configuration)
        let dpop = try await dpopProofing(for: nil)
        var additional = configuration.authorizationParameters
        // RFC 9449 §10: the code is bound to the key too.
        if let dpop, configuration.responseType == .code { additional["dpop_jkt"] = dpop.key.thumbprint }
        return PreparedAuthorization(
            request: request, callback: callback, authorizationEndpoint: authorizationEndpoint,
            clientID: configuration.clientID, additionalParameters: additional,
            push: try pushedAuthorization(metadata), dpopKey: dpop?.key,
            validator: AuthorizationResponseValidator(
                expectedState: request.state, expectedIssuer: metadata.issuer,
                issuerRequired: metadata.authorizationResponseIssParameterSupported == true,
                responseType: configuration.responseType, allowedTenants: configuration.allowedTenants))
    }

    /// Checks the authorization response and, for the code flow, exchanges the code.
    ///
    /// The response is read from the callback's parameters as the session read them
    /// (`ReceivedCallback.parameters`); the URL is not parsed again.
    ///
    /// - Parameters:
    ///   - authorization: What ``prepareAuthorization()`` returned for this sign-in.
    ///   - received: The redirect the browser was sent to and the `redirect_uri` the
    ///     authorization URL carried, as `WebAuthSession.authenticate()` returns them.
    public func completeAuthorization(
        _ authorization: PreparedAuthorization, received: ReceivedCallback
    ) async throws(OAuthError) -> TokenSet {
        let parameters = received.parameters
        let answersRequest = authorization.validator.answersRequest(parameters)
        // A state is good for one response: a replayed or second redirect is refused.
        if answersRequest, !authorization.takeAnswer() {
            logger.info("authorization response rejected", metadata: ["reason": "stateAlreadyUsed"])
            throw OAuthError(
                code: .stateMismatch, message: "this sign-in's state was already used by an earlier response")
        }
        let grant: AuthorizationGrant
        do {
            grant = try authorization.validator.validate(parameters, answersRequest: answersRequest)
        } catch {
            logger.info("authorization response rejected", metadata: ["reason": "\(error.code)"])
            throw error
        }
        switch grant {
        case .implicit(let parameters):
            let response = try TokenResponse(implicit: parameters)
            return try response.tokenSet(requestedScopes: configuration.scopes, claims: nil, now: clock.now())
        case .code(let code):
            guard let pkce = authorization.request.pkce else {
                throw OAuthError(code: .invalidCallback, message: "a code arrived for a request that asked for none")
            }
            return try await exchange(
                code: code, verifier: pkce.verifier, redirectURI: received.redirectURI,
                nonce: authorization.request.nonce, dpopKey: authorization.dpopKey)
        }
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3 with the PKCE verifier) and validates
    /// the ID token when the scopes ask for OpenID Connect.
    ///
    /// - Parameters:
    ///   - code: The authorization code from the callback.
    ///   - verifier: The PKCE verifier whose challenge the authorization request carried.
    ///   - redirectURI: The redirect URI the authorization request was sent with.
    ///   - nonce: The `nonce` the authorization request carried, checked in the ID token.
    ///   - dpopKey: The key the authorization request named in `dpop_jkt`; `nil` for this
    ///     client's ``dpopKey``. Used only when ``ClientConfiguration/dpop`` asks for DPoP.
    public func exchange(
        code: String, verifier: String, redirectURI: URL, nonce: String?, dpopKey: DPoPKey? = nil
    ) async throws(OAuthError) -> TokenSet {
        let tokenEndpoint = try await requiredEndpoint(\.tokenEndpoint, name: "token")
        var dpop = try await dpopProofing(for: nil)
        if let dpopKey { dpop = dpop.map { DPoPProofing(key: dpopKey, nonces: $0.nonces, clock: $0.clock) } }
        let response: TokenResponse = try await endpoints.postForm(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI.absoluteString),
                ("code_verifier", verifier),
            ], to: tokenEndpoint, endpoint: .token, authentication: try await clientAuthentication(), dpop: dpop)
        return try await tokenSet(
            from: response, nonce: nonce, original: nil, previous: nil, dpop: dpop,
            requireIDToken: configuration.isOpenIDConnect)
    }

    // MARK: - Tokens after sign-in

    /// Refreshes the tokens (RFC 6749 §6). A rotated refresh token replaces the old one; when
    /// the server sends none, the old one is kept. A new ID token must name the same issuer and
    /// subject (OpenID Connect Core §12.2). For a ``ClientGrant/clientCredentials``
    /// configuration, which has no refresh token, it asks again for the same scopes
    /// (``clientCredentials(scopes:)``).
    ///
    /// - Throws: ``OAuthError/Code/noRefreshToken``; ``OAuthError/Code/server`` with
    ///   ``OAuthServerError/Code/invalidGrant`` when the refresh token is no longer valid.
    public func refresh(_ tokens: TokenSet) async throws(OAuthError) -> TokenSet {
        if configuration.grant == .clientCredentials {
            return try await clientCredentials(scopes: tokens.scopes.isEmpty ? nil : tokens.scopes)
        }
        guard let refreshToken = tokens.refreshToken else {
            throw OAuthError(code: .noRefreshToken, message: "there is no refresh token; sign in again")
        }
        let tokenEndpoint = try await requiredEndpoint(\.tokenEndpoint, name: "token")
        let dpop = try await dpopProofing(for: tokens)
        let response: TokenResponse = try await endpoints.postForm(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], to: tokenEndpoint, endpoint: .token,
            authentication: try await clientAuthentication(), dpop: dpop)
        logger.debug("tokens refreshed", metadata: ["rotated": "\(response.refreshToken != nil)"])
        return try await tokenSet(
            from: response, nonce: nil, original: tokens.idTokenClaims, previous: tokens, dpop: dpop)
    }

    /// Revokes the tokens (RFC 7009): the refresh token first (which ends the grant at most
    /// providers), then the access token — the access token too when revoking the refresh token
    /// failed.
    ///
    /// - Throws: The first failure: ``OAuthError/Code/endpointUnavailable`` when the provider
    ///   has no revocation endpoint; server and transport errors.
    public func revoke(_ tokens: TokenSet) async throws(OAuthError) {
        var firstFailure: OAuthError?
        if let refreshToken = tokens.refreshToken {
            do {
                try await revoke(token: refreshToken, hint: .refreshToken, dpopKey: tokens.dpopKey)
            } catch {
                firstFailure = error
            }
        }
        do {
            try await revoke(token: tokens.accessToken, hint: .accessToken, dpopKey: tokens.dpopKey)
        } catch {
            firstFailure = firstFailure ?? error
        }
        if let firstFailure { throw firstFailure }
    }

    /// Revokes one token (RFC 7009 §2.1), with a DPoP proof signed with `dpopKey` when one is
    /// given.
    public func revoke(token: String, hint: TokenTypeHint?, dpopKey: DPoPKey? = nil) async throws(OAuthError) {
        let revocationEndpoint = try await requiredEndpoint(\.revocationEndpoint, name: "revocation")
        var parameters = [("token", token)]
        if let hint { parameters.append(("token_type_hint", hint.rawValue)) }
        try await endpoints.postFormExpectingSuccess(
            parameters, to: revocationEndpoint, endpoint: .revocation, authentication: try await clientAuthentication(),
            dpop: dpopKey.map { DPoPProofing(key: $0, nonces: dpopNonces, clock: clock) })
    }

    /// The person's claims from the UserInfo endpoint (OpenID Connect Core §5.3). When the
    /// tokens carry ID token claims, the response's `sub` must be the same (§5.3.2). DPoP-bound
    /// tokens go as `Authorization: DPoP` with a proof (RFC 9449 §7).
    ///
    /// - Throws: ``OAuthError/Code/dpopKeyMissing`` for DPoP-bound tokens without their key.
    public func userInfo(for tokens: TokenSet) async throws(OAuthError) -> UserInfo {
        let userInfoEndpoint = try await requiredEndpoint(\.userInfoEndpoint, name: "userinfo")
        let info: UserInfo = try await endpoints.getJSON(
            userInfoEndpoint, endpoint: .userInfo, accessToken: tokens.accessToken,
            dpop: try boundProofing(for: tokens))
        if let subject = tokens.idTokenClaims?.subject, info.subject != subject {
            throw OAuthError(
                code: .userInfoSubjectMismatch,
                message: "the UserInfo response is about another subject than the ID token")
        }
        return info
    }

    /// Validates an ID token from this provider for this client: signature (JWKS), algorithm,
    /// `iss`, `aud`/`azp`, `exp`/`iat` within the leeway, `sub`, and `nonce` when given.
    public func validateIDToken(_ idToken: String, nonce: String?) async throws(OAuthError) -> IDTokenClaims {
        try await validateIDToken(idToken, nonce: nonce, original: nil)
    }

    // MARK: - Internals

    func requiredEndpoint(_ keyPath: KeyPath<ProviderMetadata, URL?>, name: String) async throws(OAuthError) -> URL {
        guard let url = try await metadata()[keyPath: keyPath] else {
            throw OAuthError(code: .endpointUnavailable, message: "the provider has no \(name) endpoint")
        }
        return url
    }

    /// A token set from a token response: the ID token validated when present (and required
    /// when `requireIDToken`, as for an OpenID Connect code exchange), the refresh token and
    /// claims carried over from `previous` when the response has none.
    func tokenSet(
        from response: TokenResponse, nonce: String?, original: IDTokenClaims?, previous: TokenSet?,
        dpop: DPoPProofing? = nil, requireIDToken: Bool = false, requestedScopes: [String]? = nil
    ) async throws(OAuthError) -> TokenSet {
        try checkTokenType(response, dpop: dpop)
        var claims: IDTokenClaims?
        if let idToken = response.idToken {
            claims = try await validateIDToken(idToken, nonce: nonce, original: original)
        } else if requireIDToken {
            throw OAuthError(
                code: .invalidResponse, message: "the token response has no id_token for an openid request")
        }
        var tokens = try response.tokenSet(
            requestedScopes: requestedScopes ?? previous?.scopes ?? configuration.scopes, claims: claims,
            now: clock.now())
        if let previous {
            tokens.refreshToken = tokens.refreshToken ?? previous.refreshToken
            if tokens.idToken == nil {
                tokens.idToken = previous.idToken
                tokens.idTokenClaims = previous.idTokenClaims
            }
        }
        if let dpop, tokens.isDPoPBound { tokens.dpopKey = dpop.key }
        return tokens
    }

    /// Starts fetching the provider's key set for an OpenID Connect sign-in, when it is not
    /// cached; the fetch, to cancel when the sign-in ends, or `nil`. A failure is not reported
    /// here: the ID token check fetches again.
    func prefetchKeys() async -> Task<[JWKSCache.SigningKey], any Error>? {
        guard configuration.isOpenIDConnect, let metadata = await state.metadata else { return nil }
        return await state.keys(at: metadata.jwksURI, client: endpoints)?.prefetch()
    }

    func validateIDToken(_ idToken: String, nonce: String?, original: IDTokenClaims?) async throws(OAuthError)
        -> IDTokenClaims
    {
        let metadata = try await metadata()
        guard let issuer = metadata.issuer ?? configuration.issuer?.absoluteString else {
            throw OAuthError(
                code: .invalidConfiguration, message: "an ID token can only be validated with a known issuer")
        }
        let keys = await state.keys(at: metadata.jwksURI, client: endpoints)
        let validator = IDTokenValidator(
            algorithms: configuration.idTokenSigningAlgorithms, clientSecret: configuration.clientSecret, keys: keys,
            claims: IDTokenClaimsCheck(
                issuer: .accepted(issuer: issuer, allowedTenants: configuration.allowedTenants),
                clientID: configuration.clientID, nonce: nonce, leeway: leeway, original: original))
        do {
            return try await validator.validate(idToken, now: clock.now())
        } catch {
            logger.info(
                "ID token rejected", metadata: ["problem": "\(error.idTokenProblem?.description ?? "\(error.code)")"])
            throw error
        }
    }
}

/// What a client caches: the provider's metadata and its key set.
private actor ClientState {
    private(set) var metadata: ProviderMetadata?
    private var jwks: JWKSCache?

    func setMetadata(_ metadata: ProviderMetadata) {
        if self.metadata == nil { self.metadata = metadata }
    }

    func keys(at url: URL?, client: EndpointClient) -> JWKSCache? {
        guard let url else { return nil }
        if let jwks { return jwks }
        let cache = JWKSCache(url: url, client: client)
        jwks = cache
        return cache
    }
}

/// Which kind of token is being revoked (RFC 7009 §2.1).
public struct TokenTypeHint: RawRepresentable, Sendable, Hashable {
    /// The `token_type_hint` value.
    public let rawValue: String

    /// Creates a hint from its value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `access_token`.
    public static let accessToken = TokenTypeHint(rawValue: "access_token")
    /// `refresh_token`.
    public static let refreshToken = TokenTypeHint(rawValue: "refresh_token")
}
