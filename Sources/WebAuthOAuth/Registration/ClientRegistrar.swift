// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
public import Logging
public import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Registers a client with a provider at its `registration_endpoint` (OAuth 2.0 Dynamic Client
/// Registration, RFC 7591), and reads or deletes the registration later (RFC 7592), as oidc-agent
/// does for a provider it has no client at.
///
/// ```swift
/// let registrar = ClientRegistrar(issuer: URL(string: "https://accounts.example.com")!)
/// let registration = try await registrar.register(
///     ClientRegistrationRequest(redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "my-cli"))
/// let client = try OAuthClient(configuration: registration.configuration(from: ClientConfiguration(
///     issuer: registrar.issuer, clientID: "", scopes: ["openid"])))
/// let tokens = try await client.signIn()  // WebAuthSignIn
/// // … later, when the client is no longer wanted:
/// try await registrar.delete(registration)
/// ```
///
/// The answer is checked before it is used: it must name a client ID of printable characters;
/// a registration access token and a registration client URI come together or not at all; the
/// URI must be `https` (or `http` to a loopback address) and have the origin of the
/// registration endpoint — the registration access token is sent there, and only the server
/// that issued it may receive it. A client secret that has already expired is refused. Only
/// what the client needs is read strictly (the client ID, the secret, the registration access
/// token and URI, the redirect URIs and the authentication method); a malformed informational
/// field, such as `client_id_issued_at` sent as a string, is left out with a note in
/// ``ClientRegistration/notes``.
///
/// A provider may register another `token_endpoint_auth_method` than the one asked for: the
/// registration is then used that way when the answer carries what the method needs (a secret
/// for the secret methods), and refused when it does not. When an answer cannot be used, the
/// client it created is deleted (RFC 7592) if the answer allows that, and the error names the
/// client otherwise, so that nobody is left with a client they cannot find.
///
/// Nothing it logs or throws contains the initial access token, the client secret or the
/// registration access token.
public struct ClientRegistrar: Sendable {
    /// The provider's issuer identifier, whose metadata names the registration endpoint.
    public let issuer: URL

    private let endpoints: EndpointClient
    private let clock: OAuthClock

    /// Creates a registrar for the provider at `issuer`.
    ///
    /// - Parameters:
    ///   - issuer: The provider's issuer identifier (discovered as ``OAuthClient`` does).
    ///   - transport: How HTTP requests are sent. Default ``CurlTransport``.
    ///   - clock: The time source, for a client secret's expiry. Default ``OAuthClock/system``.
    ///   - requestTimeout: How long each request may take. Default 30 s.
    ///   - logger: Where to log (endpoints and statuses, never secrets). Default: nowhere.
    public init(
        issuer: URL, transport: any HTTPTransport = CurlTransport(), clock: OAuthClock = .system,
        requestTimeout: Duration = HTTPTransportRequest.defaultTimeout, logger: Logger = .webAuthSilent
    ) {
        self.issuer = issuer
        self.clock = clock
        endpoints = EndpointClient(transport: transport, logger: logger, timeout: requestTimeout)
    }

    /// The provider's registration endpoint, from its metadata.
    ///
    /// - Throws: ``OAuthError/Code/endpointUnavailable`` when the provider offers no
    ///   registration; ``OAuthError/Code/invalidMetadata`` when discovery fails.
    public func registrationEndpoint() async throws(OAuthError) -> URL {
        let metadata = try await Discovery.metadata(for: issuer, client: endpoints)
        guard let endpoint = metadata.registrationEndpoint else {
            throw OAuthError(
                code: .endpointUnavailable,
                message:
                    "the provider offers no dynamic client registration (its metadata has no registration_endpoint)"
            )
        }
        return endpoint
    }

    /// Registers a client (RFC 7591 §3.1).
    ///
    /// - Parameters:
    ///   - request: The client metadata to register: by default a native public client.
    ///   - initialAccessToken: The initial access token the provider's administrator handed
    ///     out, for a provider that does not register anyone who asks; sent as a `Bearer`
    ///     token.
    /// - Returns: The checked registration.
    /// - Throws: ``OAuthError/Code/endpointUnavailable`` when the provider offers no
    ///   registration; ``OAuthError/Code/initialAccessTokenRequired`` when it answers `401` or
    ///   `403` to a request without an initial access token, and
    ///   ``OAuthError/Code/initialAccessTokenRefused`` to one with;
    ///   ``OAuthError/Code/server`` with ``OAuthServerError/Code/invalidRedirectURI`` or
    ///   ``OAuthServerError/Code/invalidClientMetadata`` when it refuses the metadata;
    ///   ``OAuthError/Code/invalidResponse`` when the answer fails the checks above (after
    ///   deleting the client it made, where the answer allows that; the message says which).
    public func register(
        _ request: ClientRegistrationRequest, initialAccessToken: String? = nil
    ) async throws(OAuthError) -> ClientRegistration {
        if let initialAccessToken, !Self.isHeaderSafe(initialAccessToken) {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "the initial access token is empty or holds characters a Bearer token cannot")
        }
        let endpoint = try await registrationEndpoint()
        var fields: HTTPFields = [.contentType: "application/json", .accept: "application/json"]
        if let initialAccessToken { fields[.authorization] = "Bearer \(initialAccessToken)" }
        let carrying = SecretCarryingRequest(
            request: HTTPTransportRequest(
                method: "POST", url: endpoint, headerFields: fields, body: request.body(), timeout: endpoints.timeout),
            secrets: initialAccessToken.map { [$0] } ?? [])
        let response = try await endpoints.send(carrying, endpoint: .registration)
        if response.status == 401 || response.status == 403 {
            // RFC 7591 §3 answers a missing or bad initial access token as RFC 6750 does.
            let serverError = EndpointClient.serverError(
                in: response.body, endpoint: .registration, withholding: carrying.secrets)
            if initialAccessToken == nil {
                throw OAuthError(
                    code: .initialAccessTokenRequired,
                    message:
                        "the provider registers clients only with an initial access token (HTTP \(response.status))",
                    serverError: serverError)
            }
            throw OAuthError(
                code: .initialAccessTokenRefused,
                message: "the provider refused the initial access token (HTTP \(response.status))",
                serverError: serverError)
        }
        guard (200..<300).contains(response.status) else {
            throw endpoints.failure(response, endpoint: .registration, withholding: carrying.secrets)
        }
        let answer = Self.answer(in: response.body)
        var registration: ClientRegistration
        do {
            registration = try checked(
                decoded(response, withholding: carrying.secrets), registrationEndpoint: endpoint)
            if let problem = Self.methodProblem(asked: request.tokenEndpointAuthMethod, registered: registration) {
                throw OAuthError(code: .invalidResponse, message: problem)
            }
        } catch {
            // The provider has made a client this program cannot use: take it back, or name it.
            throw await abandoning(answer, because: error, registrationEndpoint: endpoint)
        }
        if let registered = registration.tokenEndpointAuthMethod, registered != request.tokenEndpointAuthMethod {
            registration.notes.append(
                "the provider registered the client for \(registered.rawValue.safeForDisplay), not "
                    + "\(request.tokenEndpointAuthMethod) as asked; webauth authenticates that way")
        }
        for note in registration.notes {
            endpoints.logger.notice(
                "registration answer: \(note)", metadata: ["endpoint": "\(endpoint.redactedForLogs)"])
        }
        endpoints.logger.debug(
            "registered a client",
            metadata: [
                "endpoint": "\(endpoint.redactedForLogs)", "manageable": "\(registration.isManageable)",
                "confidential": "\(registration.clientSecret != nil)",
            ])
        return registration
    }

    /// Why a registration made for `asked` cannot authenticate the way the provider
    /// `registered` it, or `nil` when it can: a provider that registers another method than
    /// asked for is followed when its answer carries what that method needs (a secret for the
    /// secret methods); `nil` in the answer means the method asked for, or, with a secret and
    /// `none` asked, `client_secret_basic` (RFC 6749 §2.3.1's default).
    static func methodProblem(asked: ClientAuthenticationMethod, registered: ClientRegistration) -> String? {
        let secretMethods: [ClientAuthenticationMethod] = [.clientSecretBasic, .clientSecretPost, .clientSecretJWT]
        guard let method = registered.tokenEndpointAuthMethod else {
            guard secretMethods.contains(asked), registered.clientSecret == nil else { return nil }
            return "the provider registered the client for \(asked) but sent no client_secret"
        }
        let shown = method.rawValue.safeForDisplay
        let mismatch = method == asked ? "" : ", not \(asked) as asked,"
        guard ClientAuthenticationMethod.supported.contains(method) else {
            return "the provider registered the client for \(shown)\(mismatch) which webauth cannot authenticate with"
        }
        if secretMethods.contains(method), registered.clientSecret == nil {
            return "the provider registered the client for \(shown)\(mismatch) but sent no client_secret"
        }
        if method == .privateKeyJWT, asked != .privateKeyJWT {
            return "the provider registered the client for private_key_jwt\(mismatch) but holds no key of this client"
        }
        return nil
    }

    /// The client ID and management credentials of an answer that cannot be used, as far as
    /// they can be read.
    private static func answer(in body: Data) -> RegistrationResponse? {
        try? JSONDecoder().decode(RegistrationResponse.self, from: body)
    }

    /// The error for a registration answer that cannot be used, after deleting the client it
    /// created (RFC 7592 §2.3) where the answer allows that: a printable client ID, and a
    /// registration access token with a `registration_client_uri` on the registration
    /// endpoint's origin — the token goes nowhere else. Otherwise the error names the client, so
    /// that the person can have it deleted.
    private func abandoning(
        _ answer: RegistrationResponse?, because error: any Error, registrationEndpoint: URL
    ) async -> OAuthError {
        let reason = (error as? OAuthError)?.message ?? "the answer cannot be used"
        guard let clientID = answer?.clientID, !clientID.isEmpty,
            clientID.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) })
        else {
            return OAuthError(
                code: .invalidResponse,
                message: "\(reason); the provider may have made a client whose client_id webauth cannot show")
        }
        let shown = clientID.safeForDisplay
        var deletable = ClientRegistration(clientID: clientID, registrationEndpoint: registrationEndpoint)
        if let token = answer?.registrationAccessToken, Self.isHeaderSafe(token),
            let uri = answer?.registrationClientURI.flatMap(URL.init(string:)),
            (try? EndpointPolicy.check(uri, role: "registration_client_uri")) != nil,
            uri.hasSameOrigin(as: registrationEndpoint)
        {
            deletable.registrationAccessToken = token
            deletable.registrationClientURI = uri
        }
        guard deletable.isManageable else {
            return OAuthError(
                code: .invalidResponse,
                message: "\(reason); the provider made client \(shown) and gave no way to delete it: "
                    + "have the provider's administrator delete it")
        }
        do {
            try await delete(deletable)
            return OAuthError(code: .invalidResponse, message: "\(reason); client \(shown) was deleted at the provider")
        } catch {
            return OAuthError(
                code: .invalidResponse,
                message: "\(reason); the provider made client \(shown) and refused to delete it (\(error.code)): "
                    + "have the provider's administrator delete it")
        }
    }

    /// Reads the registration as the provider now has it (RFC 7592 §2.1), keeping the stored
    /// registration access token and URI when the answer leaves them out.
    ///
    /// - Throws: ``OAuthError/Code/endpointUnavailable`` when the registration is not
    ///   manageable; ``OAuthError/Code/registrationUnknown`` when the provider no longer knows
    ///   the client or the token (`401`, `403` or `404`).
    public func read(_ registration: ClientRegistration) async throws(OAuthError) -> ClientRegistration {
        let (uri, token) = try Self.management(of: registration)
        let carrying = Self.managementRequest("GET", uri: uri, token: token, timeout: endpoints.timeout)
        let response = try await endpoints.send(carrying, endpoint: .registration)
        try Self.checkManagementStatus(response, endpoints: endpoints, secrets: registration.secrets)
        var read = try decoded(response, withholding: registration.secrets + [token])
        read.registrationAccessToken = read.registrationAccessToken ?? registration.registrationAccessToken
        read.registrationClientURI = read.registrationClientURI ?? registration.registrationClientURI
        read.clientSecret = read.clientSecret ?? registration.clientSecret
        read.registrationEndpoint = registration.registrationEndpoint
        let checked = try checked(read, registrationEndpoint: uri)
        guard checked.clientID == registration.clientID else {
            throw OAuthError(
                code: .invalidResponse, message: "the registration read back names another client than the one stored")
        }
        return checked
    }

    /// Deletes the registration (RFC 7592 §2.3): the client ID, its secret and the
    /// registration access token stop working at the provider.
    ///
    /// - Throws: ``OAuthError/Code/endpointUnavailable`` when the registration is not
    ///   manageable or the provider does not delete registrations (`405`);
    ///   ``OAuthError/Code/registrationUnknown`` when the provider no longer knows the client or
    ///   the token (`401`, `403` or `404`): nothing is left to delete with it.
    public func delete(_ registration: ClientRegistration) async throws(OAuthError) {
        let (uri, token) = try Self.management(of: registration)
        let carrying = Self.managementRequest("DELETE", uri: uri, token: token, timeout: endpoints.timeout)
        let response = try await endpoints.send(carrying, endpoint: .registration)
        try Self.checkManagementStatus(response, endpoints: endpoints, secrets: registration.secrets)
        endpoints.logger.debug("deleted a client registration", metadata: ["endpoint": "\(uri.redactedForLogs)"])
    }

    // MARK: - Checks

    /// The registration in the answer, not yet checked.
    private func decoded(
        _ response: HTTPTransportResponse, withholding secrets: [String]
    ) throws(OAuthError) -> ClientRegistration {
        if let error = EndpointClient.serverError(in: response.body, endpoint: .registration, withholding: secrets) {
            throw OAuthError(code: .server, message: "the registration endpoint refused: \(error)", serverError: error)
        }
        let body: RegistrationResponse
        do {
            body = try JSONDecoder().decode(RegistrationResponse.self, from: response.body)
        } catch {
            throw OAuthError(code: .invalidResponse, message: "the registration endpoint's answer is not a JSON object")
        }
        if !body.problems.isEmpty {
            throw OAuthError(
                code: .invalidResponse,
                message: "the registration answer cannot be used: " + body.problems.joined(separator: "; "))
        }
        guard let clientID = body.clientID else {
            throw OAuthError(
                code: .invalidResponse, message: "the registration answer has no client_id (RFC 7591 §3.2.1)")
        }
        var registrationClientURI: URL?
        if let uri = body.registrationClientURI {
            guard let url = URL(string: uri) else {
                throw OAuthError(code: .invalidResponse, message: "the registration_client_uri is not a URL")
            }
            registrationClientURI = url
        }
        func date(_ seconds: Double?) -> Date? {
            guard let seconds, seconds.isFinite, seconds > 0, seconds < 253_402_300_800 else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        return ClientRegistration(
            clientID: clientID, clientSecret: body.clientSecret,
            clientSecretExpiresAt: date(body.clientSecretExpiresAt),
            clientIDIssuedAt: date(body.clientIDIssuedAt), registrationAccessToken: body.registrationAccessToken,
            registrationClientURI: registrationClientURI,
            tokenEndpointAuthMethod: body.tokenEndpointAuthMethod.map(ClientAuthenticationMethod.init(rawValue:)),
            redirectURIs: (body.redirectURIs ?? []).compactMap(URL.init(string:)), notes: body.notes)
    }

    /// `registration` if it passes the checks the type's documentation lists.
    func checked(_ registration: ClientRegistration, registrationEndpoint: URL) throws(OAuthError)
        -> ClientRegistration
    {
        func invalid(_ message: String) -> OAuthError { OAuthError(code: .invalidResponse, message: message) }
        guard !registration.clientID.isEmpty,
            registration.clientID.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) })
        else {
            throw invalid("the registration answer's client_id is empty or not printable ASCII (RFC 6749 §A.1)")
        }
        if let secret = registration.clientSecret, secret.isEmpty {
            throw invalid("the registration answer's client_secret is empty")
        }
        if let expiry = registration.clientSecretExpiresAt, expiry <= clock.now() {
            throw invalid("the registered client secret has already expired")
        }
        switch (registration.registrationAccessToken, registration.registrationClientURI) {
        case (nil, nil):
            break
        case (let token?, let uri?):
            guard Self.isHeaderSafe(token) else {
                throw invalid("the registration_access_token holds characters a Bearer token cannot")
            }
            do {
                try EndpointPolicy.check(uri, role: "registration_client_uri")
            } catch {
                throw invalid(error.message)
            }
            guard uri.hasSameOrigin(as: registrationEndpoint) else {
                throw invalid(
                    "the registration_client_uri \(uri.redactedForLogs) is not on the registration endpoint's origin")
            }
        default:
            throw invalid(
                "the registration answer has a registration_access_token or a registration_client_uri without the other (RFC 7592 §3)"
            )
        }
        var checked = registration
        checked.registrationEndpoint = registration.registrationEndpoint ?? registrationEndpoint
        return checked
    }

    /// Whether `token` can go in an `Authorization: Bearer` field: printable ASCII, no space
    /// (RFC 6750 §2.1's `b64token` is stricter; providers are not).
    static func isHeaderSafe(_ token: String) -> Bool {
        !token.isEmpty && token.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) }
    }

    // MARK: - Management

    private static func management(of registration: ClientRegistration) throws(OAuthError) -> (URL, String) {
        guard let uri = registration.registrationClientURI, let token = registration.registrationAccessToken else {
            throw OAuthError(
                code: .endpointUnavailable,
                message: "the provider gave this registration no registration_client_uri to manage it (RFC 7592)")
        }
        return (uri, token)
    }

    private static func managementRequest(
        _ method: String, uri: URL, token: String, timeout: Duration
    ) -> SecretCarryingRequest {
        SecretCarryingRequest(
            request: HTTPTransportRequest(
                method: method, url: uri,
                headerFields: [.authorization: "Bearer \(token)", .accept: "application/json"],
                timeout: timeout),
            secrets: [token])
    }

    private static func checkManagementStatus(
        _ response: HTTPTransportResponse, endpoints: EndpointClient, secrets: [String]
    ) throws(OAuthError) {
        switch response.status {
        case 200..<300:
            return
        case 401, 403, 404:
            throw OAuthError(
                code: .registrationUnknown,
                message:
                    "the provider no longer knows this registration or its registration access token (HTTP \(response.status))"
            )
        case 405:
            throw OAuthError(
                code: .endpointUnavailable,
                message: "the provider does not offer this operation on registrations (HTTP 405)")
        default:
            throw endpoints.failure(response, endpoint: .registration, withholding: secrets)
        }
    }
}
