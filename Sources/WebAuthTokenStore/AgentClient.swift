// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch
public import Foundation
import WebAuthAgentProtocol
public import WebAuthCore
public import WebAuthOAuth
import WebAuthTokenFiles

/// Asks a running `webauth agent` for tokens, and tells it what to hold.
///
/// The agent listens on a Unix socket: `WEBAUTH_AGENT_SOCK` when set, else
/// `$XDG_RUNTIME_DIR/webauth/agent.sock`. Only a socket served by this user (or root) is
/// asked. Each call is one request and one answer, within a few seconds (a minute more when
/// the agent asks the person to confirm).
///
/// ``TokenStores`` asks the agent first (see ``TokenStores/agent``):
///
/// ```swift
/// let agent = AgentClient()
/// if case .tokens(let tokens) = try await agent.tokens(profile: "work") {
///     print(tokens.accessToken)
/// }
/// ```
///
/// It also gives tokens for another audience or resource, exchanged for the profile's (RFC 8693)
/// in the agent and kept there until they expire:
///
/// ```swift
/// let target = ExchangeTarget(audience: "https://api.example.com", scopes: ["read"])
/// if case .tokens(let api) = try await agent.tokens(profile: "work", exchangedFor: target) {
///     print(api.tokens.accessToken)
/// }
/// ```
public struct AgentClient: Sendable, Hashable {
    /// The socket's path.
    public let socketPath: String
    /// Whether `WEBAUTH_AGENT_SOCK` named it.
    public let isNamed: Bool

