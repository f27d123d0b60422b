// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthPlatform

extension EmbeddedProvider {
    /// Dynamic client registration (RFC 7591) and its management (RFC 7592), switched on with
    /// ``Configuration/registration``.
    ///
    /// `POST /register` registers a client from its JSON metadata and answers `201` with its
    /// `client_id`, a `client_secret` for a confidential one, a `registration_access_token` and
    /// its `registration_client_uri` (`/register/{client_id}`). The client can sign in at
    /// once. At that URI, with the registration access token as a `Bearer` token, `GET` reads
    /// the registration (and issues a new registration access token: the provider keeps only
    /// digests) and `DELETE` deletes it (`204`): the client is then unknown everywhere.
    ///
    /// The checks are strict: `redirect_uris` is required; a `native` client's must be
    /// loopback `http` with an IP literal (`127.0.0.1`, `[::1]`, any port, RFC 8252 §7.3), a
    /// private-use scheme with a dot (§7.1) or `https`; a `web` client's must be `https`.
    /// `token_endpoint_auth_method` is `none`, `client_secret_basic` (RFC 7591's default),
    /// `client_secret_post` or `private_key_jwt` (with the client's keys in `jwks`); `grant_types` are `authorization_code`, `refresh_token` and RFC 8628's
    /// device code grant,
    /// `response_types` `code`, and each needs the other (§2.1). Other values are
    /// `invalid_redirect_uri` or `invalid_client_metadata`.
    ///
    /// ```swift
    /// var configuration = EmbeddedProvider.Configuration()
    /// configuration.registration = .init(initialAccessTokens: ["admin-handed-this-out"])
    /// ```
    public struct Registration: Sendable, Hashable, CustomStringConvertible {
        /// The initial access tokens that may register a client (as `Authorization: Bearer`);
        /// empty (the default): anyone may register.
        public var initialAccessTokens: Set<String>
        /// The most clients registered at once; further registrations are refused with
        /// `invalid_client_metadata`. Default 1000.
        public var maximumClients: Int
        /// Whether registered clients' loopback redirect URIs match exactly, port included
        /// (``Client/matchesRedirectURIsExactly``), as glewlwyd and LemonLDAP::NG register them.
        /// Default `false`: any port (RFC 8252 §7.3).
        public var registersExactRedirectURIs = false
        /// Whether the answer gives `client_id_issued_at` as a string of digits rather than a
        /// number (RFC 7591 §3.2.1), as LemonLDAP::NG does. Default `false`.
        public var answersIssuedAtAsString = false
        /// The `token_endpoint_auth_method` every client is registered for, whatever it asked
        /// for, as a provider whose policy decides does (RFC 7591 §2 lets it); a secret is
        /// issued when the method needs one, and the client must use that method. `nil` (the
        /// default): the method asked for.
        public var registeredAuthenticationMethod: String? = nil
        /// Whether a client that asks for `none` is answered as public but kept as a
        /// confidential client with no secret, as glewlwyd 2.7 does: it can then authenticate
        /// nowhere (`invalid_client`). Default `false`.
        public var keepsPublicClientsConfidential = false

        /// Creates the switch; every parameter has the default its property describes.
        public init(initialAccessTokens: Set<String> = [], maximumClients: Int = 1000) {
            self.initialAccessTokens = initialAccessTokens
            self.maximumClients = maximumClients
        }

        /// Open registration: anyone may register.
        public static let open = Registration()

        /// Whether an initial access token is required, and the limit; never a token.
        public var description: String {
            "Registration(\(initialAccessTokens.isEmpty ? "open" : "initial access token required"), at most \(maximumClients) clients)"
        }
    }
}

/// The clients registered through `/register`, with the digest of each one's registration
/// access token.
struct RegisteredClients: Sendable {
    struct Entry: Sendable {
        var client: EmbeddedProvider.Client
        var tokenDigest: String
        var issuedAt: Date
        var applicationType: String
        var tokenEndpointAuthMethod: String
        var grantTypes: [String]
        var issuedAtAsString = false
    }

    /// In registration order.
    var entries: [Entry] = []
}

extension ProviderEngine {
    /// The configured clients, then the registered ones.
    var clients: [EmbeddedProvider.Client] {
        configuration.clients + registrations.withLock { $0.entries.map(\.client) }
    }

    /// The client with `id`, configured or registered.
    func client(id: String) -> EmbeddedProvider.Client? {
        clients.first { $0.id == id }
    }

