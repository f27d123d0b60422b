// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthAgentProtocol
import WebAuthCore
import WebAuthOAuth
import WebAuthPlatform
import WebAuthTokenStore

extension AgentService {
    /// What the agent keeps for target requests: the exchanged tokens, and the exchanges under
    /// way (one per profile and target, shared by every request that needs it).
    struct ExchangeState: Sendable {
        /// The exchanged tokens kept in memory.
        var kept = AgentExchanges()
        /// The exchanges under way, by profile and target.
        var running: [Key: (id: Int, task: Task<ExchangedToken, any Error>)] = [:]
        /// How many exchanges were started, to tell them apart.
        var count = 0

        /// A profile and a target.
        struct Key: Hashable {
            var profile: String
            var target: ExchangeTarget
        }
    }

    /// The target a `token` request names, or why it cannot be used; `nil` when it names none.
    static func target(of request: AgentRequest) -> Result<ExchangeTarget, AgentAnswer.Failure>? {
        let scopes = request.scopes ?? []
        guard request.audience != nil || request.resource != nil else {
            return scopes.isEmpty
                ? nil : .failure(.init(code: .badRequest, message: "scopes need an audience or a resource"))
        }
        if let audience = request.audience,
            audience.isEmpty || audience.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            return .failure(.init(code: .badRequest, message: "the audience must be a name without control characters"))
        }
        var resource: URL?
        if let text = request.resource {
            guard let url = URL(string: text), url.scheme != nil, url.fragment == nil else {
                return .failure(
                    .init(code: .badRequest, message: "the resource must be an absolute URI without a fragment"))
            }
            resource = url
        }
        // A scope is one or more of the characters RFC 6749 §3.3 allows (no space, no quote,
        // no backslash, no control character).
        let allowed = { (scalar: Unicode.Scalar) in
            (0x21...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
        }
        guard scopes.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(allowed) }) else {
            return .failure(.init(code: .badRequest, message: "a scope is not one RFC 6749 allows"))
        }
        return .success(ExchangeTarget(audience: request.audience, resource: resource, scopes: scopes))
    }

    /// Drops the exchanged tokens of profiles no longer held (removed, or forgotten by their
    /// lifetime or idle time).
    func forgetExchangesOfProfilesNotHeld() {
        let held = holder.withLock { Set($0.profiles.keys) }
        exchangeState.kept.forgetAll { held.contains($0) }
    }

    /// The answer to a `token` request for `target`: a token exchanged (RFC 8693) for the held
    /// profile's access token — refreshed first when it is not valid for the validity asked —
    /// kept in memory and served from there while it is valid for the validity asked.
    func exchangedToken(
        _ profile: String, for target: ExchangeTarget, minimumValidity: Duration, asker: Asker, door: AgentDoor
    ) async -> AgentAnswer {
        forgetExchangesOfProfilesNotHeld()
        let time = now()
        switch holder.withLock({ $0.decide(profile: profile, minimumValidity: .zero, now: time, door: door) }) {
        case .notHeld:
            return .failure(.notHeld, "the agent does not hold profile \"\(profile)\"")
        case .refused(let reason):
            return .failure(.refreshRefused, reason)
        case .serve, .refresh:
            break
        }
        guard await confirmed(profile, asker: asker, door: door, target: target) else {
            return .failure(.confirmationRefused, "the token of profile \"\(profile)\" for \(target) was not allowed")
        }
        let tokens: TokenSet
        if let kept = exchangeState.kept.tokens(
            profile: profile, for: target, minimumValidity: minimumValidity, now: now())
        {
            tokens = kept
        } else {
            do {
                tokens = try await exchange(profile, for: target, minimumValidity: minimumValidity).tokens
            } catch let failure as AgentAnswer.Failure {
                return AgentAnswer(ok: false, error: failure)
            } catch {
                return .failure(.failed, "the token exchange of profile \"\(profile)\" failed (\(type(of: error)))")
            }
        }
        let served = now()
        holder.withLock { $0.used(profile, now: served) }
        return AgentAnswer(
            ok: true,
            token: AgentAnswer.Token(
                accessToken: tokens.accessToken, tokenType: tokens.tokenType,
                expiresAt: tokens.expiresAt?.timeIntervalSince1970, scopes: tokens.scopes.isEmpty ? nil : tokens.scopes)
        )
    }

    /// Exchanges `profile`'s access token for a token for `target` (or joins the exchange
    /// under way), and keeps what it gets while the profile is still held as it was.
    ///
    /// - Throws: ``AgentAnswer/Failure``: the refresh's failure when the profile's own token had
    ///   to be refreshed first, ``AgentAnswer/Code/exchangeFailed`` when the exchange failed.
    private func exchange(
        _ profile: String, for target: ExchangeTarget, minimumValidity: Duration
    ) async throws -> ExchangedToken {
        let key = ExchangeState.Key(profile: profile, target: target)
        if let running = exchangeState.running[key] { return try await running.task.value }
        let addedAt = holder.withLock { $0.profiles[profile]?.addedAt }
        exchangeState.count += 1
        let id = exchangeState.count
        let task = Task<ExchangedToken, any Error> {
            try await self.performExchange(profile, for: target, minimumValidity: minimumValidity)
        }
        exchangeState.running[key] = (id, task)
        defer { if exchangeState.running[key]?.id == id { exchangeState.running[key] = nil } }
        let exchanged = try await task.value
        // A profile removed, forgotten or added again meanwhile keeps nothing of this exchange.
        if let addedAt, holder.withLock({ $0.profiles[profile]?.addedAt }) == addedAt {
            exchangeState.kept.keep(
                exchanged.tokens, issuedTokenType: exchanged.issuedTokenType, profile: profile, for: target, now: now())
        }
        return exchanged
    }

    /// The exchange itself: the profile's access token, refreshed first when it is not valid
    /// for `minimumValidity` (as `TokenStores.freshTokens(profile:exchangedFor:minimumValidity:)`
    /// does), exchanged at the provider.
    private func performExchange(
        _ profile: String, for target: ExchangeTarget, minimumValidity: Duration
    ) async throws -> ExchangedToken {
        let subject: TokenSet
        let time = now()
        switch holder.withLock({ $0.decide(profile: profile, minimumValidity: minimumValidity, now: time) }) {
        case .notHeld:
            throw AgentAnswer.Failure(code: .notHeld, message: "the agent does not hold profile \"\(profile)\"")
        case .refused(let reason):
            throw AgentAnswer.Failure(code: .refreshRefused, message: reason)
        case .serve:
            guard let held = holder.withLock({ $0.profiles[profile]?.entry.tokens }) else {
                throw AgentAnswer.Failure(code: .notHeld, message: "the agent does not hold profile \"\(profile)\"")
            }
            subject = held
        case .refresh:
            do {
                subject = try await refresh(profile, margin: minimumValidity)
            } catch let failure as AgentAnswer.Failure {
                throw failure
            } catch {
                throw failure(of: error, profile: profile)
            }
        }
        guard let configuration = holder.withLock({ $0.profiles[profile]?.entry.configuration }) else {
            throw AgentAnswer.Failure(
                code: .notSignedIn,
                message: "profile \"\(profile)\" was saved without its client configuration and cannot be exchanged")
        }
        let transport = transport
        do {
            let client =
                if let transport {
                    try OAuthClient(configuration: configuration, transport: transport)
                } else {
                    try OAuthClient(configuration: configuration)
                }
            let exchanged = try await client.exchange(
                subjectToken: subject.accessToken, subjectTokenType: .accessToken, audience: target.audience,
                resource: target.resource, scopes: target.scopes)
            logger.info("exchanged the token of profile \"\(profile)\" for \(target)")
            return exchanged
        } catch {
            let server = error.code == .server ? error.serverError : nil
            logger.warning(
                "the token exchange of profile \"\(profile)\" for \(target) failed (\(server.map { $0.code.description } ?? error.code.description))"
            )
            throw AgentAnswer.Failure(
                code: .exchangeFailed, message: error.message,
                oauth: AgentAnswer.OAuthFailure(
                    code: error.code.rawValue, error: server?.code.rawValue, errorDescription: server?.safeDescription))
        }
    }
}
