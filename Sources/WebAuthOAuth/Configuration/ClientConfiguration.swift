// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthCore
import WebAuthPlatform

/// Everything the OAuth layer needs to know about a client and its provider: where the
/// provider is (an issuer to discover, or explicit endpoints), the client's registration, and
/// what to ask for.
///
/// It is `Codable`, so it can live in a JSON file. The full form:
///
/// ```json
/// {
///     "issuer": "https://accounts.example.com",
///     "clientID": "my-cli",
///     "scopes": ["openid", "profile", "offline_access"],
///     "redirectURI": "http://127.0.0.1/callback"
/// }
/// ```
///
/// A file shaped like the common `{ "id", "secret", "name", "redirectURL" }` app-credential
/// JSON (numbers allowed for `id`) decodes as well; add `authorizationEndpoint` and
/// `tokenEndpoint`, or start from a preset such as ``anilist(clientID:redirectURI:)``.
///
/// ```swift
/// let configuration = try ClientConfiguration.load(from: URL(fileURLWithPath: "anilist_api.json"))
/// ```
public struct ClientConfiguration: Sendable, Hashable {
    /// The provider's issuer identifier, for OpenID Connect discovery or RFC 8414 metadata.
    /// Optional when ``endpoints`` names the authorization and token endpoints.
    public var issuer: URL?
    /// Endpoints given explicitly; each one set here wins over discovery.
    public var endpoints: Endpoints
    /// The client identifier.
    public var clientID: String
    /// The client secret, for confidential clients. Public clients (the usual case for a
    /// program on someone's machine) have none and rely on PKCE.
    public var clientSecret: String?
    /// A display name for the client, if any.
    public var name: String?
    /// The scopes to request. Include `openid` for OpenID Connect.
    public var scopes: [String]
    /// The redirect URI registered with the provider: `http://127.0.0.1/callback` (loopback,
    /// any port — RFC 8252 §7.3), `com.example.app:/oauth` (custom scheme), or an `https` URL.
    public var redirectURI: URL
    /// How the client authenticates at the token endpoint. `nil` means
    /// ``ClientAuthenticationMethod/privateKeyJWT`` when there is a client key
    /// (``clientKey`` or ``clientKeyFile``), ``ClientAuthenticationMethod/clientSecretBasic``
    /// when there is a secret, else ``ClientAuthenticationMethod/none``.
    public var clientAuthentication: ClientAuthenticationMethod?
    /// The response type: ``ResponseType/code`` (the default, with PKCE) or
    /// ``ResponseType/token`` (implicit, for providers that offer nothing else).
    public var responseType: ResponseType
    /// The ID token signing algorithms accepted (JWS `alg` names). Default `["RS256"]`, the
    /// OpenID Connect default; `ES256` is also supported. `none` and HMAC algorithms are never
    /// accepted without a client secret.
    public var idTokenSigningAlgorithms: [String]
    /// More authorization request parameters (`prompt`, `login_hint`, `access_type`, …). The
    /// parameters the layer sets itself cannot be overridden here. A `prompt` set here is sent
    /// as it is (`none` and `login` included), whatever ``promptsConsentForOfflineAccess`` says.
    public var additionalAuthorizationParameters: [String: String]
    /// Whether a request for `offline_access` carries `prompt=consent` when
    /// ``additionalAuthorizationParameters`` sets no `prompt`, as OpenID Connect Core §11 asks:
    /// without it, a provider may ignore `offline_access` and issue a refresh token that ends
    /// with the browser's sign-in. Default `true`. Set it to `false` for a provider that grants
    /// offline access without asking again: some, Microsoft Entra among them, take
    /// `prompt=consent` as asking the person to consent at every sign-in (the
    /// ``microsoft(clientID:tenant:allowedTenants:scopes:)`` preset sets `false`).
    public var promptsConsentForOfflineAccess: Bool
    /// When to push the authorization request first (RFC 9126). Default
    /// ``PushedAuthorizationUse/automatic``: when the provider requires it.
    public var usePushedAuthorization: PushedAuthorizationUse
    /// DPoP (RFC 9449): `nil` (the default) for Bearer tokens; ``DPoPKey/Storage/persistent``
    /// to bind the tokens to a key stored with them, ``DPoPKey/Storage/ephemeral`` to a key
    /// kept in memory only. A provider whose `dpop_signing_alg_values_supported` leaves out
    /// `ES256` is an error.
    public var dpop: DPoPKey.Storage?
    /// Whether a provider that answers a DPoP request with a `Bearer` token is accepted (the
    /// token is then used as a bearer token). Default `false`: such a downgrade fails with
    /// ``OAuthError/Code/dpopDowngraded``.
    public var allowsDPoPDowngrade: Bool
    /// For a multi-tenant provider (discovery names an issuer template with `{tenantid}`, as
    /// Microsoft's `common`, `organizations` and `consumers` do): the tenants whose ID tokens are
    /// accepted, by their `tid`. `nil` (the default) accepts any tenant the template fits. Set
    /// for a provider with a plain issuer, it makes sign-in fail with
    /// ``OAuthError/Code/invalidConfiguration`` rather than be silently ignored.
    public var allowedTenants: Set<String>?
    /// Who the tokens are for: ``ClientGrant/person`` (the default) or the client itself
    /// (``ClientGrant/clientCredentials``), which decides how they are obtained again.
    public var grant: ClientGrant
    /// The private key for ``ClientAuthenticationMethod/privateKeyJWT``, given in memory. Never
    /// encoded: a stored configuration names the key's file (``clientKeyFile``) instead.
    public var clientKey: ClientAssertionKey?
    /// The PEM or JWK file holding the private key for
    /// ``ClientAuthenticationMethod/privateKeyJWT``, read when an ``OAuthClient`` is made; it
    /// must be readable by this user alone (mode 0600). Only the path is stored, never the key.
    public var clientKeyFile: URL?
    /// The `aud` of the client assertions (`private_key_jwt`, `client_secret_jwt`). Default
    /// ``ClientAssertionAudience/issuer``.
    public var clientAssertionAudience: ClientAssertionAudience

