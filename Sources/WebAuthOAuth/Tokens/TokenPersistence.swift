// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Where an ``AccessTokenProvider`` keeps its tokens, shared with every other holder of them —
/// other providers, other processes — and changed by one holder at a time.
///
/// A refresh token that the provider rotates may be used once. When several holders refresh the
/// same tokens, each must refresh with the refresh token the one before it stored, not the one
/// it read earlier: ``update(_:)`` gives the body the stored tokens as they are now and keeps
/// every other holder out until what the body returns is stored. The provider refreshes inside
/// it — or takes what another holder stored, if that is fresh already.
///
/// `WebAuthTokenStore` implements it for a signed-in profile (a 0600 file or the desktop
/// keyring, locked across processes): `TokenStores.accessTokenProvider(profile:refreshMargin:)`.
/// Implement it to keep tokens somewhere else, such as a database row updated in a transaction:
///
/// ```swift
/// struct TokensRow: TokenPersistence {
///     let database: Database
///     func update(_ body: (TokenSet) async throws -> TokenSet) async throws -> TokenSet {
///         try await database.transaction { row in   // SELECT … FOR UPDATE
///             let new = try await body(row.tokens)
///             if new != row.tokens { try await row.save(new) }
///             return new
///         }
///     }
/// }
/// let provider = AccessTokenProvider(client: client, tokens: tokens, persistence: TokensRow(database: db))
/// ```
public protocol TokenPersistence: Sendable {
    /// Reads the stored tokens, passes them to `body` and stores what it returns, with no other
    /// holder reading or changing them in between.
    ///
    /// - Parameter body: Given the stored tokens, returns the tokens to store: the same value
    ///   when nothing changed (then nothing need be written). An error it throws leaves the
    ///   stored tokens as they were and is rethrown.
    /// - Returns: What `body` returned, as stored.
    /// - Throws: What `body` throws, or why the tokens could not be read or stored — also when
    ///   there are none any more (someone signed out).
    func update(_ body: (TokenSet) async throws -> TokenSet) async throws -> TokenSet
}