    /// `/register` and `/register/{client_id}`.
    func registration(_ request: ServerRequest) -> Answer {
        guard let settings = configuration.registration else { return Answer(.text("not found\n", status: 404)) }
        let prefix = EmbeddedProvider.Endpoint.registration.path
        if request.path == prefix {
            guard request.method == "POST" else { return Answer(ProviderHTTP.methodNotAllowed(["POST"])) }
            return register(request, settings: settings)
        }
        // Registered client IDs are base64url, so the path segment is the ID as it is.
        let clientID = String(request.path.dropFirst(prefix.count + 1))
        switch request.method {
        case "GET", "DELETE": return manage(request, clientID: clientID)
        default: return Answer(ProviderHTTP.methodNotAllowed(["GET", "DELETE"]))
        }
    }

    // MARK: - RFC 7591

    private func register(_ request: ServerRequest, settings: EmbeddedProvider.Registration) -> Answer {
        if !settings.initialAccessTokens.isEmpty {
            guard let token = Self.bearerToken(request) else {
                // RFC 6750 §3.1: no error code when the request had no authentication.
                var response = ServerResponse.text("an initial access token is required\n", status: 401)
                response.headerFields.append(HTTPField(name: .wwwAuthenticate, value: "Bearer"))
                return Answer(response, error: "invalid_token")
            }
            let known = settings.initialAccessTokens.contains { ProviderSecrets.constantTimeEquals(token, $0) }
            guard known else {
                return errorAnswer(
                    ProtocolError(
                        code: "invalid_token", description: "the initial access token is not valid", status: 401),
                    challenge: #"Bearer error="invalid_token""#)
            }
        }
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/json",
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        else {
            return errorAnswer(.invalidRequest("the body must be a JSON object (application/json)"))
        }
        let metadata: ClientMetadata
        switch ClientMetadata.check(object) {
        case .failure(let error): return errorAnswer(error)
        case .success(let checked): metadata = checked
        }
        let issuedAt = clock.now()
        let clientID = "dyn-" + ProviderSecrets.randomToken(byteCount: 12)
        let method = settings.registeredAuthenticationMethod ?? metadata.tokenEndpointAuthMethod
        let needsSecret = ["client_secret_basic", "client_secret_post", "client_secret_jwt"].contains(method)
        let secret = needsSecret ? ProviderSecrets.randomToken() : nil
        let accessToken = ProviderSecrets.randomToken()
        var client = EmbeddedProvider.Client(
            id: clientID, secret: secret, name: metadata.clientName, redirectURIs: metadata.redirectURIs)
        if let scopes = metadata.scopes { client.allowedScopes = scopes }
        client.matchesRedirectURIsExactly = settings.registersExactRedirectURIs
        client.publicJWKs = metadata.publicJWKs
        if settings.registeredAuthenticationMethod != nil || method == "private_key_jwt" {
            client.tokenEndpointAuthMethod = method
        }
        if settings.keepsPublicClientsConfidential, method == "none" {
            // Kept for a method that needs the secret it never issued.
            client.tokenEndpointAuthMethod = "client_secret_basic"
        }
        let entry = RegisteredClients.Entry(
            client: client, tokenDigest: ProviderSecrets.digest(accessToken), issuedAt: issuedAt,
            applicationType: metadata.applicationType, tokenEndpointAuthMethod: method,
            grantTypes: metadata.grantTypes, issuedAtAsString: settings.answersIssuedAtAsString)
        let added = registrations.withLock { registered in
            guard registered.entries.count < settings.maximumClients else { return false }
            registered.entries.append(entry)
            return true
        }
        guard added else {
            return errorAnswer(
                ProtocolError(code: "invalid_client_metadata", description: "no more clients can be registered now"))
        }
        return Answer(ProviderHTTP.json(information(entry, accessToken: accessToken), status: 201))
    }

    /// The client information response (RFC 7591 §3.2.1, RFC 7592 §3).
    private func information(_ entry: RegisteredClients.Entry, accessToken: String) -> ClientInformation {
        ClientInformation(
            clientID: entry.client.id, clientSecret: entry.client.secret,
            clientSecretExpiresAt: entry.client.secret == nil ? nil : 0,
            clientIDIssuedAt: entry.issuedAtAsString
                ? .text(String(Int(entry.issuedAt.timeIntervalSince1970)))
                : .number(Int(entry.issuedAt.timeIntervalSince1970)), registrationAccessToken: accessToken,
            registrationClientURI: issuer + EmbeddedProvider.Endpoint.registration.path + "/" + entry.client.id,
            redirectURIs: entry.client.redirectURIs.map(\.absoluteString), clientName: entry.client.name,
            applicationType: entry.applicationType, tokenEndpointAuthMethod: entry.tokenEndpointAuthMethod,
            grantTypes: entry.grantTypes, responseTypes: ["code"],
            scope: entry.client.allowedScopes.sorted().joined(separator: " "))
    }

    // MARK: - RFC 7592

    private func manage(_ request: ServerRequest, clientID: String) -> Answer {
        // RFC 7592 §2: an unknown client and a wrong token get the same answer, so the
        // endpoint tells nobody which client IDs exist.
        let refused = errorAnswer(
            ProtocolError(
                code: "invalid_token", description: "the registration access token is not valid", status: 401),
            challenge: #"Bearer error="invalid_token""#)
        guard let token = Self.bearerToken(request) else { return refused }
        let digest = ProviderSecrets.digest(token)
        if request.method == "DELETE" {
            let deleted = registrations.withLock { registered in
                guard
                    let index = registered.entries.firstIndex(where: {
                        $0.client.id == clientID && ProviderSecrets.constantTimeEquals($0.tokenDigest, digest)
                    })
                else { return false }
                registered.entries.remove(at: index)
                return true
            }
            return deleted ? Answer(ServerResponse(status: 204, headerFields: [:], body: [])) : refused
        }
        let newToken = ProviderSecrets.randomToken()
        let entry: RegisteredClients.Entry? = registrations.withLock { registered in
            guard
                let index = registered.entries.firstIndex(where: {
                    $0.client.id == clientID && ProviderSecrets.constantTimeEquals($0.tokenDigest, digest)
                })
            else { return nil }
            // Reading rotates the token (RFC 7592 §3 allows it): the old one stops working.
            registered.entries[index].tokenDigest = ProviderSecrets.digest(newToken)
            return registered.entries[index]
        }
        guard let entry else { return refused }
        return Answer(ProviderHTTP.json(information(entry, accessToken: newToken)))
    }

    /// The token of an `Authorization: Bearer` field, if the request has exactly one.
    static func bearerToken(_ request: ServerRequest) -> String? {
        guard let value = request.header("Authorization"), value.count > 7,
            value.prefix(7).lowercased() == "bearer "
        else { return nil }
        let token = String(value.dropFirst(7))
        return token.isEmpty || token.contains(",") || token.contains(" ") ? nil : token
    }
}

/// A registration request's client metadata, checked (RFC 7591 §2, OpenID Connect Dynamic
/// Client Registration §2).
struct ClientMetadata {
    var redirectURIs: [URL]
    var clientName: String?
    var applicationType: String
    var tokenEndpointAuthMethod: String
    var grantTypes: [String]
    var scopes: Set<String>?
    var publicJWKs: [[String: String]] = []

    /// The scopes a registered client may ask for.
    static let offeredScopes: Set<String> = ["openid", "profile", "email", "offline_access"]

    static func check(_ object: [String: Any]) -> Result<ClientMetadata, ProtocolError> {
        func invalidMetadata(_ description: String) -> Result<ClientMetadata, ProtocolError> {
            .failure(ProtocolError(code: "invalid_client_metadata", description: description))
        }
        func invalidRedirect(_ description: String) -> Result<ClientMetadata, ProtocolError> {
            .failure(ProtocolError(code: "invalid_redirect_uri", description: description))
        }
        func strings(_ name: String) -> [String]?? {
            guard let value = object[name] else { return .some(nil) }
            guard let list = value as? [String] else { return nil }
            return .some(list)
        }
        guard let applicationType = (object["application_type"] ?? "web") as? String,
            ["native", "web"].contains(applicationType)
        else { return invalidMetadata("application_type must be native or web") }
        guard let redirects = strings("redirect_uris"), let redirects, !redirects.isEmpty else {
            return invalidRedirect("redirect_uris must be a non-empty list of strings")
        }
        var redirectURIs: [URL] = []
        for text in redirects {
            guard let uri = URL(string: text), let scheme = uri.scheme?.lowercased(), uri.fragment == nil else {
                return invalidRedirect("every redirect URI must be absolute, with no fragment")
            }
            let host = uri.host?.lowercased() ?? ""
            let loopback = scheme == "http" && ["127.0.0.1", "::1", "[::1]"].contains(host)
            let allowed =
                switch applicationType {
                case "native": loopback || scheme == "https" || (scheme.contains(".") && !scheme.hasPrefix("http"))
                default: scheme == "https"
                }
            guard allowed else {
                return invalidRedirect(
                    applicationType == "native"
                        ? "a native client's redirect URIs must be loopback http with an IP address, https, or a private-use scheme"
                        : "a web client's redirect URIs must be https")
            }
            redirectURIs.append(uri)
        }
        guard let method = (object["token_endpoint_auth_method"] ?? "client_secret_basic") as? String,
            ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"].contains(method)
        else {
            return invalidMetadata(
                "token_endpoint_auth_method must be none, client_secret_basic, client_secret_post or private_key_jwt")
        }
        var publicJWKs: [[String: String]] = []
        if let jwks = object["jwks"] {
            guard let set = jwks as? [String: Any], let keys = set["keys"] as? [[String: Any]], !keys.isEmpty,
                keys.count <= 10
            else { return invalidMetadata("jwks must be a JWK Set with one to ten keys") }
            for key in keys {
                var strings: [String: String] = [:]
                for (name, value) in key {
                    guard let text = value as? String else {
                        return invalidMetadata("every JWK member must be a string")
                    }
                    strings[name] = text
                }
                publicJWKs.append(strings)
            }
        }
        if method == "private_key_jwt", publicJWKs.isEmpty {
            return invalidMetadata("private_key_jwt needs the client's public keys in jwks")
        }
        guard let grants = strings("grant_types"), let responses = strings("response_types") else {
            return invalidMetadata("grant_types and response_types must be lists of strings")
        }
        let grantTypes = grants ?? ["authorization_code"]
        let responseTypes = responses ?? ["code"]
        let offeredGrants: Set<String> = ["authorization_code", "refresh_token", ProviderEngine.deviceCodeGrantType]
        guard !grantTypes.isEmpty, Set(grantTypes).isSubset(of: offeredGrants) else {
            return invalidMetadata("grant_types may be authorization_code, refresh_token and the device code grant")
        }
        guard responseTypes == ["code"], grantTypes.contains("authorization_code") else {
            return invalidMetadata("response_types code goes with grant_types authorization_code (RFC 7591 §2.1)")
        }
        var scopes: Set<String>?
        if let value = object["scope"] {
            guard let text = value as? String else { return invalidMetadata("scope must be a string") }
            let asked = Set(text.split(separator: " ").map(String.init))
            guard asked.isSubset(of: offeredScopes) else {
                return invalidMetadata("scope may name \(offeredScopes.sorted().joined(separator: ", "))")
            }
            scopes = asked
        }
        var clientName: String?
        if let value = object["client_name"] {
            guard let name = value as? String, name.count <= 200 else {
                return invalidMetadata("client_name must be a string of at most 200 characters")
            }
            clientName = name
        }
        return .success(
            ClientMetadata(
                redirectURIs: redirectURIs, clientName: clientName, applicationType: applicationType,
                tokenEndpointAuthMethod: method, grantTypes: grantTypes, scopes: scopes, publicJWKs: publicJWKs))
    }
}

/// The client information response.
struct ClientInformation: Encodable {
    var clientID: String
    var clientSecret: String?
    var clientSecretExpiresAt: Int?
    var clientIDIssuedAt: Seconds
    var registrationAccessToken: String
    var registrationClientURI: String
    var redirectURIs: [String]
    var clientName: String
    var applicationType: String
    var tokenEndpointAuthMethod: String
    var grantTypes: [String]
    var responseTypes: [String]
    var scope: String

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientSecretExpiresAt = "client_secret_expires_at"
        case clientIDIssuedAt = "client_id_issued_at"
        case registrationAccessToken = "registration_access_token"
        case registrationClientURI = "registration_client_uri"
        case redirectURIs = "redirect_uris"
        case clientName = "client_name"
        case applicationType = "application_type"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case scope
    }

    /// A time in seconds since 1970: a JSON number (RFC 7591 §3.2.1), or a string of digits.
    enum Seconds: Encodable {
        case number(Int)
        case text(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .number(let seconds): try container.encode(seconds)
            case .text(let seconds): try container.encode(seconds)
            }
        }
    }
}
