// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import WebAuthCore
public import WebAuthOAuth

/// What a stored entry's access token needs before it is handed out, decided from the entry and
/// the time alone: ``TokenStores/freshTokens(profile:minimumValidity:)`` asks it first, and
/// needs neither the lock nor the network for a token that is ``fresh``.
///
/// ```swift
/// switch TokenFreshness.of(entry, now: Date(), minimumValidity: .seconds(60)) {
/// case .fresh: use(entry.tokens)
/// case .needsRefresh(let configuration): refresh(with: OAuthClient(configuration: configuration))
/// case .cannotRefresh(let reason): throw reason.error(profile: "work")
/// }
/// ```
public enum TokenFreshness: Equatable, Sendable {
    /// The access token is valid for at least the minimum validity (or has no known expiry).
    case fresh
    /// It expires within the minimum validity and can be refreshed with this configuration.
    case needsRefresh(ClientConfiguration)
    /// It expires within the minimum validity and cannot be refreshed: sign in again.
    case cannotRefresh(CannotRefresh)

    /// Why an entry cannot be refreshed.
    public enum CannotRefresh: WebAuthError {
        /// There is no refresh token.
        case noRefreshToken
        /// The entry does not say which client and provider to refresh with.
        case noConfiguration

        /// The store's code for it: ``TokenStoreError/Code/noRefreshToken`` or
        /// ``TokenStoreError/Code/noConfiguration``.
        public var code: TokenStoreError.Code {
            switch self {
            case .noRefreshToken: .noRefreshToken
            case .noConfiguration: .noConfiguration
            }
        }

        /// Why, without naming a profile (``error(profile:)`` names it).
        public var message: String {
            switch self {
            case .noRefreshToken: "the access token has expired and there is no refresh token"
            case .noConfiguration: "the entry was saved without its client configuration, so it cannot be refreshed"
            }
        }

        /// The error that says so for `profile`: ``TokenStoreError/Code/noRefreshToken`` or
        /// ``TokenStoreError/Code/noConfiguration``.
        public func error(profile: String) -> TokenStoreError {
            switch self {
            case .noRefreshToken:
                TokenStoreError(
                    .noRefreshToken,
                    "the access token of profile \"\(profile)\" has expired and there is no refresh token")
            case .noConfiguration:
                TokenStoreError(
                    .noConfiguration,
                    "profile \"\(profile)\" was saved without its client configuration, so it cannot be refreshed")
            }
        }
    }

    /// Decides for `entry` at `now`. A token with no known expiry is always fresh. A client that
    /// signs in as itself (`ClientGrant.clientCredentials`) needs no refresh token: it asks
    /// again.
    public static func of(_ entry: StoredTokens, now: Date, minimumValidity: Duration) -> TokenFreshness {
        guard entry.tokens.isExpired(at: now, margin: minimumValidity) else { return .fresh }
        switch renewal(of: entry) {
        case .success(let configuration): return .needsRefresh(configuration)
        case .failure(let reason): return .cannotRefresh(reason)
        }
    }

    /// How `entry`'s tokens would be renewed, whatever their expiry: with this configuration, or
    /// why they cannot be. The one rule `of(_:now:minimumValidity:)` and `webauth status` share.
    public static func renewal(of entry: StoredTokens) -> Result<ClientConfiguration, CannotRefresh> {
        if let configuration = entry.configuration, configuration.grant == .clientCredentials {
            return .success(configuration)
        }
        guard entry.tokens.refreshToken != nil else { return .failure(.noRefreshToken) }
        guard let configuration = entry.configuration else { return .failure(.noConfiguration) }
        return .success(configuration)
    }
}