    /// Creates a configuration.
    public init(
        issuer: URL? = nil,
        endpoints: Endpoints = Endpoints(),
        clientID: String,
        clientSecret: String? = nil,
        name: String? = nil,
        scopes: [String] = [],
        redirectURI: URL = ClientConfiguration.defaultRedirectURI,
        clientAuthentication: ClientAuthenticationMethod? = nil,
        responseType: ResponseType = .code,
        idTokenSigningAlgorithms: [String] = ["RS256"],
        additionalAuthorizationParameters: [String: String] = [:],
        usePushedAuthorization: PushedAuthorizationUse = .automatic,
        dpop: DPoPKey.Storage? = nil,
        allowsDPoPDowngrade: Bool = false,
        allowedTenants: Set<String>? = nil,
        grant: ClientGrant = .person,
        clientKey: ClientAssertionKey? = nil,
        clientKeyFile: URL? = nil,
        clientAssertionAudience: ClientAssertionAudience = .issuer,
        promptsConsentForOfflineAccess: Bool = true
    ) {
        self.issuer = issuer
        self.endpoints = endpoints
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.name = name
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.clientAuthentication = clientAuthentication
        self.responseType = responseType
        self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
        self.additionalAuthorizationParameters = additionalAuthorizationParameters
        self.usePushedAuthorization = usePushedAuthorization
        self.dpop = dpop
        self.allowsDPoPDowngrade = allowsDPoPDowngrade
        self.allowedTenants = allowedTenants
        self.grant = grant
        self.clientKey = clientKey
        self.clientKeyFile = clientKeyFile
        self.clientAssertionAudience = clientAssertionAudience
        self.promptsConsentForOfflineAccess = promptsConsentForOfflineAccess
    }

    /// `http://127.0.0.1/callback`: a loopback redirect on a port chosen at sign-in.
    public static let defaultRedirectURI = URL(string: "http://127.0.0.1/callback")!

    /// Whether the scopes ask for OpenID Connect (`openid`).
    public var isOpenIDConnect: Bool { scopes.contains("openid") }

    /// The authorization request's own parameters beyond the layer's: the
    /// ``additionalAuthorizationParameters``, and `prompt=consent` for `offline_access` when
    /// they set no `prompt` and ``promptsConsentForOfflineAccess`` is on.
    public var authorizationParameters: [String: String] {
        var parameters = additionalAuthorizationParameters
        if promptsConsentForOfflineAccess, scopes.contains("offline_access"), parameters["prompt"] == nil {
            parameters["prompt"] = "consent"
        }
        return parameters
    }

    /// The client authentication actually used: ``clientAuthentication``, or its default.
    public var effectiveClientAuthentication: ClientAuthenticationMethod {
        if let clientAuthentication { return clientAuthentication }
        if clientKey != nil || clientKeyFile != nil { return .privateKeyJWT }
        return clientSecret == nil ? .none : .clientSecretBasic
    }