    /// The agent of `environment` (see the type's description).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let socket = AgentSocketPath(environment: environment)
        socketPath = socket.path
        isNamed = socket.isNamed
    }

    /// The agent listening at `socketPath`.
    public init(socketPath: String) {
        self.socketPath = socketPath
        isNamed = true
    }

    /// A token from the agent, with what the credential helpers print beside it.
    public struct Tokens: Sendable, Hashable {
        /// The access token, its type and expiry, and the ID token (with its claims) when there
        /// is one. There is never a refresh token: that stays in the agent.
        public let tokens: TokenSet
        /// The client configuration's `name`, if it has one.
        public let providerName: String?
        /// The host of the provider's token endpoint, if known.
        public let tokenEndpointHost: String?
        /// The provider's issuer, if the profile's configuration names one.
        public var issuer: URL? = nil
        /// The client the token was issued to, if the agent said.
        public var clientID: String? = nil
    }

    /// What the agent answered for a profile's token.
    public enum TokenAnswer: Sendable, Hashable {
        /// The tokens.
        case tokens(Tokens)
        /// The agent cannot answer for the profile — it does not run, does not hold it, or
        /// cannot give what was asked — and why, for a person: ask the store.
        case notAnswered(String)
    }

    /// Why the agent refused, or failed, a request.
    public struct Failure: WebAuthError {
        /// What kind of refusal.
        public enum Code: String, Sendable, Hashable, CustomStringConvertible {
            /// The person refused the confirmation.
            case confirmationRefused
            /// The provider refused the profile's refresh: sign in again.
            case refreshRefused
            /// The profile is not signed in (any more).
            case notSignedIn
            /// The profile was signed in to the agent alone, and the agent holding it stopped.
            case agentStopped
            /// No agent answers at the socket.
            case noAgent
            /// The agent's token exchange for a target failed, such as the provider's
            /// `invalid_target`: ``Failure/oauthError`` is the error the exchange failed with.
            case exchangeFailed
            /// Another failure.
            case failed

            /// The code's name, such as `notSignedIn`.
            public var description: String { rawValue }
        }

        /// What kind.
        public let code: Code
        /// A sentence for a person, without any token.
        public let message: String
        /// For ``Code/exchangeFailed``: the error the exchange failed with in the agent, as
        /// `OAuthClient.exchange` throws it (its `serverError` carries the
        /// provider's `error`, such as `invalid_target`).
        public let oauthError: OAuthError?

        /// A failure.
        public init(code: Code, message: String) {
            self.init(code: code, message: message, oauthError: nil)
        }

        /// A failure with the OAuth error behind it.
        public init(code: Code, message: String, oauthError: OAuthError?) {
            self.code = code
            self.message = message
            self.oauthError = oauthError
        }
    }

    /// A token of `profile` valid for at least `minimumValidity`, from the agent.
    ///
    /// - Returns: The tokens, or why the agent cannot answer (then ask the store).
    /// - Throws: ``Failure`` when the agent refuses: ``Failure/Code/confirmationRefused``,
    ///   ``Failure/Code/refreshRefused``, ``Failure/Code/notSignedIn``.
    public func tokens(profile: String, minimumValidity: Duration = .seconds(60)) async throws(Failure) -> TokenAnswer {
        try await tokens(AgentRequest(.token, profile: profile, minimumValidity: Self.seconds(minimumValidity)))
    }

    /// A token of `profile` for `target`, valid for at least `minimumValidity`: exchanged in the
    /// agent for the profile's access token (RFC 8693) — refreshed first when it needs to be —
    /// and kept there, so that asking again while it is valid makes no request. The agent asks
    /// for confirmation first when it runs with `--confirm`.
    ///
    /// - Returns: The tokens (no ID token, no refresh token), or why the agent cannot answer
    ///   (then ask the store; an agent of an earlier build answers so for every target).
    /// - Throws: ``Failure`` when the agent refuses: ``Failure/Code/exchangeFailed`` with the
    ///   exchange's ``Failure/oauthError``, ``Failure/Code/confirmationRefused``,
    ///   ``Failure/Code/refreshRefused``, ``Failure/Code/notSignedIn``.
    public func tokens(
        profile: String, exchangedFor target: ExchangeTarget, minimumValidity: Duration = .seconds(60)
    ) async throws(Failure) -> TokenAnswer {
        try await tokens(
            AgentRequest(
                .token, profile: profile, minimumValidity: Self.seconds(minimumValidity),
                scopes: target.scopes.isEmpty ? nil : target.scopes, audience: target.audience,
                resource: target.resource?.absoluteString))
    }

    private func tokens(_ request: AgentRequest) async throws(Failure) -> TokenAnswer {
        let answer: AgentAnswer
        switch await exchange(request, timeout: AgentProtocol.confirmationTimeout) {
        case .success(let received): answer = received
        case .failure(let failure): return .notAnswered(Self.describe(failure, path: socketPath))
        }
        if let token = answer.token, answer.ok {
            var claims: IDTokenClaims?
            if let named = token.idTokenClaims, let expiresAt = token.idTokenExpiresAt {
                claims = IDTokenClaims(
                    issuer: named.issuer, subject: named.subject, audience: named.audience,
                    expiresAt: Date(timeIntervalSince1970: expiresAt),
                    issuedAt: Date(timeIntervalSince1970: named.issuedAt))
            }
            let tokens = TokenSet(
                accessToken: token.accessToken, tokenType: token.tokenType, refreshToken: nil, idToken: token.idToken,
                idTokenClaims: claims, expiresAt: token.expiresAt.map { Date(timeIntervalSince1970: $0) },
                scopes: token.scopes ?? [])
            return .tokens(
                Tokens(
                    tokens: tokens, providerName: token.providerName, tokenEndpointHost: token.tokenEndpointHost,
                    issuer: token.issuer.flatMap(URL.init(string:)), clientID: token.clientID))
        }
        let error = answer.error ?? AgentAnswer.Failure(code: .failed, message: "the agent gave no token")
        switch error.code {
        case .confirmationRefused: throw Failure(code: .confirmationRefused, message: error.message)
        case .refreshRefused: throw Failure(code: .refreshRefused, message: error.message)
        case .notSignedIn: throw Failure(code: .notSignedIn, message: error.message)
        case .exchangeFailed:
            throw Failure(
                code: .exchangeFailed, message: error.message,
                oauthError: error.oauth.map { Self.oauthError($0, message: error.message) })
        case .notHeld, .unsupported, .failed, .badRequest, .version, .notServedHere:
            return .notAnswered("the agent at \(socketPath) did not answer for it: \(error.message)")
        }
    }

    /// Makes the agent hold `profile` from the token store `store` (`automatic`, `file` or
    /// `keyring`); it refreshes it ahead of time and writes rotated tokens back there.
    ///
    /// - Parameters:
    ///   - profile: The stored profile.
    ///   - store: The store it is in: `automatic`, `file` or `keyring`.
    ///   - lifetime: Forget it after this long; `nil`: the agent's `--lifetime`.
    ///   - forward: Serve its tokens on the agent's forwarding socket too, the one meant for
    ///     `ssh -R` and containers; a profile added without it is not seen there.
    public func add(
        profile: String, store: String = "automatic", lifetime: Duration? = nil, forward: Bool = false
    ) async throws(Failure) {
        try await simple(
            AgentRequest(
                .add, profile: profile, store: store, lifetime: lifetime.map(Self.seconds),
                forward: forward ? true : nil))
    }

    /// Makes the agent hold `entry` as `profile`, in memory only: nothing is written to a store.
    ///
    /// The agent refreshes it from the entry's issuer, found by discovery: an entry that names
    /// endpoints, a key file or a client registration is refused, by this call and by the agent
    /// (the rule is `AgentOnlyEntryRule`), and the token endpoint recorded beside the
    /// configuration is not sent.
    ///
    /// - Parameters:
    ///   - profile: The profile's name in the agent.
    ///   - entry: The tokens and the client configuration that refreshes them.
    ///   - lifetime: Forget it after this long; `nil`: the agent's `--lifetime`.
    ///   - forward: Serve its tokens on the agent's forwarding socket too.
    public func add(
        profile: String, entry: StoredTokens, lifetime: Duration? = nil, forward: Bool = false
    ) async throws(Failure) {
        let entry = AgentOnlyEntryRule.prepared(entry)
        if let problem = AgentOnlyEntryRule.problem(in: entry) {
            throw Failure(code: .failed, message: "profile \"\(profile)\" cannot be given to the agent: \(problem)")
        }
        guard let data = try? TokenEntryFormat.encoder().encode(entry) else {
            throw Failure(code: .failed, message: "the tokens of profile \"\(profile)\" cannot be encoded")
        }
        try await simple(
            AgentRequest(
                .add, profile: profile, entry: String(decoding: data, as: UTF8.self),
                lifetime: lifetime.map(Self.seconds), forward: forward ? true : nil))
    }

    /// Makes the agent forget `profile`.
    public func remove(profile: String) async throws(Failure) {
        try await simple(AgentRequest(.remove, profile: profile))
    }

    /// Stops the agent.
    public func stop() async throws(Failure) {
        try await simple(AgentRequest(.stop))
    }

    /// What the agent holds, without any token: its process ID, whether it confirms, and its
    /// profiles.
    public func status() async throws(Failure) -> AgentStatus {
        let answer = try await checked(AgentRequest(.status))
        guard let status = answer.status else { throw Failure(code: .failed, message: "the agent gave no status") }
        return AgentStatus(
            processID: status.processID, confirms: status.confirms,
            profiles: status.profiles.map {
                AgentStatus.Profile(
                    name: $0.name, source: $0.source, expiresAt: $0.expiresAt.map(Date.init(timeIntervalSince1970:)),
                    forgetAt: $0.forgetAt.map(Date.init(timeIntervalSince1970:)),
                    lastUsedAt: $0.lastUsedAt.map(Date.init(timeIntervalSince1970:)), refused: $0.refused,
                    forwarded: $0.forwarded ?? false)
            }, forwardingSocket: status.forwardingSocket)
    }

    private func simple(_ request: AgentRequest) async throws(Failure) {
        _ = try await checked(request)
    }

    private func checked(_ request: AgentRequest) async throws(Failure) -> AgentAnswer {
        switch await exchange(request, timeout: AgentProtocol.defaultTimeout) {
        case .success(let answer):
            guard answer.ok else {
                let error = answer.error ?? AgentAnswer.Failure(code: .failed, message: "the agent refused")
                let code: Failure.Code =
                    switch error.code {
                    case .notSignedIn: .notSignedIn
                    case .confirmationRefused: .confirmationRefused
                    default: .failed
                    }
                throw Failure(code: code, message: error.message)
            }
            return answer
        case .failure(.noAgent):
            throw Failure(code: .noAgent, message: "no agent listens on \(socketPath)")
        case .failure(let failure):
            throw Failure(code: .failed, message: Self.describe(failure, path: socketPath))
        }
    }

    private func exchange(_ request: AgentRequest, timeout: Duration) async -> Result<
        AgentAnswer, AgentConnection.Failure
    > {
        let path = socketPath
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: AgentConnection.exchange(request, path: path, timeout: timeout))
            }
        }
    }

    /// The error an exchange failed with in the agent, as the exchange would have thrown it here.
    static func oauthError(_ failure: AgentAnswer.OAuthFailure, message: String) -> OAuthError {
        let server = failure.error.map {
            OAuthServerError(
                code: OAuthServerError.Code(rawValue: $0), rawDescription: failure.errorDescription, endpoint: .token)
        }
        return OAuthError(
            code: server == nil ? OAuthError.Code(rawValue: failure.code) : .server, message: message,
            serverError: server)
    }

    static func describe(_ failure: AgentConnection.Failure, path: String) -> String {
        switch failure {
        case .noAgent: "no agent listens on \(path)"
        case .anotherUser(let owner):
            "the socket \(path) is served by another user (uid \(owner.map(String.init) ?? "unknown")); it was not asked"
        case .noAnswer: "the agent on \(path) did not answer"
        case .badAnswer: "the agent on \(path) answered in another protocol version"
        case .unreachable: "the agent socket \(path) cannot be reached"
        case .untrusted(let problem): "the agent socket \(path) was not asked: \(problem)"
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What a running agent holds (``AgentClient/status()``): never a token.
public struct AgentStatus: Sendable, Hashable {
    /// The agent's process ID.
    public let processID: Int32
    /// Whether it asks before handing out each token.
    public let confirms: Bool
    /// The held profiles, by name.
    public let profiles: [Profile]
    /// The agent's forwarding socket, which serves tokens of forwarded profiles only; `nil`
    /// when it serves none (an agent of an earlier build, or one systemd passed one socket).
    public var forwardingSocket: String? = nil

    /// One held profile.
    public struct Profile: Sendable, Hashable {
        /// The profile's name.
        public let name: String
        /// `store` or `agent-only`.
        public let source: String
        /// When its access token expires.
        public let expiresAt: Date?
        /// When the agent forgets it.
        public let forgetAt: Date?
        /// When a token of it was last handed out.
        public let lastUsedAt: Date?
        /// Whether the provider refused its refresh.
        public let refused: Bool
        /// Whether its tokens are served on the forwarding socket too.
        public var forwarded: Bool = false
    }
}
