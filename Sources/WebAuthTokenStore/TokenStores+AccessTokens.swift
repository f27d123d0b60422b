// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore
public import WebAuthOAuth

extension TokenStores {
    /// An `AccessTokenProvider` for `profile`: it refreshes with the client configuration
    /// stored with the tokens, under the profile's lock, and stores what it gets — safe with
    /// any number of tasks and processes using the profile at once (see ``StoredProfile``).
    ///
    /// ```swift
    /// let provider = try await TokenStores().accessTokenProvider(profile: "work")
    /// request.setValue("Bearer \(try await provider.accessToken())", forHTTPHeaderField: "Authorization")
    /// ```
    ///
    /// - Parameters:
    ///   - profile: The profile, saved with its configuration (``StoredTokens/init(tokens:configuration:savedAt:)``).
    ///   - refreshMargin: How long before expiry to refresh. Default 60 s.
    /// - Throws: ``TokenStoreError/Code/notSignedIn``, ``TokenStoreError/Code/noConfiguration``
    ///   for an entry saved without its configuration, another ``TokenStoreError`` when the
    ///   stores cannot be read, or `OAuthError` when the stored configuration is not valid.
    public func accessTokenProvider(
        profile: String, refreshMargin: Duration = .seconds(60)
    ) async throws -> AccessTokenProvider {
        guard let (_, entry) = try await find(profile: profile) else { throw TokenStoreError.notSignedIn(profile) }
        guard let configuration = entry.configuration else {
            throw TokenFreshness.CannotRefresh.noConfiguration.error(profile: profile)
        }
        return AccessTokenProvider(
            client: try OAuthClient(configuration: configuration), tokens: entry.tokens,
            refreshMargin: refreshMargin, persistence: StoredProfile(profile, in: self))
    }

    /// The tokens of `profile` with an access token valid for at least `minimumValidity`: as
    /// stored when they are (read without the lock or the network), else refreshed under the
    /// profile's lock and stored, as ``accessTokenProvider(profile:refreshMargin:)`` does. Made
    /// for programs that run once per token, such as `webauth token`.
    ///
    /// - Throws: ``TokenStoreError/Code/notSignedIn``, ``TokenStoreError/Code/noRefreshToken``
    ///   and ``TokenStoreError/Code/noConfiguration`` when it cannot be refreshed, another
    ///   ``TokenStoreError`` when it cannot be read or stored, `OAuthError` when the refresh
    ///   fails.
    public func freshTokens(profile: String, minimumValidity: Duration = .seconds(60)) async throws -> TokenSet {
        try await freshTokens(profile: profile, minimumValidity: minimumValidity, fallingBack: { _ in })
    }

    /// As ``freshTokens(profile:minimumValidity:)``, asking ``agent`` first: its token when it
    /// holds the profile, else the stores', after telling `fallingBack` why the agent did not
    /// answer. A profile the agent alone held (`webauth login --agent-only`), with that agent
    /// gone, is ``AgentClient/Failure/Code/agentStopped``.
    ///
    /// - Throws: What ``freshTokens(profile:minimumValidity:)`` throws, and
    ///   ``AgentClient/Failure`` when the agent refuses.
    public func freshTokens(
        profile: String, minimumValidity: Duration = .seconds(60), fallingBack: (String) -> Void
    ) async throws -> TokenSet {
        try await agentOrStoredTokens(profile: profile, minimumValidity: minimumValidity, fallingBack: fallingBack)
            .tokens
    }

    /// As ``freshTokens(profile:minimumValidity:fallingBack:)``, saying whether the agent
    /// answered, with what it gives beside the token (`agent` is `nil` when the stores did).
    public func agentOrStoredTokens(
        profile: String, minimumValidity: Duration = .seconds(60), fallingBack: (String) -> Void = { _ in }
    ) async throws -> (tokens: TokenSet, agent: AgentClient.Tokens?) {
        if let agent {
            switch try await agent.tokens(profile: profile, minimumValidity: minimumValidity) {
            case .tokens(let answer): return (answer.tokens, answer)
            case .notAnswered(let reason): fallingBack(reason)
            }
        }
        return (try await storedFreshTokens(profile: profile, minimumValidity: minimumValidity), nil)
    }

    private func storedFreshTokens(profile: String, minimumValidity: Duration) async throws -> TokenSet {
        guard let (_, entry) = try await find(profile: profile) else { throw notFound(profile) }
        switch TokenFreshness.of(entry, now: Date(), minimumValidity: minimumValidity) {
        case .fresh:
            return entry.tokens
        case .cannotRefresh(let reason):
            throw reason.error(profile: profile)
        case .needsRefresh(let configuration):
            let client = try OAuthClient(configuration: configuration)
            // Discover before taking the lock, so that it is held only for the refresh itself.
            _ = try await client.metadata()
            let provider = AccessTokenProvider(
                client: client, tokens: entry.tokens, refreshMargin: minimumValidity,
                persistence: StoredProfile(profile, in: self))
            return try await provider.freshTokens()
        }
    }