    /// Reads a configuration from a JSON file.
    ///
    /// A file that carries a client secret must be private, as ssh wants of a key: owned by
    /// this user, and neither group nor others may read or write it. A file with
    /// no secret may have any mode.
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` naming the file and what is wrong —
    ///   for a secret in a file others can reach, the `chmod` that fixes it; the message never
    ///   quotes the secret.
    public static func load(from file: URL) throws(OAuthError) -> ClientConfiguration {
        let path = file.path
        // Read through one descriptor, so the file checked is the file read.
        guard let descriptor = try? Descriptor.open(path, .read) else {
            throw OAuthError(code: .invalidConfiguration, message: "cannot read \(path)")
        }
        defer { Descriptor.close(descriptor) }
        guard let info = try? Descriptor.status(descriptor),
            let bytes = try? Descriptor.readAll(descriptor, limit: .max)
        else {
            throw OAuthError(code: .invalidConfiguration, message: "cannot read \(path)")
        }
        let data = Data(bytes)
        let configuration: ClientConfiguration
        do {
            configuration = try JSONDecoder().decode(ClientConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw OAuthError(code: .invalidConfiguration, message: "\(path): \(error.safeSummary)")
        } catch {
            throw OAuthError(code: .invalidConfiguration, message: "\(path) is not a client configuration")
        }
        if let secret = configuration.clientSecret, !secret.isEmpty {
            try checkPrivate(path: path, info: info)
        }
        return configuration
    }

    /// Refuses a file holding a secret that is not this user's or that group or others may
    /// read or write. (A pipe, as from `--config <(…)`, is the user's with mode 0600.)
    /// The same check for any file holding `what` (a client key file too); `copyName` is the
    /// file name the fix suggests for a copy of one's own.
    static func checkPrivate(
        path: String, info: FileStatus, holding what: String = "a client secret", copyName: String = "client.json"
    ) throws(OAuthError) {
        let mode = info.permissions
        let shown = UntrustedText(path).displayed()
        if info.owner != CurrentProcess.effectiveUserID {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "\(shown) holds \(what) but belongs to user \(info.owner), not to you (user "
                    + "\(CurrentProcess.effectiveUserID)); use a copy of your own: cp '\(shown)' ~/\(copyName) && chmod 600 ~/\(copyName)"
            )
        }
        guard mode & 0o077 == 0 else {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "\(shown) holds \(what) but its mode is 0\(String(mode, radix: 8)), so others "
                    + "can reach it; run: chmod 600 '\(shown)'")
        }
    }

    /// Checks what can be checked before any network traffic: a client ID, a supported response
    /// type and client authentication, a redirect URI the session can wait for, and secure
    /// endpoints.
    public func validated() throws(OAuthError) -> ClientConfiguration {
        guard !clientID.isEmpty else {
            throw OAuthError(code: .invalidConfiguration, message: "the client ID is empty")
        }
        guard
            issuer != nil || (endpoints.authorization != nil && endpoints.token != nil)
                || (responseType == .token && endpoints.authorization != nil)
                || (grant == .clientCredentials && endpoints.token != nil)
        else {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "give an issuer to discover, or the authorization and token endpoints")
        }
        guard [.code, .token].contains(responseType) else {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "response type '\(responseType.rawValue.safeForDisplay)' is not supported (code or token)")
        }
        guard ClientAuthenticationMethod.supported.contains(effectiveClientAuthentication) else {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "client authentication '\(effectiveClientAuthentication.rawValue.safeForDisplay)' is not "
                    + "supported (none, client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt)")
        }
        _ = try Callback.configured(redirectURI)
        if let issuer { try EndpointPolicy.check(issuer, role: "issuer") }
        for (role, url) in endpoints.all { try EndpointPolicy.check(url, role: role) }
        if effectiveClientAuthentication == .privateKeyJWT {
            guard clientKey != nil || clientKeyFile != nil else {
                throw OAuthError(
                    code: .invalidConfiguration,
                    message: "client authentication private_key_jwt needs a client key: give its PEM or JWK file")
            }
        } else if clientKey != nil || clientKeyFile != nil {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "a client key is given, but client authentication is \(effectiveClientAuthentication), "
                    + "not private_key_jwt")
        } else if effectiveClientAuthentication != .none, clientSecret == nil {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "client authentication \(effectiveClientAuthentication) needs a client secret")
        } else if effectiveClientAuthentication == .clientSecretJWT,
            let problem = ClientAssertion.secretProblem(clientSecret)
        {
            throw OAuthError(code: .invalidConfiguration, message: problem)
        }
        if grant == .clientCredentials, effectiveClientAuthentication == .none {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "the client credentials grant needs a confidential client: give its client secret")
        }
        return self
    }
}

extension ClientConfiguration {
    /// Endpoints given explicitly instead of, or on top of, discovery.
    public struct Endpoints: Sendable, Hashable, Codable {
        /// The authorization endpoint (the page the browser opens).
        public var authorization: URL?
        /// The token endpoint.
        public var token: URL?
        /// The revocation endpoint (RFC 7009).
        public var revocation: URL?
        /// The UserInfo endpoint (OpenID Connect).
        public var userInfo: URL?
        /// The device authorization endpoint (RFC 8628).
        public var deviceAuthorization: URL?
        /// The JSON Web Key Set, for ID token signatures.
        public var jwks: URL?
        /// The pushed authorization request endpoint (RFC 9126).
        public var pushedAuthorization: URL?

        /// Creates a set of endpoints.
        public init(
            authorization: URL? = nil, token: URL? = nil, revocation: URL? = nil, userInfo: URL? = nil,
            deviceAuthorization: URL? = nil, jwks: URL? = nil, pushedAuthorization: URL? = nil
        ) {
            self.authorization = authorization
            self.token = token
            self.revocation = revocation
            self.userInfo = userInfo
            self.deviceAuthorization = deviceAuthorization
            self.jwks = jwks
            self.pushedAuthorization = pushedAuthorization
        }

        /// The endpoints that are set, with their names.
        package var all: [(String, URL)] {
            [
                ("authorization endpoint", authorization), ("token endpoint", token),
                ("revocation endpoint", revocation), ("userinfo endpoint", userInfo),
                ("device authorization endpoint", deviceAuthorization), ("jwks_uri", jwks),
                ("pushed authorization request endpoint", pushedAuthorization),
            ].compactMap { name, url in url.map { (name, $0) } }
        }
    }
}

/// How a client proves its identity at the token endpoint (RFC 6749 §2.3, OpenID Connect
/// Core §9).
public struct ClientAuthenticationMethod: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The registered name, such as `client_secret_basic`.
    public let rawValue: String

    /// Creates a method from its registered name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A public client: sends `client_id` only and relies on PKCE.
    public static let none = ClientAuthenticationMethod(rawValue: "none")
    /// HTTP Basic authentication with the form-encoded client ID and secret.
    public static let clientSecretBasic = ClientAuthenticationMethod(rawValue: "client_secret_basic")
    /// `client_id` and `client_secret` in the request body.
    public static let clientSecretPost = ClientAuthenticationMethod(rawValue: "client_secret_post")
    /// A JWT signed with the client's private key (RFC 7523 §2.2, OpenID Connect Core §9): the
    /// key is ``ClientConfiguration/clientKey`` or ``ClientConfiguration/clientKeyFile``.
    public static let privateKeyJWT = ClientAuthenticationMethod(rawValue: "private_key_jwt")
    /// A JWT signed with HS256, keyed with the client secret (OpenID Connect Core §9): the
    /// secret itself never leaves the client.
    public static let clientSecretJWT = ClientAuthenticationMethod(rawValue: "client_secret_jwt")

    /// The methods this library can authenticate with.
    public static let supported: [ClientAuthenticationMethod] = [
        .none, .clientSecretBasic, .clientSecretPost, .clientSecretJWT, .privateKeyJWT,
    ]

    /// Whether the method sends a client assertion (`private_key_jwt`, `client_secret_jwt`).
    public var usesAssertion: Bool { self == .privateKeyJWT || self == .clientSecretJWT }

    /// The registered name.
    public var description: String { rawValue }
}

/// The authorization response type.
public struct ResponseType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `response_type` value.
    public let rawValue: String

    /// Creates a response type from its `response_type` value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The authorization code flow, always with PKCE.
    public static let code = ResponseType(rawValue: "code")
    /// The implicit flow: the access token comes back in the redirect URI's fragment. Only for
    /// providers that offer nothing better; there is no refresh token.
    public static let token = ResponseType(rawValue: "token")

    /// The `response_type` value.
    public var description: String { rawValue }
}

extension DecodingError {
    /// Which key or value was wrong, without quoting any value.
    var safeSummary: String {
        func path(_ context: Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "the top level" : "'\(keys)'"
        }
        switch self {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "'\(key.stringValue)' is missing\(parent)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)) is not valid"
        @unknown default:
            return "not valid"
        }
    }
}
