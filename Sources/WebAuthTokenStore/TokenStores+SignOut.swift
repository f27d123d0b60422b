// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore
public import WebAuthOAuth

extension TokenStores {
    /// What ``signOut(profile:)`` did.
    public struct SignOut: Sendable {
        /// The kind of store the profile was deleted from.
        public var store: TokenStoreKind
        /// What happened at the provider.
        public var revocation: Revocation
        /// Whether the running agent (``TokenStores/agent``) held the profile and forgot it.
        public var forgottenByAgent: Bool = false
    }

    /// What happened at the provider when a profile signed out. In every case the entry has been
    /// deleted here.
    public enum Revocation: Sendable {
        /// The refresh token and the access token were revoked (RFC 7009), and so were the
        /// unexpired tokens they were exchanged for (``StoredTokens/exchangedTokens``).
        case revoked
        /// The provider has no revocation endpoint: the tokens stay valid there until they expire.
        case unsupported
        /// The entry was saved without its client configuration, so there was no client to
        /// revoke with.
        case notPossible
        /// The entry did not decode, so there was nothing to revoke with.
        case unreadable
        /// Revoking failed (each token was tried): they may stay valid at the provider until
        /// they expire.
        case failed(OAuthError)
    }

    /// Signs `profile` out: revokes its tokens at the provider, then deletes the entry, forgets
    /// the profile in the index, and has a running agent that holds it forget it too, so that
    /// the agent hands out none of its tokens afterwards.
    ///
    /// Revoking happens under the profile's lock, so that a refresh in another process cannot
    /// store a new refresh token in between; the refresh token is revoked first, then the access
    /// token, then the tokens exchanged for it that have not expired. The entry is deleted whatever the provider says — also when it is unreadable,
    /// since what cannot be read can neither be used nor revoked.
    ///
    /// ```swift
    /// let signOut = try await TokenStores().signOut(profile: "work")
    /// if case .failed(let error) = signOut.revocation { print("deleted here, but: \(error)") }
    /// ```
    ///
    /// - Throws: ``TokenStoreError/Code/notSignedIn`` when no store holds the profile, another
    ///   ``TokenStoreError`` when it cannot be deleted. A failed revocation is not thrown: see
    ///   ``Revocation/failed(_:)``.
    public func signOut(profile: String) async throws -> SignOut {
        guard let (store, _) = try await locate(profile: profile) else { throw TokenStoreError.notSignedIn(profile) }
        var revocation = Revocation.unreadable
        do {
            try await store.update(profile: profile) { current in
                guard let current else { throw TokenStoreError.notSignedIn(profile) }
                revocation = await Self.revoke(current)
                return nil
            }
        } catch let error as TokenStoreError where error.code == .corrupt {
            guard try await store.delete(profile: profile) else { throw error }
            revocation = .unreadable
        }
        try? await index.forget(profile)
        var signOut = SignOut(store: store.kind, revocation: revocation)
        if let agent {
            do {
                try await agent.remove(profile: profile)
                signOut.forgottenByAgent = true
            } catch {
                // No agent runs, or it does not hold the profile: nothing to forget.
            }
        }
        return signOut
    }

    /// Revokes the entry's tokens with its stored configuration.
    private static func revoke(_ entry: StoredTokens) async -> Revocation {
        guard let configuration = entry.configuration else { return .notPossible }
        do {
            let client = try OAuthClient(configuration: configuration)
            guard try await client.metadata().revocationEndpoint != nil else { return .unsupported }
            try await client.revoke(entry.tokens)
            // The tokens it was exchanged for are grants of their own at many providers.
            for exchanged in entry.exchangedTokens where !exchanged.tokens.isExpired() {
                try await client.revoke(exchanged.tokens)
            }
            return .revoked
        } catch {
            return .failed(error)
        }
    }
}
