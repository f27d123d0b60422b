// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension EmbeddedProvider {
    /// A person who can sign in at the provider's login form.
    ///
    /// Printing a user never shows the password.
    public struct User: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        /// What the person types in the login form's username field.
        public var username: String
        /// What the person types in the password field.
        public var password: String
        /// The stable identifier in ID tokens and UserInfo (`sub`).
        public var subject: String
        /// The display name (`name`, with the `profile` scope).
        public var name: String?
        /// The e-mail address (`email`, with the `email` scope).
        public var email: String?
        /// Whether the e-mail address counts as verified (`email_verified`).
        public var emailVerified: Bool

        /// Creates a user.
        public init(
            username: String, password: String, subject: String, name: String? = nil, email: String? = nil,
            emailVerified: Bool = true
        ) {
            self.username = username
            self.password = password
            self.subject = subject
            self.name = name
            self.email = email
            self.emailVerified = emailVerified
        }

        /// The demo user: username `demo`, password `demo-password`, subject `demo-user`.
        public static let demo = User(
            username: "demo", password: "demo-password", subject: "demo-user", name: "Demo User",
            email: "demo@example.com")

        /// The username and subject; never the password.
        public var description: String { "User(\(username), subject \(subject))" }

        /// The same as ``description``.
        public var debugDescription: String { description }
    }

    /// A client registered with the provider.
    ///
    /// A client with a ``secret`` is confidential and must authenticate at the token,
    /// revocation and device authorization endpoints (`client_secret_basic` or
    /// `client_secret_post`); one without is public and sends only its `client_id`, relying on
    /// PKCE. Printing a client never shows the secret.
    public struct Client: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The `client_id`.
        public var id: String
        /// The client secret; `nil` for a public client.
        public var secret: String?
        /// The name the consent page shows.
        public var name: String
        /// The registered redirect URIs. A loopback one (`http://127.0.0.1/…` or
        /// `http://[::1]/…`) matches that address and path on any port (RFC 8252 §7.3); any
        /// other must match exactly.
        public var redirectURIs: [URL]
        /// The scopes the client may ask for; asking for another is `invalid_scope`.
        public var allowedScopes: Set<String>
        /// Whether the client may ask for tokens for itself with the client credentials grant
        /// (RFC 6749 §4.4). Only a confidential client can. Default `false`: the token endpoint
        /// answers `unauthorized_client`.
        public var allowsClientCredentials = false
        /// The registered post-logout redirect URIs (OpenID Connect RP-Initiated Logout 1.0
        /// §3), matched as ``redirectURIs`` are (a loopback one on any port). `nil`, the
        /// default: the client's ``redirectURIs`` serve; `[]`: none is registered, so the
        /// end-session endpoint never redirects this client's person back.
        public var postLogoutRedirectURIs: [URL]? = nil
        /// The public keys the client signs its `private_key_jwt` assertions with (RFC 7523
        /// §2.2), as JWKs: `EC` on `P-256` (ES256) or `RSA` (RS256, PS256), each with its `kid`
        /// and `alg` if it names them. Empty (the default): the client cannot use
        /// `private_key_jwt`.
        public var publicJWKs: [[String: String]] = []
        /// The one client authentication method the client registered
        /// (`token_endpoint_auth_method`): `none`, `client_secret_basic`, `client_secret_post`,
        /// `client_secret_jwt` or `private_key_jwt`; any other is refused with
        /// `invalid_client`. `nil` (the default) accepts every method the client's credentials
        /// allow.
        public var tokenEndpointAuthMethod: String?
        /// Whether a loopback redirect URI must match a registered one exactly, port included,
        /// as glewlwyd and LemonLDAP::NG match them, instead of on any port (RFC 8252 §7.3).
        /// Default `false`.
        public var matchesRedirectURIsExactly = false

        /// Creates a client.
        public init(
            id: String, secret: String? = nil, name: String? = nil, redirectURIs: [URL],
            allowedScopes: Set<String> = ["openid", "profile", "email", "offline_access"]
        ) {
            self.id = id
            self.secret = secret
            self.name = name ?? id
            self.redirectURIs = redirectURIs
            self.allowedScopes = allowedScopes
        }

        /// Whether the client has a secret or a key to authenticate with.
        public var isConfidential: Bool { secret != nil || !publicJWKs.isEmpty }

        /// Whether the client may authenticate with `method`: its registered method, else any
        /// its credentials allow.
        func accepts(_ method: ClientAuthentication.Method) -> Bool {
            if let tokenEndpointAuthMethod { return tokenEndpointAuthMethod == method.rawValue }
            return hasCredentials(for: method)
        }

        /// Whether the client has what `method` needs: no secret and no key for `none`, a
        /// secret for the secret methods, a key for `private_key_jwt`.
        func hasCredentials(for method: ClientAuthentication.Method) -> Bool {
            switch method {
            case .none: return !isConfidential
            case .clientSecretBasic, .clientSecretPost, .clientSecretJWT: return secret != nil
            case .privateKeyJWT: return !publicJWKs.isEmpty
            }
        }

        /// The URIs a post-logout redirect may go to: ``postLogoutRedirectURIs``, or
        /// ``redirectURIs`` when that is `nil`.
        var registeredPostLogoutRedirectURIs: [URL] { postLogoutRedirectURIs ?? redirectURIs }

        /// The demo client: public, `client_id` `webauth-demo`, redirect URIs
        /// `http://127.0.0.1/callback` and `http://[::1]/callback` (any port), scopes `openid`,
        /// `profile`, `email` and `offline_access`.
        public static let demo = Client(
            id: "webauth-demo", name: "webauth demo",
            redirectURIs: [URL(string: "http://127.0.0.1/callback")!, URL(string: "http://[::1]/callback")!])

        /// The ID, whether the client is confidential, and its redirect URIs; never the secret.
        public var description: String {
            let kind = isConfidential ? "confidential" : "public"
            return "Client(\(id), \(kind), redirect URIs \(redirectURIs.map(\.absoluteString)))"
        }

        /// The same as ``description``.
        public var debugDescription: String { description }
    }

    /// The time an ``EmbeddedProvider`` goes by: the current date, and a way to wait.
    ///
    /// The provider reads the date for everything that expires (codes, tokens, device codes,
    /// pushed requests, sign-ins, DPoP proofs) and for the `iat` and `exp` of the ID tokens it
    /// issues, and waits with ``sleep`` for a fault's delay. A test that owns the clock moves
    /// time forward instead of sleeping:
    ///
    /// ```swift
    /// let offset = Mutex<TimeInterval>(0)
    /// var configuration = EmbeddedProvider.Configuration()
    /// configuration.deviceCodeLifetime = .seconds(60)
    /// configuration.clock = .init(now: { Date() + offset.withLock { $0 } })
    /// // … start a device authorization …
    /// offset.withLock { $0 += 61 }      // the device code has now expired
    /// ```
    public struct Clock: Sendable {
        /// Waits for a duration; throws when the wait is cancelled (as `Task.sleep` does).
        public typealias Sleep = @Sendable (Duration) async throws -> Void

        /// The current date.
        public var now: @Sendable () -> Date
        /// Waits the given duration, or throws when cancelled.
        public var sleep: Sleep

        /// Creates a clock from a date source and a way to wait (default: `Task.sleep`).
        public init(now: @escaping @Sendable () -> Date, sleep: @escaping Sleep = { try await Task.sleep(for: $0) }) {
            self.now = now
            self.sleep = sleep
        }

        /// The system's clock: `Date()` and `Task.sleep`.
        public static let system = Clock(now: { Date() })
    }

    /// How an ``EmbeddedProvider`` behaves: who can sign in, which clients exist, token
    /// lifetimes and the choices a real provider makes.
    ///
    /// ```swift
    /// var configuration = EmbeddedProvider.Configuration()
    /// configuration.requiresConsent = false
    /// configuration.accessTokenLifetime = .seconds(30)
    /// configuration.clients.append(.init(
    ///     id: "backend", secret: "s3cret", redirectURIs: [URL(string: "http://127.0.0.1/done")!]))
    /// ```
    public struct Configuration: Sendable {
        /// The people who can sign in. Default: ``User/demo``.
        public var users: [User]
        /// The registered clients. Default: ``Client/demo``.
        public var clients: [Client]
        /// How long an access token is valid (`expires_in`). Default 1 hour.
        public var accessTokenLifetime: Duration
        /// How long a refresh token is valid after it is issued. Default 1 day.
        public var refreshTokenLifetime: Duration
        /// How long an authorization code can be exchanged. Default 60 seconds.
        public var authorizationCodeLifetime: Duration
        /// How long a device code can be approved and polled (`expires_in`). Default 10 minutes.
        public var deviceCodeLifetime: Duration
        /// How long an ID token is valid (`exp` − `iat`). Default 1 hour.
        public var idTokenLifetime: Duration
        /// The device flow's polling `interval` (RFC 8628 §3.2), whole seconds, at least 1.
        /// Default 5 seconds.
        public var devicePollingInterval: Duration
        /// Whether each refresh returns a new refresh token and retires the old one. Presenting
        /// a retired one is then taken as theft: `invalid_grant`, and the whole grant is
        /// revoked. Default `true`.
        public var rotatesRefreshTokens: Bool
        /// Whether the person approves each authorization on a consent page. Default `true`.
        public var requiresConsent: Bool
        /// How long a sign-in (the session cookie) lasts, so that a second authorization in the
        /// same browser skips the password. Default 1 hour.
        public var signInSessionLifetime: Duration
        /// The name the pages show. Default `webauth embedded provider`.
        public var displayName: String
        /// A note the login form shows under its fields, such as which demo account to use.
        /// Shown as text (escaped). Default `nil`: no note.
        public var loginPageNote: String?
        /// Bounds on what the provider keeps, so that a flood of requests cannot grow its
        /// memory without bound.
        public var limits: Limits
        /// Whether every authorization request must be pushed first (RFC 9126 §5), as the
        /// metadata's `require_pushed_authorization_requests` says. Default `false`.
        public var requiresPushedAuthorizationRequests: Bool
        /// How long a pushed request's `request_uri` can be opened (`expires_in`). Default 60 s.
        public var pushedRequestLifetime: Duration
        /// Whether DPoP proofs must carry the provider's nonce (RFC 9449 §8, §9): a proof
        /// without it is answered `use_dpop_nonce` with a `DPoP-Nonce`. Default `false`.
        public var requiresDPoPNonce: Bool
        /// Fault switch: issue `Bearer` tokens (unbound) even for requests with a valid DPoP
        /// proof — the silent downgrade a client must refuse. Default `false`.
        public var downgradesDPoPToBearer: Bool
        /// Fault switch: whether the metadata tells clients that pushing is required. `false`
        /// with ``requiresPushedAuthorizationRequests`` hides the requirement, so a client
        /// that does not push meets it only at the authorization endpoint. Default `true`.
        public var advertisesPushRequirement: Bool
        /// The time the provider goes by: when codes, tokens, device codes, pushed requests
        /// and sign-ins expire, what ID tokens' `iat` and `exp` say, and how long a fault's
        /// delay waits. Default ``Clock/system``; a test that steps its own clock sees things
        /// expire without waiting for them.
        public var clock: Clock
        /// The multi-tenant shape (see ``MultiTenant``); `nil` (the default) for one issuer.
        public var multiTenant: MultiTenant? = nil
        /// The audiences and resource URIs the provider issues tokens for in a token exchange
        /// (RFC 8693); asking for another is `invalid_target`. Empty (the default): none.
        public var tokenExchangeTargets: Set<String> = []
        /// Dynamic client registration (RFC 7591, with RFC 7592's read and delete); `nil` (the
        /// default): the metadata has no `registration_endpoint` and `/register` is not found.
        public var registration: Registration? = nil
        /// Whether a client assertion (`private_key_jwt`, `client_secret_jwt`) may name the token
        /// endpoint's URL as its `aud`, as older providers want. Default `false`: only the
        /// issuer identifier, as current guidance says.
        public var acceptsTokenEndpointAssertionAudience = false
        /// Whether `offline_access` is granted only to an authorization request with
        /// `prompt=consent`, as OpenID Connect Core §11 lets a provider decide (LemonLDAP::NG
        /// does): without it, the granted `scope` leaves `offline_access` out. Default `false`.
        public var grantsOfflineAccessOnlyWithConsentPrompt = false

        /// Creates a configuration; every parameter has the default its property describes.
        public init(
            users: [User] = [.demo],
            clients: [Client] = [.demo],
            accessTokenLifetime: Duration = .seconds(3600),
            refreshTokenLifetime: Duration = .seconds(86_400),
            authorizationCodeLifetime: Duration = .seconds(60),
            deviceCodeLifetime: Duration = .seconds(600),
            idTokenLifetime: Duration = .seconds(3600),
            devicePollingInterval: Duration = .seconds(5),
            rotatesRefreshTokens: Bool = true,
            requiresConsent: Bool = true,
            signInSessionLifetime: Duration = .seconds(3600),
            displayName: String = "webauth embedded provider",
            loginPageNote: String? = nil,
            limits: Limits = Limits(),
            requiresPushedAuthorizationRequests: Bool = false,
            pushedRequestLifetime: Duration = .seconds(60),
            requiresDPoPNonce: Bool = false,
            downgradesDPoPToBearer: Bool = false,
            advertisesPushRequirement: Bool = true,
            clock: Clock = .system
        ) {
            self.clock = clock
            self.requiresPushedAuthorizationRequests = requiresPushedAuthorizationRequests
            self.pushedRequestLifetime = pushedRequestLifetime
            self.requiresDPoPNonce = requiresDPoPNonce
            self.downgradesDPoPToBearer = downgradesDPoPToBearer
            self.advertisesPushRequirement = advertisesPushRequirement
            self.users = users
            self.clients = clients
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.authorizationCodeLifetime = authorizationCodeLifetime
            self.deviceCodeLifetime = deviceCodeLifetime
            self.idTokenLifetime = idTokenLifetime
            self.devicePollingInterval = devicePollingInterval
            self.rotatesRefreshTokens = rotatesRefreshTokens
            self.requiresConsent = requiresConsent
            self.signInSessionLifetime = signInSessionLifetime
            self.displayName = displayName
            self.loginPageNote = loginPageNote
            self.limits = limits
        }

        /// The most the provider keeps of each kind of state. When a table is full, expired
        /// entries go first, then the oldest.
        public struct Limits: Sendable, Hashable {
            /// Authorizations waiting for the person (login or consent pages open). Default 1000.
            public var pendingAuthorizations: Int
            /// Browsers the provider knows (session cookies). Default 1000.
            public var browsers: Int
            /// Authorization codes issued and not yet expired. Default 1000.
            public var authorizationCodes: Int
            /// Device authorizations in progress. Default 1000.
            public var deviceAuthorizations: Int
            /// Grants with live tokens (each a family of access and refresh tokens). Default 10 000.
            public var tokenFamilies: Int
            /// Entries in the request log. Default 10 000.
            public var loggedRequests: Int

            /// Creates limits; every parameter has the default its property describes.
            public init(
                pendingAuthorizations: Int = 1000, browsers: Int = 1000, authorizationCodes: Int = 1000,
                deviceAuthorizations: Int = 1000, tokenFamilies: Int = 10_000, loggedRequests: Int = 10_000
            ) {
                self.pendingAuthorizations = pendingAuthorizations
                self.browsers = browsers
                self.authorizationCodes = authorizationCodes
                self.deviceAuthorizations = deviceAuthorizations
                self.tokenFamilies = tokenFamilies
                self.loggedRequests = loggedRequests
            }
        }

        /// The configuration if it is usable, else the first problem found.
        func validated() throws(EmbeddedProviderError) -> Configuration {
            func invalid(_ message: String) -> EmbeddedProviderError {
                EmbeddedProviderError(code: .invalidConfiguration, message: message)
            }
            var usernames = Set<String>()
            for user in users {
                guard !user.username.isEmpty, !user.subject.isEmpty else {
                    throw invalid("every user needs a username and a subject")
                }
                guard usernames.insert(user.username).inserted else {
                    throw invalid("the username '\(user.username)' is used twice")
                }
            }
            if let multiTenant {
                guard MultiTenant.isSegment(multiTenant.alias), MultiTenant.isSegment(multiTenant.tenant),
                    multiTenant.alias != multiTenant.tenant
                else {
                    throw invalid("the multi-tenant alias and tenant must be different single path segments")
                }
            }
            var clientIDs = Set<String>()
            for client in clients {
                guard !client.id.isEmpty else { throw invalid("a client has an empty client ID") }
                guard clientIDs.insert(client.id).inserted else {
                    throw invalid("the client ID '\(client.id)' is used twice")
                }
                if let secret = client.secret, secret.isEmpty {
                    throw invalid("client '\(client.id)' has an empty secret; use nil for a public client")
                }
                if let registered = client.tokenEndpointAuthMethod {
                    guard let method = ClientAuthentication.Method(rawValue: registered) else {
                        throw invalid("client '\(client.id)' registers an unknown token_endpoint_auth_method")
                    }
                    guard client.hasCredentials(for: method) else {
                        throw invalid(
                            "client '\(client.id)' registers \(registered) without the secret or key it needs")
                    }
                }
                if client.allowsClientCredentials, !client.isConfidential {
                    throw invalid("client '\(client.id)' is public and cannot use the client credentials grant")
                }
                guard !client.redirectURIs.isEmpty || client.allowsClientCredentials else {
                    throw invalid("client '\(client.id)' has no redirect URI")
                }
                for uri in client.redirectURIs where uri.scheme == nil || uri.fragment != nil {
                    throw invalid(
                        "client '\(client.id)': redirect URI '\(uri.absoluteString)' must be absolute, with no fragment"
                    )
                }
            }
            let lifetimes: [(String, Duration)] = [
                ("accessTokenLifetime", accessTokenLifetime), ("refreshTokenLifetime", refreshTokenLifetime),
                ("authorizationCodeLifetime", authorizationCodeLifetime), ("deviceCodeLifetime", deviceCodeLifetime),
                ("idTokenLifetime", idTokenLifetime), ("signInSessionLifetime", signInSessionLifetime),
            ]
            for (name, lifetime) in lifetimes where lifetime <= .zero {
                throw invalid("\(name) must be positive")
            }
            guard devicePollingInterval >= .seconds(1), devicePollingInterval.components.attoseconds == 0 else {
                throw invalid("devicePollingInterval must be a whole number of seconds, at least 1")
            }
            let bounds = [
                limits.pendingAuthorizations, limits.browsers, limits.authorizationCodes, limits.deviceAuthorizations,
                limits.tokenFamilies, limits.loggedRequests,
            ]
            guard bounds.allSatisfy({ $0 > 0 }) else { throw invalid("every limit must be positive") }
            return self
        }

        /// The registered client with `id`.
        func client(id: String) -> Client? {
            clients.first { $0.id == id }
        }

        /// The user with `username`.
        func user(username: String) -> User? {
            users.first { $0.username == username }
        }

        /// The user with `subject`.
        func user(subject: String) -> User? {
            users.first { $0.subject == subject }
        }
    }
}
