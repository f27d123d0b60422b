// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A stored token entry read for handing out its cached token, and nothing more: an entry in
/// the ``TokenEntryFormat`` the token store writes, decoded with the same decoder, but
/// **strictly**: a key it does not know at any level or one it leaves to the full program
/// (`reads(_:)`: a proof-of-possession key, the short configuration form), a
/// different version, a value of another type, or a token with characters
/// ``TokenCharacters`` does not allow makes it refuse the whole entry. A program that gets
/// `nil` from ``init(decoding:)`` leaves the entry to the full token store, which either
/// understands it or reports it as corrupt.
///
/// ```swift
/// if let entry = CachedEntry(decoding: bytes), entry.isFresh(at: .now, minimumValidity: .seconds(60)) {
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
    /// The configuration's token endpoint, if the entry has a configuration with one.
    package var configurationTokenEndpoint: URL?

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

    /// An entry of `tokens`, with the configuration's name and its token endpoint's host (as
    /// the token agent gives them, beside its token).
    package init(tokens: Tokens, configurationName: String?, tokenEndpointHost: String?) {
        self.tokens = tokens
        self.configurationName = configurationName
        self.configurationTokenEndpoint = tokenEndpointHost.flatMap { URL(string: "https://\($0)/") }
    }

    /// An entry of `tokens`, with the configuration's name and token endpoint as read.
    package init(tokens: Tokens, configurationName: String?, configurationTokenEndpoint: URL?) {
        self.tokens = tokens
        self.configurationName = configurationName
        self.configurationTokenEndpoint = configurationTokenEndpoint
    }

    /// Decodes `data`; `nil` unless it is an entry of exactly the shape described above.
    ///
    /// ``CachedEntryReader`` reads it first, without `JSONDecoder`, and answers for the entries
    /// the store writes; whatever it leaves goes to ``init(decodingWithFoundation:)``, so the
    /// result is that reading's either way.
    package init?(decoding data: Data) {
        if let entry = data.withUnsafeBytes({ CachedEntryReader.entry($0) }) {
            self = entry
            return
        }
        self.init(decodingWithFoundation: data)
    }

    /// Decodes `data` with `JSONDecoder` (``TokenEntryFormat/decoder()``): the reading that
    /// defines which entries are taken and what they hold.
    package init?(decodingWithFoundation data: Data) {
        guard let entry = try? TokenEntryFormat.decoder().decode(Entry.self, from: data), entry.version == Self.version,
            TokenCharacters.areAllowed(
                accessToken: entry.tokens.accessToken, tokenType: entry.tokens.tokenType, idToken: entry.tokens.idToken)
        else { return nil }
        tokens = Tokens(
            accessToken: entry.tokens.accessToken, tokenType: entry.tokens.tokenType,
            hasRefreshToken: entry.tokens.refreshToken != nil, idToken: entry.tokens.idToken,
            idTokenExpiresAt: entry.tokens.idTokenClaims?.expiresAt, expiresAt: entry.tokens.expiresAt)
        configurationName = entry.configuration?.name
        configurationTokenEndpoint = entry.configuration?.tokenEndpoint
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

    /// The names of the keys of `Key` that `reads` takes.
    private static func names<Key: CodingKey & CaseIterable>(_ keys: Key.Type, _ reads: (Key) -> Bool) -> Set<String> {
        Set(Key.allCases.filter(reads).map(\.stringValue))
    }

    private static let entryKeys = names(TokenEntryFormat.EntryKey.self, reads)
    private static let tokenKeys = names(TokenEntryFormat.TokenKey.self, reads)
    private static let claimKeys = names(TokenEntryFormat.ClaimKey.self, reads)
    private static let configurationKeys = names(TokenEntryFormat.ConfigurationKey.self, reads)
    private static let exchangeKeys = names(TokenEntryFormat.ExchangeKey.self, reads)

    /// Any key, for listing the keys an object has.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The container of `decoder` keyed by `Key`, after checking it holds only `known` keys.
    private static func container<Key: CodingKey>(
        _ decoder: any Decoder, _ keys: Key.Type, known: Set<String>
    ) throws -> KeyedDecodingContainer<Key> {
        let any = try decoder.container(keyedBy: AnyKey.self)
        for key in any.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: any, debugDescription: "a key this reader does not take")
        }
        return try decoder.container(keyedBy: Key.self)
    }

    private struct Entry: Decodable {
        var version: Int
        var tokens: TokenSetShape
        var configuration: ConfigurationShape?

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(
                decoder, TokenEntryFormat.EntryKey.self, known: CachedEntry.entryKeys)
            version = try container.decode(Int.self, forKey: .version)
            tokens = try container.decode(TokenSetShape.self, forKey: .tokens)
            _ = try container.decodeIfPresent(String.self, forKey: .issuer)
            _ = try container.decodeIfPresent(String.self, forKey: .tokenEndpoint)
            _ = try container.decode(String.self, forKey: .clientID)
            _ = try container.decode(Date.self, forKey: .savedAt)
            configuration = try container.decodeIfPresent(ConfigurationShape.self, forKey: .configuration)
            _ = try container.decodeIfPresent([ExchangeShape].self, forKey: .exchangedTokens)
        }
    }

    private struct ExchangeShape: Decodable {
        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(
                decoder, TokenEntryFormat.ExchangeKey.self, known: CachedEntry.exchangeKeys)
            _ = try container.decodeIfPresent(String.self, forKey: .audience)
            _ = try container.decodeIfPresent(String.self, forKey: .resource)
            _ = try container.decode([String].self, forKey: .scopes)
            _ = try container.decode(TokenSetShape.self, forKey: .tokens)
            _ = try container.decode(String.self, forKey: .issuedTokenType)
        }
    }

    private struct TokenSetShape: Decodable {
        var accessToken: String
        var tokenType: String
        var refreshToken: String?
        var idToken: String?
        var idTokenClaims: ClaimsShape?
        var expiresAt: Date?

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(
                decoder, TokenEntryFormat.TokenKey.self, known: CachedEntry.tokenKeys)
            accessToken = try container.decode(String.self, forKey: .accessToken)
            tokenType = try container.decode(String.self, forKey: .tokenType)
            refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
            idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
            idTokenClaims = try container.decodeIfPresent(ClaimsShape.self, forKey: .idTokenClaims)
            expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
            _ = try container.decode([String].self, forKey: .scopes)
            _ = try container.decode(Date.self, forKey: .receivedAt)
        }
    }

    private struct ClaimsShape: Decodable {
        var expiresAt: Date

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(
                decoder, TokenEntryFormat.ClaimKey.self, known: CachedEntry.claimKeys)
            _ = try container.decode(String.self, forKey: .issuer)
            _ = try container.decode(String.self, forKey: .subject)
            _ = try container.decode([String].self, forKey: .audience)
            expiresAt = try container.decode(Date.self, forKey: .expiresAt)
            _ = try container.decode(Date.self, forKey: .issuedAt)
            for key in [TokenEntryFormat.ClaimKey.nonce, .authorizedParty, .email, .name, .preferredUsername] {
                _ = try container.decodeIfPresent(String.self, forKey: key)
            }
            _ = try container.decodeIfPresent(Date.self, forKey: .authenticatedAt)
            _ = try container.decodeIfPresent(Bool.self, forKey: .emailVerified)
        }
    }

    private struct ConfigurationShape: Decodable {
        var name: String?
        var tokenEndpoint: URL?

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(
                decoder, TokenEntryFormat.ConfigurationKey.self, known: CachedEntry.configurationKeys)
            for key in [
                TokenEntryFormat.ConfigurationKey.issuer, .authorizationEndpoint, .revocationEndpoint,
                .userInfoEndpoint, .deviceAuthorizationEndpoint, .jwksURI, .pushedAuthorizationRequestEndpoint,
            ] {
                _ = try container.decodeIfPresent(URL.self, forKey: key)
            }
            tokenEndpoint = try container.decodeIfPresent(URL.self, forKey: .tokenEndpoint)
            _ = try container.decode(String.self, forKey: .clientID)
            _ = try container.decodeIfPresent(String.self, forKey: .clientSecret)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            _ = try container.decode([String].self, forKey: .scopes)
            _ = try container.decode(URL.self, forKey: .redirectURI)
            _ = try container.decodeIfPresent(String.self, forKey: .clientAuthentication)
            _ = try container.decode(String.self, forKey: .responseType)
            _ = try container.decode([String].self, forKey: .idTokenSigningAlgorithms)
            _ = try container.decodeIfPresent(
                [String: String].self, forKey: .additionalAuthorizationParameters)
            _ = try container.decodeIfPresent(String.self, forKey: .usePushedAuthorization)
            _ = try container.decodeIfPresent(String.self, forKey: .clientKeyFile)
            _ = try container.decodeIfPresent(String.self, forKey: .clientAssertionAudience)
        }
    }
}
