// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The reading of a cached entry with `JSONDecoder`, which defines the entries
/// ``CachedEntryReader`` may take: here, beside the store that writes them, and not in the fast
/// path's program, which would otherwise carry Foundation's JSON decoder and `URL`.
extension CachedEntry {
    /// Decodes `data`; `nil` unless it is an entry of exactly the shape ``CachedEntry`` describes.
    ///
    /// ``CachedEntryReader`` reads it first, without `JSONDecoder`, and answers for the entries
    /// the store writes; whatever it leaves goes to ``init(decodingWithFoundation:)``, so the
    /// result is that reading's either way.
    package init?(decoding data: Data) {
        if let entry = CachedEntry(reading: Array(data)) {
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
        self.init(
            tokens: Tokens(
                accessToken: entry.tokens.accessToken, tokenType: entry.tokens.tokenType,
                hasRefreshToken: entry.tokens.refreshToken != nil, idToken: entry.tokens.idToken,
                idTokenExpiresAt: entry.tokens.idTokenClaims?.expiresAt, expiresAt: entry.tokens.expiresAt),
            configurationName: entry.configuration?.name, tokenEndpointHost: entry.configuration?.tokenEndpoint?.host)
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
