// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore
public import WebAuthOAuth

/// One signed-in profile of ``TokenStores``, as the `TokenPersistence` of an
/// `AccessTokenProvider`: each refresh runs under the profile's lock — excluding other tasks
/// and other processes alike — with the tokens stored last, and its result is stored before the
/// lock is let go. Processes refreshing at once take turns, and each one either takes the
/// tokens the one before it stored or refreshes with its refresh token; a rotated refresh
/// token is never used twice, and never lost.
///
/// When the keyring does not keep the refreshed tokens (it failed, went away, or the entry grew
/// too large for it) and the selection is ``TokenStoreSelection/automatic``, they go to the
/// file store — the provider has rotated the refresh token already, so the new one must be
/// kept somewhere — and the index is pointed there (logged at `warning` level).
///
/// ``TokenStores/accessTokenProvider(profile:refreshMargin:)`` makes a provider with one; make
/// it yourself to refresh with a client of your own:
///
/// ```swift
/// let stores = TokenStores()
/// guard let (_, entry) = try await stores.find(profile: "work") else { return }
/// let provider = AccessTokenProvider(
///     client: try OAuthClient(configuration: configuration, transport: transport),
///     tokens: entry.tokens, persistence: StoredProfile("work", in: stores))
/// ```
public struct StoredProfile: TokenPersistence {
    /// The profile's name.
    public let profile: String
    /// The stores it is in.
    public let stores: TokenStores

    /// The profile `profile` of `stores`.
    public init(_ profile: String, in stores: TokenStores) {
        self.profile = profile
        self.stores = stores
    }

    /// Runs `body` on the profile's stored tokens under its lock and stores what it returns
    /// (with a new ``StoredTokens/savedAt`` when it changed).
    ///
    /// - Throws: ``TokenStoreError/Code/notSignedIn`` when no store holds the profile (any
    ///   more), another ``TokenStoreError`` when it cannot be read or stored, or what `body`
    ///   throws.
    public func update(_ body: (TokenSet) async throws -> TokenSet) async throws -> TokenSet {
        let profile = profile
        guard let (store, _) = try await stores.find(profile: profile) else {
            throw TokenStoreError.notSignedIn(profile)
        }
        var changed: StoredTokens?
        do {
            let updated = try await store.update(profile: profile) { current in
                guard var entry = current else { throw TokenStoreError.notSignedIn(profile) }
                let tokens = try await body(entry.tokens)
                guard tokens != entry.tokens else { return entry }
                entry.tokens = tokens
                entry.savedAt = Date()
                changed = entry
                return entry
            }
            guard let updated else { throw TokenStoreError.notSignedIn(profile) }
            return updated.tokens
        } catch let error as TokenStoreError where stores.fallsBackToFiles(from: store, after: error) {
            // The provider may have rotated the refresh token already: keep the new tokens in
            // files rather than lose them.
            guard let changed else { throw error }
            let files = try stores.fileStore()
            try await files.save(changed, profile: profile)
            await stores.settle(profile, in: files, mayAlsoBeIn: [store.kind])
            stores.logger.warning(
                "the keyring did not keep the refreshed tokens of profile \"\(profile)\" (\(error.message)); they are in files now"
            )
            return changed.tokens
        }
    }
}
