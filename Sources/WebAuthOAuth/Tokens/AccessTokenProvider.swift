import Foundation

/// Hands out a fresh access token: the current one while it has more than ``refreshMargin``
/// left, otherwise a refreshed one. Concurrent callers share one refresh — there are never two
/// refreshes at once, so a rotated refresh token is never used twice.
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

    private let didRefresh: @Sendable (TokenSet) async -> Void
    private var refreshing: Task<TokenSet, any Error>?

    /// Creates a provider.
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
        self.didRefresh = didRefresh
    }

    /// A fresh access token, refreshing first if needed.
    public func accessToken() async throws(OAuthError) -> String {
        try await freshTokens().accessToken
    }

    /// Tokens whose access token is fresh, refreshing first if needed.
    public func freshTokens() async throws(OAuthError) -> TokenSet {
        if !tokens.isExpired(at: client.clock.now(), margin: refreshMargin) { return tokens }
        return try await refreshNow()
    }

    /// Refreshes now, whatever the expiry (or joins a refresh already under way).
    public func refreshNow() async throws(OAuthError) -> TokenSet {
        let task: Task<TokenSet, any Error>
        if let refreshing {
            task = refreshing
        } else {
            let client = client
            let current = tokens
            let didRefresh = didRefresh
            task = Task {
                let refreshed = try await client.refresh(current)
                await didRefresh(refreshed)
                return refreshed
            }
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
            if let error = error as? OAuthError { throw error }
            throw OAuthError(code: .transportFailed, message: "the refresh did not finish")
        }
    }
}
