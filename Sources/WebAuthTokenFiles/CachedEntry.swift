#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A stored token entry read for handing out its cached token, and nothing more: the JSON the
/// token store writes (`StoredTokens`, ISO 8601 dates, format version 1), decoded with the same
/// decoder and the same types, but **strictly**: a key it does not know, at any level, a
/// different version, a value of another type, or a token with characters
/// ``TokenCharacters`` does not allow makes it refuse the whole entry. A program
/// that gets `nil` from ``init(decoding:)`` leaves the entry to the full token store, which
/// either understands it (a field added later, such as a proof-of-possession key) or reports
/// it as corrupt.
///
/// So whatever this type accepts, the store decodes too, to the same values: the key sets below
/// are what the store's encoder writes (a test encodes an entry with every field set and
/// compares).
///
/// ```swift
/// if let entry = CachedEntry(decoding: bytes), entry.isFresh(at: .now, minimumValidity: 60) {
///     print(entry.tokens.accessToken)
/// }
/// ```
package struct CachedEntry: Sendable, Hashable {
    /// The only format version read.
    package static let version = 1

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
    }

    /// Decodes `data`; `nil` unless it is an entry of exactly the shape described above.
    package init?(decoding data: Data) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let entry = try? decoder.decode(Entry.self, from: data), entry.version == Self.version,
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

    /// Whether the access token is valid for more than `minimumValidity` seconds after `now` —
    /// the token store's rule (`TokenSet.isExpired(at:margin:)`): a token with no known expiry
    /// always is.
    package func isFresh(at now: Date, minimumValidity: Double) -> Bool {
        guard let expiresAt = tokens.expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) > minimumValidity
    }

    // MARK: The format, level by level

    /// The keys of `StoredTokens`.
    package static let entryKeys: Set<String> = [
        "version", "tokens", "issuer", "tokenEndpoint", "clientID", "savedAt", "configuration",
    ]
    /// The keys of `TokenSet`.
    package static let tokenKeys: Set<String> = [
        "accessToken", "tokenType", "refreshToken", "idToken", "idTokenClaims", "expiresAt", "scopes", "receivedAt",
    ]
    /// The keys of `IDTokenClaims`.
    package static let claimKeys: Set<String> = [
        "issuer", "subject", "audience", "expiresAt", "issuedAt", "nonce", "authorizedParty", "authenticatedAt",
        "email", "emailVerified", "name", "preferredUsername",
    ]
    /// The keys of `ClientConfiguration` in the full form its encoder writes.
    package static let configurationKeys: Set<String> = [
        "issuer", "authorizationEndpoint", "tokenEndpoint", "revocationEndpoint", "userInfoEndpoint",
        "deviceAuthorizationEndpoint", "jwksURI", "clientID", "clientSecret", "name", "scopes", "redirectURI",
        "clientAuthentication", "responseType", "idTokenSigningAlgorithms", "additionalAuthorizationParameters",
        "pushedAuthorizationRequestEndpoint", "usePushedAuthorization",
    ]

    /// Any key, for listing the keys an object has.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The keyed container of `decoder`, after checking it holds only `known` keys.
    private static func container(
        _ decoder: any Decoder, known: Set<String>
    ) throws -> KeyedDecodingContainer<AnyKey> {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "a key this reader does not know")
        }
        return container
    }

    private static func key(_ name: String) -> AnyKey { AnyKey(stringValue: name) }

    private struct Entry: Decodable {
        var version: Int
        var tokens: TokenSetShape
        var configuration: ConfigurationShape?

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(decoder, known: CachedEntry.entryKeys)
            version = try container.decode(Int.self, forKey: key("version"))
            tokens = try container.decode(TokenSetShape.self, forKey: key("tokens"))
            _ = try container.decodeIfPresent(String.self, forKey: key("issuer"))
            _ = try container.decodeIfPresent(String.self, forKey: key("tokenEndpoint"))
            _ = try container.decode(String.self, forKey: key("clientID"))
            _ = try container.decode(Date.self, forKey: key("savedAt"))
            configuration = try container.decodeIfPresent(ConfigurationShape.self, forKey: key("configuration"))
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
            let container = try CachedEntry.container(decoder, known: CachedEntry.tokenKeys)
            accessToken = try container.decode(String.self, forKey: key("accessToken"))
            tokenType = try container.decode(String.self, forKey: key("tokenType"))
            refreshToken = try container.decodeIfPresent(String.self, forKey: key("refreshToken"))
            idToken = try container.decodeIfPresent(String.self, forKey: key("idToken"))
            idTokenClaims = try container.decodeIfPresent(ClaimsShape.self, forKey: key("idTokenClaims"))
            expiresAt = try container.decodeIfPresent(Date.self, forKey: key("expiresAt"))
            _ = try container.decode([String].self, forKey: key("scopes"))
            _ = try container.decode(Date.self, forKey: key("receivedAt"))
        }
    }

    private struct ClaimsShape: Decodable {
        var expiresAt: Date

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(decoder, known: CachedEntry.claimKeys)
            _ = try container.decode(String.self, forKey: key("issuer"))
            _ = try container.decode(String.self, forKey: key("subject"))
            _ = try container.decode([String].self, forKey: key("audience"))
            expiresAt = try container.decode(Date.self, forKey: key("expiresAt"))
            _ = try container.decode(Date.self, forKey: key("issuedAt"))
            for name in ["nonce", "authorizedParty", "email", "name", "preferredUsername"] {
                _ = try container.decodeIfPresent(String.self, forKey: key(name))
            }
            _ = try container.decodeIfPresent(Date.self, forKey: key("authenticatedAt"))
            _ = try container.decodeIfPresent(Bool.self, forKey: key("emailVerified"))
        }
    }

    private struct ConfigurationShape: Decodable {
        var name: String?
        var tokenEndpoint: URL?

        init(from decoder: any Decoder) throws {
            let container = try CachedEntry.container(decoder, known: CachedEntry.configurationKeys)
            for name in [
                "issuer", "authorizationEndpoint", "revocationEndpoint", "userInfoEndpoint",
                "deviceAuthorizationEndpoint", "jwksURI", "pushedAuthorizationRequestEndpoint",
            ] {
                _ = try container.decodeIfPresent(URL.self, forKey: key(name))
            }
            tokenEndpoint = try container.decodeIfPresent(URL.self, forKey: key("tokenEndpoint"))
            _ = try container.decode(String.self, forKey: key("clientID"))
            _ = try container.decodeIfPresent(String.self, forKey: key("clientSecret"))
            name = try container.decodeIfPresent(String.self, forKey: key("name"))
            _ = try container.decode([String].self, forKey: key("scopes"))
            _ = try container.decode(URL.self, forKey: key("redirectURI"))
            _ = try container.decodeIfPresent(String.self, forKey: key("clientAuthentication"))
            _ = try container.decode(String.self, forKey: key("responseType"))
            _ = try container.decode([String].self, forKey: key("idTokenSigningAlgorithms"))
            _ = try container.decodeIfPresent(
                [String: String].self, forKey: key("additionalAuthorizationParameters"))
            _ = try container.decodeIfPresent(String.self, forKey: key("usePushedAuthorization"))
        }
    }
}
