// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hands out a fresh access token: the current one while it has more than ``refreshMargin``
/// left, otherwise a refreshed one. Concurrent callers share one refresh — there are never two
/// refreshes at once, so a rotated refresh token is never used twice.
///
/// Keep the tokens in a ``TokenPersistence`` and the same holds across processes: each refresh
/// runs inside ``TokenPersistence/update(_:)``, with the refresh token stored last, and takes
/// the tokens another process stored meanwhile instead of refreshing again. `WebAuthTokenStore`
/// provides one for signed-in profiles:
///
/// ```swift
/// let provider = try await TokenStores().accessTokenProvider(profile: "work")
/// ```
///
/// Or keep the tokens yourself, told of every refresh:
///
/// ```swift
/// let provider = AccessTokenProvider(client: client, tokens: tokens) { refreshed in
///     try? store.save(refreshed)          // keep the rotated refresh token
/// }
/// var request = URLRequest(url: api)
/// request.setValue("Bearer \(try await provider.accessToken())", forHTTPHeaderField: "Authorization")
/// ```
public actor AccessTokenProvider {
    /// The client that refreshes.
    public let client: OAuthClient
    /// How long before expiry a token counts as stale. Default 60 s.
    public let refreshMargin: Duration
    /// The current tokens.
    public private(set) var tokens: TokenSet

    /// Refreshes, given the tokens this provider holds now; returns the tokens to hold next.
    private let refresh: @Sendable (TokenSet) async throws -> TokenSet
    private var refreshing: Task<TokenSet, any Error>?

    /// Creates a provider that holds the tokens in memory and tells `didRefresh` of each refresh.
    ///
    /// - Parameters:
    ///   - client: The client to refresh with.
    ///   - tokens: The tokens to start from.
    ///   - refreshMargin: How long before expiry to refresh. Default 60 s.
    ///   - didRefresh: Called with every refreshed token set, before callers get it — the place
    ///     to store a rotated refresh token.
    public init(
        client: OAuthClient, tokens: TokenSet, refreshMargin: Duration = .seconds(60),
        didRefresh: @escaping @Sendable (TokenSet) async -> Void = { _ in }
    ) {
        self.client = client
        self.tokens = tokens
        self.refreshMargin = refreshMargin
        self.refresh = { current in
            let refreshed = try await client.refresh(current)
            await didRefresh(refreshed)
            return refreshed
        }
    }

    /// Creates a provider whose tokens live in `persistence`, shared with other holders: each
    /// refresh reads and stores them there, inside ``TokenPersistence/update(_:)``.
    ///
    /// When the stored tokens are not the ones this provider holds and are fresh, another holder
    /// has refreshed already: they are taken as they are, with no request to the provider.
    /// Otherwise they are refreshed — with the stored refresh token, the last one issued.
    ///
    /// - Parameters:
    ///   - client: The client to refresh with.
    ///   - tokens: The tokens to start from (read from `persistence`).
    ///   - refreshMargin: How long before expiry to refresh. Default 60 s.
    ///   - persistence: Where the tokens are kept.
    public init(
        client: OAuthClient, tokens: TokenSet, refreshMargin: Duration = .seconds(60),
        persistence: some TokenPersistence
    ) {
        self.client = client
        self.tokens = tokens
        self.refreshMargin = refreshMargin
        self.refresh = { current in
            try await persistence.update { stored in
                let replaced = stored.accessToken != current.accessToken
                if replaced, !stored.isExpired(at: client.clock.now(), margin: refreshMargin) { return stored }
                return try await client.refresh(stored)
            }
        }
    }

    /// Creates a provider for tokens something else refreshes — a token agent, say: when they
    /// are stale, or refused (``refreshNow()``), `renew` is given them and returns the tokens to
    /// hold next. Nothing is refreshed with `client`, which still tells the time and makes the
    /// proofs of DPoP-bound tokens.
    ///
    /// - Parameters:
    ///   - client: The client the tokens were issued to.
    ///   - tokens: The tokens to start from.
    ///   - refreshMargin: How long before expiry to renew. Default 60 s.
    ///   - renew: Returns the tokens to hold after the ones given.
    public init(
        client: OAuthClient, tokens: TokenSet, refreshMargin: Duration = .seconds(60),
        renewingWith renew: @escaping @Sendable (TokenSet) async throws -> TokenSet
    ) {
        self.client = client
        self.tokens = tokens
        self.refreshMargin = refreshMargin
        self.refresh = renew
    }

    /// A fresh access token, refreshing first if needed.
    ///
    /// - Throws: ``OAuthError`` when the refresh fails; with a ``TokenPersistence``, also what
    ///   it throws.
    public func accessToken() async throws -> String {
        try await freshTokens().accessToken
    }

    /// Tokens whose access token is fresh, refreshing first if needed.
    ///
    /// - Throws: ``OAuthError`` when the refresh fails; with a ``TokenPersistence``, also what
    ///   it throws.
    public func freshTokens() async throws -> TokenSet {
        if !tokens.isExpired(at: client.clock.now(), margin: refreshMargin) { return tokens }
        return try await refreshNow()
    }

    /// Refreshes now, whatever the expiry (or joins a refresh already under way) — say, after
    /// the resource server refused the access token. With a ``TokenPersistence`` whose tokens
    /// another holder has refreshed already, those are taken instead.
    ///
    /// - Throws: ``OAuthError`` when the refresh fails; with a ``TokenPersistence``, also what
    ///   it throws.
    public func refreshNow() async throws -> TokenSet {
        let task: Task<TokenSet, any Error>
        if let refreshing {
            task = refreshing
        } else {
            let refresh = refresh
            let current = tokens
            task = Task { try await refresh(current) }
            refreshing = task
        }
        do {
            let refreshed = try await task.value
            if refreshing == task {
                tokens = refreshed
                refreshing = nil
            }
            return refreshed
        } catch {
            if refreshing == task { refreshing = nil }
            throw error
        }
    }
}
