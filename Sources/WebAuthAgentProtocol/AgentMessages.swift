// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

/// The agent's wire protocol: one JSON request line from the client, one JSON answer line from
/// the agent, then the connection closes. Both carry ``version``; an agent answers a request of
/// another version with ``AgentAnswer/Code/version``.
///
/// The sizes and times are bounded on both ends: a request is at most
/// ``maximumRequestLength`` bytes, an answer at most ``maximumAnswerLength``, and a client
/// gives connecting, sending and reading ``defaultTimeout`` together (an agent that asks for a
/// confirmation takes up to ``confirmationTimeout`` more).
///
/// ```
/// → {"v":1,"op":"token","profile":"work","min_validity":60}
/// ← {"v":1,"ok":true,"token":{"access_token":"…","token_type":"Bearer","expires_at":1790000000}}
/// ```
///
/// A `token` request that names a target (``AgentRequest/audience``,
/// ``AgentRequest/resource``, with ``AgentRequest/scopes``) asks for a token exchanged for the
/// profile's (RFC 8693). The fields are optional, so the version stays 1: an agent that cannot
/// exchange answers ``AgentAnswer/Code/unsupported``, and the client asks the store.
package enum AgentProtocol {
    /// The protocol version this build speaks.
    package static let version = 1
    /// The longest request line, without its `\n` (an `add` of a whole entry fits).
    package static let maximumRequestLength = 64 * 1024
    /// The longest answer line, without its `\n`.
    package static let maximumAnswerLength = 64 * 1024
    /// How long a client waits for the agent: connecting, sending and reading together.
    package static let defaultTimeout: Duration = .seconds(5)
    /// How long a client waits to be connected, whatever the request: a socket whose listener
    /// accepts nothing (a full queue) stalls no caller for longer.
    package static let connectTimeout: Duration = .seconds(5)
    /// How long a client waits when the agent may be asking the person to confirm.
    package static let confirmationTimeout: Duration = .seconds(65)
    /// How long the agent gives a connection to send its request line.
    package static let requestTimeout: Duration = .seconds(5)
}

