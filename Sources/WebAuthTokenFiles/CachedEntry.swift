// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A stored token entry read for handing out its cached token, and nothing more: an entry in
/// the ``TokenEntryFormat`` the token store writes, decoded with the same decoder, but
/// **strictly**: a key it does not know at any level or one it leaves to the full program
/// (`reads(_:)`: a proof-of-possession key, the short configuration form), a
/// different version, a value of another type, or a token with characters
/// ``TokenCharacters`` does not allow makes it refuse the whole entry. A program that gets
/// `nil` leaves the entry to the full token store, which either understands it or reports it as
/// corrupt.
///
/// The fast path reads with ``CachedEntryReader`` alone (``init(reading:)``); the token store
/// adds the `JSONDecoder` reading that defines the format (`init(decoding:)`), so that the fast
/// path's program carries neither Foundation's JSON decoder nor its `URL`.
///
/// ```swift
/// if let entry = CachedEntry(reading: bytes), entry.isFresh(at: .now, minimumValidity: .seconds(60)) {
///     print(entry.tokens.accessToken)
/// }
/// ```
package struct CachedEntry: Sendable, Hashable {
    /// The only format version read: ``TokenEntryFormat/version``.
    package static let version = TokenEntryFormat.version

    /// The tokens.
    package var tokens: Tokens
    /// The client configuration's `name`, if the entry has a configuration with one.
    package var configurationName: String?
    /// The host of the configuration's token endpoint, if the entry has a configuration with one.
    package var tokenEndpointHost: String?

    /// The entry's tokens (`TokenSet`).
    package struct Tokens: Sendable, Hashable {
        /// The access token.
        package var accessToken: String
        /// The token type, such as `Bearer`.
        package var tokenType: String
        /// Whether a refresh token is stored.
        package var hasRefreshToken: Bool
        /// The ID token, if any.
        package var idToken: String?
        /// When the ID token expires (its validated `exp`), if there is one.
        package var idTokenExpiresAt: Date?
        /// When the access token expires, if known.
        package var expiresAt: Date?

        /// The tokens of an entry.
        package init(
            accessToken: String, tokenType: String, hasRefreshToken: Bool, idToken: String?, idTokenExpiresAt: Date?,
            expiresAt: Date?
        ) {
            self.accessToken = accessToken
            self.tokenType = tokenType
            self.hasRefreshToken = hasRefreshToken
            self.idToken = idToken
            self.idTokenExpiresAt = idTokenExpiresAt
            self.expiresAt = expiresAt
        }
    }

    /// An entry of `tokens`, with the configuration's name and its token endpoint's host.
    package init(tokens: Tokens, configurationName: String?, tokenEndpointHost: String?) {
        self.tokens = tokens
        self.configurationName = configurationName
        self.tokenEndpointHost = tokenEndpointHost
    }

    /// Reads `bytes` with ``CachedEntryReader`` alone, the fast path's reading: `nil` for an
    /// entry it leaves to `JSONDecoder` as well as for one that is not an entry.
    package init?(reading bytes: [UInt8]) {
        guard let entry = bytes.withUnsafeBytes({ CachedEntryReader.entry($0) }) else { return nil }
        self = entry
    }

    /// Whether the access token is valid for more than `minimumValidity` after `now`: the token
    /// store's rule, ``TokenFreshnessRule``.
    package func isFresh(at now: Date, minimumValidity: Duration) -> Bool {
        TokenFreshnessRule.isFresh(expiresAt: tokens.expiresAt, at: now, minimumValidity: minimumValidity)
    }

    // MARK: The format, level by level

    /// Whether this reader takes an entry with `key`: every key of an entry. A client's
    /// registration is taken and not read: handing out the cached token does not need it. Its
    /// exchanged tokens are checked for shape and otherwise left to the full program.
    package static func reads(_ key: TokenEntryFormat.EntryKey) -> Bool {
        switch key {
        case .version, .tokens, .issuer, .tokenEndpoint, .clientID, .savedAt, .configuration, .registration,
            .exchangedTokens:
            true
        }
    }

    /// Whether this reader takes an exchanged token with `key`: every key of one.
    package static func reads(_ key: TokenEntryFormat.ExchangeKey) -> Bool {
        switch key {
        case .audience, .resource, .scopes, .tokens, .issuedTokenType: true
        }
    }

    /// Whether this reader takes tokens with `key`: all but a proof-of-possession key, whose
    /// tokens only the full program can present (with a proof) or refuse to a helper.
    package static func reads(_ key: TokenEntryFormat.TokenKey) -> Bool {
        switch key {
        case .accessToken, .tokenType, .refreshToken, .idToken, .idTokenClaims, .expiresAt, .scopes, .receivedAt:
            true
        case .dpopKey: false
        }
    }

    /// Whether this reader takes claims with `key`: every claim.
    package static func reads(_ key: TokenEntryFormat.ClaimKey) -> Bool {
        switch key {
        case .issuer, .subject, .audience, .expiresAt, .issuedAt, .nonce, .authorizedParty, .authenticatedAt, .email,
            .emailVerified, .name, .preferredUsername, .tenantID:
            true
        }
    }

    /// Whether this reader takes a configuration with `key`: the full form without DPoP (a
    /// configuration that binds or may downgrade tokens is the full program's to judge), not
    /// the short form, which the store never writes.
    package static func reads(_ key: TokenEntryFormat.ConfigurationKey) -> Bool {
        switch key {
        case .issuer, .clientID, .clientSecret, .name, .scopes, .redirectURI, .clientAuthentication, .responseType,
            .idTokenSigningAlgorithms, .additionalAuthorizationParameters, .authorizationEndpoint, .tokenEndpoint,
            .revocationEndpoint, .userInfoEndpoint, .deviceAuthorizationEndpoint, .jwksURI,
            .pushedAuthorizationRequestEndpoint, .usePushedAuthorization, .allowedTenants, .grant:
            true
        case .dpop, .allowsDPoPDowngrade, .id, .secret, .redirectURL: false
        case .clientKeyFile, .clientAssertionAudience, .promptsConsentForOfflineAccess: true
        }
    }
}
