// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthPlatform

/// The provider's request handling: routes each request to its endpoint, applies the fault
/// switches, and keeps the request log. The endpoints live in extensions, one file each.
final class ProviderEngine: Sendable {
    let configuration: EmbeddedProvider.Configuration
    let state: Locked<ProviderState>
    /// The server, once started: its own log is emptied as requests arrive (the provider keeps
    /// a bounded one without bodies instead).
    private let server = Locked<LoopbackHTTPServer?>(nil)
    /// `http://127.0.0.1:{port}`, once the server listens. Apart from ``state`` so that it can
    /// be read while that is locked.
    private let issuerValue = Locked("")
    /// The forgery switches that are on. Apart from ``state`` so that they can be read while
    /// that is locked.
    let forgeries = Locked(Forgeries())
    /// The key behind ``impostorKey()``, once made.
    private let impostor = Locked<SigningKey?>(nil)
    /// The P-256 key that ES256 forgeries sign with (and the JWKS serves while one is on).
    let ecKey = ECSigningKey()
    /// The clients registered through `/register` (RFC 7591). Apart from ``state`` so that
    /// the client list can be read while that is locked.
    let registrations = Locked(RegisteredClients())

    init(configuration: EmbeddedProvider.Configuration, key: SigningKey) {
        self.configuration = configuration
        state = Locked(ProviderState(configuration: configuration, key: key))
    }

    /// Connects the engine to the server it answers for.
    func attach(_ server: LoopbackHTTPServer) {
        issuerValue.withLock { $0 = server.baseURL.absoluteString }
        self.server.withLock { $0 = server }
    }

    /// The issuer identifier.
    var issuer: String { issuerValue.withLock { $0 } }

    /// The time the provider goes by: what expires, what a token's `iat` says, how long a
    /// delayed answer waits.
    var clock: EmbeddedProvider.Clock { configuration.clock }

    /// An endpoint's response and what the log keeps about it.
    struct Answer: Sendable {
        var response: ServerResponse
        /// The `grant_type`, for token requests with a known one.
        var grantType: String?
        /// The RFC 6749 error code answered, if any.
        var error: String?

        init(_ response: ServerResponse, grantType: String? = nil, error: String? = nil) {
            self.response = response
            self.grantType = grantType
            self.error = error
        }
    }