    /// The error for a profile the stores do not have: not signed in, or — for a profile the
    /// agent alone held (`webauth login --agent-only`) — ``AgentClient/Failure/Code/agentStopped``.
    private func notFound(_ profile: String) -> any Error {
        if let agent, AgentOnlyProfiles(socketPath: agent.socketPath).contains(profile) {
            return AgentClient.Failure(
                code: .agentStopped,
                message:
                    "profile \"\(profile)\" was signed in to the agent only, and the agent holding it (\(agent.socketPath)) stopped"
            )
        }
        return TokenStoreError.notSignedIn(profile)
    }

    /// A token for `target`, obtained by exchanging `profile`'s access token (RFC 8693) and
    /// kept with the profile (``StoredTokens/exchangedTokens``): the kept one while it is valid
    /// for at least `minimumValidity` (read without the lock or the network), else a new
    /// exchange — of the profile's access token, refreshed first when it needs to be — whose
    /// result is kept in place of the old one.
    ///
    /// ``agent`` is asked first, as ``freshTokens(profile:minimumValidity:fallingBack:)`` does:
    /// when it holds the profile, the exchange is its own and its token is kept in its memory,
    /// not in the store (see ``AgentClient/tokens(profile:exchangedFor:minimumValidity:)``).
    ///
    /// ```swift
    /// let api = try await TokenStores().freshTokens(
    ///     profile: "work", exchangedFor: ExchangeTarget(audience: "https://api.example.com"))
    /// print(api.accessToken)
    /// ```
    ///
    /// A token that could not be kept (the store failed to write) is still returned, and the
    /// failure logged: the next call exchanges again.
    ///
    /// - Throws: what ``freshTokens(profile:minimumValidity:fallingBack:)`` throws for the
    ///   profile's own tokens; `OAuthError` when the provider refuses the exchange
    ///   (`invalid_target` for an audience or resource it does not serve), whether the agent or
    ///   this process asked it.
    public func freshTokens(
        profile: String, exchangedFor target: ExchangeTarget, minimumValidity: Duration = .seconds(60)
    ) async throws -> TokenSet {
        try await freshTokens(
            profile: profile, exchangedFor: target, minimumValidity: minimumValidity, fallingBack: { _ in })
    }

    /// As ``freshTokens(profile:exchangedFor:minimumValidity:)``, telling `fallingBack` why
    /// the agent did not answer before the stores are asked.
    public func freshTokens(
        profile: String, exchangedFor target: ExchangeTarget, minimumValidity: Duration = .seconds(60),
        fallingBack: (String) -> Void
    ) async throws -> TokenSet {
        if let agent {
            let answer: AgentClient.TokenAnswer
            do {
                answer = try await agent.tokens(
                    profile: profile, exchangedFor: target, minimumValidity: minimumValidity)
            } catch {
                // A failed exchange is the error it is when this process asks the provider.
                if error.code == .exchangeFailed, let oauthError = error.oauthError { throw oauthError }
                throw error
            }
            switch answer {
            case .tokens(let answer): return answer.tokens
            case .notAnswered(let reason): fallingBack(reason)
            }
        }
        guard let (store, entry) = try await find(profile: profile) else { throw notFound(profile) }
        if let kept = entry.exchangedToken(for: target, minimumValidity: minimumValidity) { return kept.tokens }
        // A refresh below changes the tokens only, never the configuration read here.
        guard let configuration = entry.configuration else {
            throw TokenFreshness.CannotRefresh.noConfiguration.error(profile: profile)
        }
        let subject = try await storedFreshTokens(profile: profile, minimumValidity: minimumValidity)
        let exchanged = try await OAuthClient(configuration: configuration).exchange(
            subjectToken: subject.accessToken, subjectTokenType: .accessToken, audience: target.audience,
            resource: target.resource, scopes: target.scopes)
        let kept = StoredExchange(target: target, tokens: exchanged.tokens, issuedTokenType: exchanged.issuedTokenType)
        do {
            _ = try await store.update(profile: profile) { stored in
                guard var stored else { throw TokenStoreError.notSignedIn(profile) }
                stored.keep(kept)
                return stored
            }
        } catch {
            logger.warning(
                "the token for \(target) was not kept with profile \"\(profile)\": \(error)")
        }
        return exchanged.tokens
    }
}