/// A request to the agent.
package struct AgentRequest: Codable, Sendable, Hashable {
    /// What is asked.
    package enum Operation: String, Codable, Sendable, Hashable {
        /// A token of a held profile, valid for at least ``AgentRequest/minimumValidity`` seconds;
        /// with a target (``AgentRequest/audience``, ``AgentRequest/resource``), a token
        /// exchanged for it.
        case token
        /// Hold a profile: from the store (``AgentRequest/store``) or given in
        /// ``AgentRequest/entry`` (agent-only, nothing on disk).
        case add
        /// Forget a profile.
        case remove
        /// What the agent holds (never a token).
        case status
        /// Stop the agent.
        case stop
    }

    /// The protocol version (`v`).
    package var version: Int
    /// The operation (`op`).
    package var operation: Operation
    /// The profile, for `token`, `add` and `remove`.
    package var profile: String?
    /// `token`: how many seconds the access token must stay valid (`min_validity`).
    package var minimumValidity: Double?
    /// `token` with a target: the scopes to ask the exchange for (none: what the provider
    /// decides). Given without ``audience`` or ``resource``, the request is refused.
    package var scopes: [String]?
    /// `token`: the audience to exchange the profile's access token for (RFC 8693 `audience`).
    package var audience: String?
    /// `token`: the resource to exchange the profile's access token for (RFC 8693 `resource`,
    /// an absolute URI without a fragment).
    package var resource: String?
    /// `add` from the store: which store (`automatic`, `file` or `keyring`).
    package var store: String?
    /// `add --agent-only`: the entry, in the token store's entry format (its JSON text).
    package var entry: String?
    /// `add`: forget the profile this many seconds after it is added (overrides the agent's).
    package var lifetime: Double?
    /// `add`: also serve the profile's tokens on the agent's forwarding socket (see
    /// ``AgentSocketPath/forwardingPath``), which serves nothing else.
    package var forward: Bool?

    enum CodingKeys: String, CodingKey {
        case version = "v"
        case operation = "op"
        case profile
        case minimumValidity = "min_validity"
        case scopes, audience, resource, store, entry, lifetime, forward
    }

    /// A request of `operation`, in this build's ``AgentProtocol/version``.
    package init(
        _ operation: Operation, profile: String? = nil, minimumValidity: Double? = nil, scopes: [String]? = nil,
        audience: String? = nil, resource: String? = nil, store: String? = nil, entry: String? = nil,
        lifetime: Double? = nil, forward: Bool? = nil
    ) {
        self.version = AgentProtocol.version
        self.operation = operation
        self.profile = profile
        self.minimumValidity = minimumValidity
        self.scopes = scopes
        self.audience = audience
        self.resource = resource
        self.store = store
        self.entry = entry
        self.lifetime = lifetime
        self.forward = forward
    }

    /// The line of a request with nothing but an operation, a profile and a finite minimum
    /// validity (the fast path's), written directly in the encoder's form: `JSONEncoder`'s first
    /// use in a process costs runtime type and conformance lookups that the fast path avoids.
    /// `nil` for any other request.
    package func plainLine() -> [UInt8]? {
        guard scopes == nil, audience == nil, resource == nil, store == nil, entry == nil, lifetime == nil,
            forward == nil, minimumValidity?.isFinite ?? true
        else { return nil }
        var line = "{"
        if let minimumValidity {
            let isWhole = minimumValidity.rounded() == minimumValidity && abs(minimumValidity) < 9_007_199_254_740_992
            line += #""min_validity":"# + (isWhole ? String(Int64(minimumValidity)) : "\(minimumValidity)") + ","
        }
        line += #""op":""# + operation.rawValue + #"","#
        if let profile { line += #""profile":"# + JSONText.quoted(profile) + "," }
        line += #""v":"# + String(version) + "}\n"
        return Array(line.utf8)
    }

    /// What a request line reads as (`read(_:)`, which the token store adds: it reads with
    /// `JSONDecoder`, which the fast path's program does not carry).
    package enum Reading: Sendable, Hashable {
        /// A request of this build's ``AgentProtocol/version``.
        case request(AgentRequest)
        /// A request of another version, whatever else it holds.
        case otherVersion(Int)
        /// Not one JSON line of the protocol (or longer than ``AgentProtocol/maximumRequestLength``).
        case unreadable
    }
}

/// The agent's answer: a token, a status, a plain success, or a typed failure. Never a token in
/// a failure's message or a status.
package struct AgentAnswer: Codable, Sendable, Hashable {
    /// The protocol version (`v`).
    package var version: Int
    /// Whether the request was done.
    package var ok: Bool
    /// For `token`: the token.
    package var token: Token?
    /// For `status`: what the agent holds.
    package var status: Status?
    /// When not `ok`: why.
    package var error: Failure?

    enum CodingKeys: String, CodingKey {
        case version = "v"
        case ok, token, status, error
    }

    /// A token answer: the access token with what the helpers print beside it.
    package struct Token: Codable, Sendable, Hashable {
        /// The access token.
        package var accessToken: String
        /// Its type, such as `Bearer`.
        package var tokenType: String
        /// When it expires, in seconds since 1970; `nil` when the provider did not say.
        package var expiresAt: Double?
        /// The ID token, if the profile has one.
        package var idToken: String?
        /// When the ID token expires (its `exp`), in seconds since 1970.
        package var idTokenExpiresAt: Double?
        /// The client configuration's `name`, for git's conventional user name.
        package var providerName: String?
        /// The host of the token endpoint, for git's conventional user name.
        package var tokenEndpointHost: String?
        /// The ID token's validated claims that name it (`iss`, `sub`, `aud`, `iat`), when there
        /// is an ID token; its `exp` is ``idTokenExpiresAt``.
        package var idTokenClaims: IDClaims?
        /// The scopes granted, when the agent knows them (an exchanged token's).
        package var scopes: [String]?
        /// The provider's issuer, as the profile's client configuration names it.
        package var issuer: String?
        /// The client the token was issued to (`client_id`): with ``issuer``, what a program that
        /// has no configuration of its own needs to name the client (never a secret or a key).
        package var clientID: String?

        /// The claims of an ID token the agent validated when it was issued.
        package struct IDClaims: Codable, Sendable, Hashable {
            /// `iss`.
            package var issuer: String
            /// `sub`.
            package var subject: String
            /// `aud`.
            package var audience: [String]
            /// `iat`, in seconds since 1970.
            package var issuedAt: Double

            enum CodingKeys: String, CodingKey {
                case issuer = "iss"
                case subject = "sub"
                case audience = "aud"
                case issuedAt = "iat"
            }

            /// Claims.
            package init(issuer: String, subject: String, audience: [String], issuedAt: Double) {
                self.issuer = issuer
                self.subject = subject
                self.audience = audience
                self.issuedAt = issuedAt
            }
        }

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresAt = "expires_at"
            case idToken = "id_token"
            case idTokenExpiresAt = "id_token_expires_at"
            case providerName = "provider_name"
            case tokenEndpointHost = "token_endpoint_host"
            case idTokenClaims = "id_token_claims"
            case scopes, issuer
            case clientID = "client_id"
        }

        /// A token answer.
        package init(
            accessToken: String, tokenType: String, expiresAt: Double?, idToken: String? = nil,
            idTokenExpiresAt: Double? = nil, providerName: String? = nil, tokenEndpointHost: String? = nil,
            idTokenClaims: IDClaims? = nil, scopes: [String]? = nil, issuer: String? = nil, clientID: String? = nil
        ) {
            self.idTokenClaims = idTokenClaims
            self.scopes = scopes
            self.issuer = issuer
            self.clientID = clientID
            self.accessToken = accessToken
            self.tokenType = tokenType
            self.expiresAt = expiresAt
            self.idToken = idToken
            self.idTokenExpiresAt = idTokenExpiresAt
            self.providerName = providerName
            self.tokenEndpointHost = tokenEndpointHost
        }
    }

    /// What the agent holds.
    package struct Status: Codable, Sendable, Hashable {
        /// The agent's process ID.
        package var processID: Int32
        /// Whether it asks before handing out each token.
        package var confirms: Bool
        /// The profiles, by name.
        package var profiles: [Profile]
        /// The forwarding socket's path, when the agent serves one.
        package var forwardingSocket: String?

        enum CodingKeys: String, CodingKey {
            case processID = "pid"
            case confirms = "confirm"
            case profiles
            case forwardingSocket = "forwarding_socket"
        }

        /// A status.
        package init(processID: Int32, confirms: Bool, profiles: [Profile], forwardingSocket: String? = nil) {
            self.processID = processID
            self.confirms = confirms
            self.profiles = profiles
            self.forwardingSocket = forwardingSocket
        }

        /// One held profile, without any token.
        package struct Profile: Codable, Sendable, Hashable {
            /// The profile's name.
            package var name: String
            /// Where it came from: `store` (a stored profile, refreshed back into it) or
            /// `agent-only` (signed in to the agent alone).
            package var source: String
            /// When its access token expires, in seconds since 1970.
            package var expiresAt: Double?
            /// When the agent forgets it (its lifetime), in seconds since 1970.
            package var forgetAt: Double?
            /// When a token of it was last handed out, in seconds since 1970.
            package var lastUsedAt: Double?
            /// Whether the provider refused its refresh (it must be signed in again).
            package var refused: Bool
            /// Whether its tokens are served on the forwarding socket too (`nil`: an agent of an
            /// earlier build, which has none).
            package var forwarded: Bool?

            enum CodingKeys: String, CodingKey {
                case name, source, refused, forwarded
                case expiresAt = "expires_at"
                case forgetAt = "forget_at"
                case lastUsedAt = "last_used_at"
            }

            /// A held profile.
            package init(
                name: String, source: String, expiresAt: Double?, forgetAt: Double?, lastUsedAt: Double?,
                refused: Bool, forwarded: Bool? = nil
            ) {
                self.name = name
                self.source = source
                self.expiresAt = expiresAt
                self.forgetAt = forgetAt
                self.lastUsedAt = lastUsedAt
                self.refused = refused
                self.forwarded = forwarded
            }
        }
    }

    /// Why a request was not done.
    package enum Code: String, Codable, Sendable, Hashable {
        /// The agent does not hold the profile: ask the store.
        case notHeld
        /// The person refused the confirmation (exit 9 at the asker).
        case confirmationRefused
        /// The provider refused the profile's refresh (exit 9): sign in again.
        case refreshRefused
        /// The profile's token expired and cannot be refreshed (exit 8).
        case notSignedIn
        /// The request could not be read, or named nothing valid.
        case badRequest
        /// The socket the request came in on does not serve it: the forwarding socket serves
        /// tokens of forwarded profiles only.
        case notServedHere
        /// The request's protocol version is not the agent's.
        case version
        /// The agent holds the profile but cannot give what was asked (a longer validity than
        /// the provider gives; for an agent of an earlier build, any target): ask the store.
        case unsupported
        /// The token exchange for a target failed at the provider, such as `invalid_target`
        /// (``Failure/oauth`` says how): the asker fails as the exchange would have failed there.
        case exchangeFailed
        /// Another failure (such as a provider that cannot be reached and an expired token).
        case failed
    }

    /// A typed failure with a message that quotes no token.
    package struct Failure: Codable, Sendable, Hashable {
        /// What kind of failure.
        package var code: Code
        /// A sentence for a person.
        package var message: String
        /// For ``Code/exchangeFailed``: the OAuth error the exchange failed with.
        package var oauth: OAuthFailure?

        /// A failure.
        package init(code: Code, message: String, oauth: OAuthFailure? = nil) {
            self.code = code
            self.message = message
            self.oauth = oauth
        }
    }

    /// How an OAuth operation in the agent failed, so that the asker can fail with the same
    /// error: the error's code name (such as `server` or `transportFailed`) and, when the
    /// provider answered with an error, its `error` and `error_description` (made safe to show).
    package struct OAuthFailure: Codable, Sendable, Hashable {
        /// The OAuth error's code name.
        package var code: String
        /// The provider's `error`, such as `invalid_target`.
        package var error: String?
        /// The provider's `error_description`, made safe to show.
        package var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case code, error
            case errorDescription = "error_description"
        }

        /// An OAuth failure.
        package init(code: String, error: String? = nil, errorDescription: String? = nil) {
            self.code = code
            self.error = error
            self.errorDescription = errorDescription
        }
    }

    /// A plain success.
    package static let done = AgentAnswer(ok: true)

    /// An answer.
    package init(ok: Bool, token: Token? = nil, status: Status? = nil, error: Failure? = nil) {
        self.version = AgentProtocol.version
        self.ok = ok
        self.token = token
        self.status = status
        self.error = error
    }

    /// A failure answer.
    package static func failure(_ code: Code, _ message: String) -> AgentAnswer {
        AgentAnswer(ok: false, error: Failure(code: code, message: message))
    }

    /// Reads an answer line with ``AgentAnswerReader`` alone, the fast path's reading: `nil`
    /// also for a line it leaves to `JSONDecoder`, which the full program then reads.
    package init?(reading line: [UInt8]) {
        guard line.count <= AgentProtocol.maximumAnswerLength,
            let answer = line.withUnsafeBytes({ AgentAnswerReader.answer($0) })
        else { return nil }
        self.init(checking: answer)
    }

    /// `answer`, when it is of this version and either a success or a failure with its reason.
    package init?(checking answer: AgentAnswer) {
        guard answer.version == AgentProtocol.version, answer.ok || answer.error != nil else { return nil }
        self = answer
    }

}