    /// Answers one request.
    func handle(_ request: ServerRequest) async -> ServerResponse {
        let receivedAt = clock.now()
        if let server = server.withLock({ $0 }) { await server.clearRequests() }
        let endpoint = endpoint(at: request.path)
        let fault = state.withLock { $0.takeFault(for: endpoint) }
        if let delay = fault?.delay, delay > .zero {
            do {
                try await clock.sleep(delay)
            } catch {
                return ServerResponse.text("the provider is shutting down\n", status: 503)
            }
        }
        let answer: Answer
        switch (endpoint, fault?.answer) {
        case (nil, _):
            answer = Answer(.text("not found\n", status: 404))
        case (.some, .closedMidResponse?):
            // The head promises 512 bytes of body; 16 follow, then the connection closes.
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 512\r\n"
                + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
            answer = Answer(.raw(Array((head + #"{"access_token":"#).utf8), status: 200))
        case (.some, .garbage?):
            answer = Answer(
                ServerResponse(
                    status: 200, headerFields: [.contentType: "application/json"],
                    body: Array("<html>this is not JSON</html>".utf8)))
        case (.some, .fixed(let status, let contentType, let body)?):
            answer = Answer(
                ServerResponse(
                    status: status, headerFields: [.contentType: contentType],
                    body: Array(body.utf8)))
        case (.some, .closedWithoutAnswer?):
            answer = Answer(.raw([], status: 0))
        case (.some(let endpoint), .error(let status, let code, let description)?):
            let error = ProtocolError(code: code, description: description ?? "", status: status)
            answer = faultAnswer(endpoint, error, request)
        case (.some(let endpoint), _):
            answer = route(endpoint, request)
        }
        let (clientAuthentication, tokenTypeHint) = Self.loggedClientDetails(endpoint, request)
        state.withLock {
            $0.record(
                EmbeddedProvider.LoggedRequest(
                    method: request.method, path: endpoint?.path ?? "(other)", endpoint: endpoint,
                    status: answer.response.status, grantType: answer.grantType, error: answer.error,
                    receivedAt: receivedAt, clientAuthentication: clientAuthentication, tokenTypeHint: tokenTypeHint))
        }
        return answer.response
    }

    /// What the log keeps of a form a client posted: the client authentication method's name
    /// and, for a revocation, a known `token_type_hint`; nothing else the client sent.
    private static func loggedClientDetails(
        _ endpoint: EmbeddedProvider.Endpoint?, _ request: ServerRequest
    ) -> (clientAuthentication: String?, tokenTypeHint: String?) {
        switch endpoint {
        case .token?, .revocation?, .deviceAuthorization?, .pushedAuthorization?: break
        default: return (nil, nil)
        }
        guard request.method == "POST", let form = ProviderHTTP.formParameters(request) else { return (nil, nil) }
        let method = ClientAuthentication.presentedMethod(authorization: request.header("Authorization"), form: form)
        guard endpoint == .revocation else { return (method?.rawValue, nil) }
        let hints = form.filter { $0.name == "token_type_hint" }.map(\.value)
        let hint = hints.count == 1 && ["access_token", "refresh_token"].contains(hints[0]) ? hints[0] : nil
        return (method?.rawValue, hint)
    }

    private func route(_ endpoint: EmbeddedProvider.Endpoint, _ request: ServerRequest) -> Answer {
        switch endpoint {
        case .openIDConfiguration, .authorizationServerMetadata:
            guard request.method == "GET" else { return Answer(ProviderHTTP.methodNotAllowed(["GET"])) }
            var answer = ProviderHTTP.json(metadataDocument())
            if let overrides = forgeries.withLock({ $0.metadata }) {
                answer.body = Array(overrides.applied(to: Data(answer.body)))
            }
            return Answer(answer)
        case .jwks:
            guard request.method == "GET" else { return Answer(ProviderHTTP.methodNotAllowed(["GET"])) }
            var document = state.withLock { $0.keys.document }
            switch forgeries.withLock({ $0.idTokenSignature }) {
            case .signedWithES256?, .signedWithES256ByAnotherKey?: document.keys.append(ecKey.publicJWK)
            default: break
            }
            return Answer(ProviderHTTP.json(document))
        case .authorization:
            return authorize(request)
        case .login:
            return login(request)
        case .consent:
            return consent(request)
        case .token:
            return token(request)
        case .userInfo:
            return userInfo(request)
        case .revocation:
            return revoke(request)
        case .deviceAuthorization:
            return deviceAuthorization(request)
        case .deviceVerification:
            return deviceVerification(request)
        case .pushedAuthorization:
            return pushAuthorization(request)
        case .endSession:
            return endSession(request)
        case .registration:
            return registration(request)
        }
    }

    /// The answer to a request while an error fault is set for its endpoint.
    private func faultAnswer(
        _ endpoint: EmbeddedProvider.Endpoint, _ error: ProtocolError, _ request: ServerRequest
    ) -> Answer {
        if endpoint == .authorization {
            switch AuthorizationRequestCheck.check(
                ProviderHTTP.queryParameters(request), clients: clients)
            {
            case .accept(let authorization):
                return redirectError(to: authorization.redirectURI, state: authorization.state, error)
            case .redirectError(let redirectURI, let state, _):
                // The client and redirect URI check out: the fault's error goes back instead.
                return redirectError(to: redirectURI, state: state, error)
            case .refuse: break
            }
        }
        if endpoint.isPage {
            let problem = PageProblem(title: "Error", message: error.description, status: error.status)
            return Answer(
                ProviderHTTP.page(
                    ProviderPages.problem(providerName: configuration.displayName, problem), status: error.status),
                error: error.code)
        }
        return Answer(ProviderHTTP.error(error), error: error.code)
    }

    // MARK: - Shared answers

    /// An error page.
    func problemPage(_ problem: PageProblem, cookies: HTTPFields = [:]) -> Answer {
        Answer(
            ProviderHTTP.page(
                ProviderPages.problem(providerName: configuration.displayName, problem), status: problem.status,
                cookies: cookies))
    }

    /// A redirect to the client with an error, `state` and `iss` (RFC 6749 §4.1.2.1, RFC 9207).
    func redirectError(
        to redirectURI: String, state: String?, _ error: ProtocolError, status: Int = 302,
        cookies: HTTPFields = [:]
    ) -> Answer {
        let location = responseLocation(
            redirectURI,
            leading: [
                ("error", error.code), ("error_description", error.description.isEmpty ? nil : error.description),
            ], state: state)
        return Answer(ProviderHTTP.redirect(to: location, status: status, cookies: cookies), error: error.code)
    }

    /// The redirect of an authorization response: `leading` (the code, or the error), then
    /// `state` and `iss` (RFC 9207) as the client sent and the provider is, unless a test
    /// forges them.
    func responseLocation(_ redirectURI: String, leading: [(String, String?)], state: String?) -> String {
        let overrides = forgeries.withLock { $0.authorizationResponse }
        return (overrides ?? .init()).location(redirectURI, leading: leading, state: state, issuer: tokenIssuer)
    }

    /// The key that signs ``EmbeddedProvider/IDTokenSignatureForgery/signedByAnotherKey``
    /// tokens: made the first time one is needed, never served.
    func impostorKey() throws -> SigningKey {
        if let key = impostor.withLock({ $0 }) { return key }
        let key = try SigningKey.generate()
        return impostor.withLock { stored in
            if let stored { return stored }
            stored = key
            return key
        }
    }

    /// A JSON error answer.
    func errorAnswer(_ error: ProtocolError, grantType: String? = nil, challenge: String? = nil) -> Answer {
        Answer(ProviderHTTP.error(error, challenge: challenge), grantType: grantType, error: error.code)
    }

    // MARK: - Metadata

    /// The discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2).
    func metadataDocument() -> MetadataDocument {
        let issuer = self.issuer
        var scopes = Set(["openid"])
        for client in clients { scopes.formUnion(client.allowedScopes) }
        let authMethods = ["none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"]
        var document = MetadataDocument(
            issuer: metadataIssuer,
            authorizationEndpoint: issuer + EmbeddedProvider.Endpoint.authorization.path,
            tokenEndpoint: issuer + EmbeddedProvider.Endpoint.token.path,
            userinfoEndpoint: issuer + EmbeddedProvider.Endpoint.userInfo.path,
            jwksURI: issuer + EmbeddedProvider.Endpoint.jwks.path,
            revocationEndpoint: issuer + EmbeddedProvider.Endpoint.revocation.path,
            deviceAuthorizationEndpoint: issuer + EmbeddedProvider.Endpoint.deviceAuthorization.path,
            pushedAuthorizationRequestEndpoint: issuer + EmbeddedProvider.Endpoint.pushedAuthorization.path,
            endSessionEndpoint: issuer + EmbeddedProvider.Endpoint.endSession.path,
            requirePushedAuthorizationRequests: configuration.requiresPushedAuthorizationRequests
                && configuration.advertisesPushRequirement,
            dpopSigningAlgValuesSupported: ["ES256"],
            scopesSupported: scopes.sorted(),
            responseTypesSupported: ["code"],
            responseModesSupported: ["query"],
            grantTypesSupported: [
                "authorization_code", "refresh_token", ProviderEngine.deviceCodeGrantType,
                ProviderEngine.clientCredentialsGrantType, ProviderEngine.tokenExchangeGrantType,
            ],
            subjectTypesSupported: ["public"],
            idTokenSigningAlgValuesSupported: ["RS256"],
            tokenEndpointAuthMethodsSupported: authMethods,
            revocationEndpointAuthMethodsSupported: authMethods,
            tokenEndpointAuthSigningAlgValuesSupported: ["ES256", "RS256", "PS256", "HS256"],
            codeChallengeMethodsSupported: ["S256"],
            authorizationResponseIssParameterSupported: true,
            promptValuesSupported: ["none", "login", "consent"],
            claimsSupported: [
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "name", "preferred_username", "email",
                "email_verified",
            ] + (configuration.multiTenant == nil ? [] : ["tid"]))
        if configuration.registration != nil {
            document.registrationEndpoint = issuer + EmbeddedProvider.Endpoint.registration.path
        }
        return document
    }

    /// The device flow's grant type (RFC 8628 §3.4).
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"
}

/// The provider metadata document.
struct MetadataDocument: Encodable {
    var issuer: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var userinfoEndpoint: String
    var jwksURI: String
    var revocationEndpoint: String
    var deviceAuthorizationEndpoint: String
    var pushedAuthorizationRequestEndpoint: String
    var endSessionEndpoint: String
    var requirePushedAuthorizationRequests: Bool
    var dpopSigningAlgValuesSupported: [String]
    var scopesSupported: [String]
    var responseTypesSupported: [String]
    var responseModesSupported: [String]
    var grantTypesSupported: [String]
    var subjectTypesSupported: [String]
    var idTokenSigningAlgValuesSupported: [String]
    var tokenEndpointAuthMethodsSupported: [String]
    var revocationEndpointAuthMethodsSupported: [String]
    var tokenEndpointAuthSigningAlgValuesSupported: [String]
    var codeChallengeMethodsSupported: [String]
    var authorizationResponseIssParameterSupported: Bool
    var promptValuesSupported: [String]
    var claimsSupported: [String]
    var registrationEndpoint: String? = nil

    private enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case promptValuesSupported = "prompt_values_supported"
        case claimsSupported = "claims_supported"
        case registrationEndpoint = "registration_endpoint"
    }
}
