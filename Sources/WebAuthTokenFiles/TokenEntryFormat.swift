#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The stored token entry's format, version 1: JSON with ISO 8601 dates, objects with these
/// keys. The one description of it: the token store's writer and reader (`StoredTokens`,
/// `TokenSet`, `IDTokenClaims`, `ClientConfiguration`) code their fields under these keys, and
/// the fast path's strict reader (``CachedEntry``) reads them — a key added to the format is a
/// case added here, which the fast path's reader then has to decide on
/// (`CachedEntry.reads(_:)`) before anything compiles.
///
/// ```swift
/// let data = try TokenEntryFormat.encoder().encode(storedTokens)
/// let entry = try TokenEntryFormat.decoder().decode(StoredTokens.self, from: data)
/// ```
package enum TokenEntryFormat {
    /// The format version written and read.
    package static let version = 1

    /// The encoder the store writes entries with: compact, sorted keys, ISO 8601 dates.
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The decoder entries are read with: ISO 8601 dates.
    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The keys of an entry (`StoredTokens`).
    package enum EntryKey: String, CodingKey, CaseIterable, Sendable {
        case version, tokens, issuer, tokenEndpoint, clientID, savedAt, configuration
        /// The client's dynamic registration (RFC 7591, RFC 7592), when the profile registered
        /// its own client.
        case registration
        /// The tokens the entry's access token was exchanged for (RFC 8693), one per target;
        /// written only when there is one.
        case exchangedTokens
    }

    /// The keys of one of an entry's `exchangedTokens` (`StoredExchange`): the target, what
    /// was issued for it, and its type.
    package enum ExchangeKey: String, CodingKey, CaseIterable, Sendable {
        case audience, resource, scopes, tokens, issuedTokenType
    }

    /// The keys of an entry's `tokens` (`TokenSet`).
    package enum TokenKey: String, CodingKey, CaseIterable, Sendable {
        case accessToken, tokenType, refreshToken, idToken, idTokenClaims, expiresAt, scopes, receivedAt
        /// The proof-of-possession key the tokens are bound to (DPoP), when it is kept.
        case dpopKey
    }

    /// The keys of the tokens' `idTokenClaims` (`IDTokenClaims`).
    package enum ClaimKey: String, CodingKey, CaseIterable, Sendable {
        case issuer, subject, audience, expiresAt, issuedAt, nonce, authorizedParty, authenticatedAt, email
        case emailVerified, name, preferredUsername, tenantID
    }

    /// The keys of an entry's `configuration` (`ClientConfiguration`), in the full form its
    /// encoder writes, and the short form (`id`, `secret`, `redirectURL`) its decoder also takes.
    package enum ConfigurationKey: String, CodingKey, CaseIterable, Sendable {
        case issuer, clientID, clientSecret, name, scopes, redirectURI, clientAuthentication, responseType
        case idTokenSigningAlgorithms, additionalAuthorizationParameters
        case authorizationEndpoint, tokenEndpoint, revocationEndpoint, userInfoEndpoint
        case deviceAuthorizationEndpoint, jwksURI, pushedAuthorizationRequestEndpoint
        case usePushedAuthorization, dpop, allowsDPoPDowngrade, allowedTenants, grant
        // JWT client authentication: the key file's path (never the key) and the assertions' aud.
        case clientKeyFile, clientAssertionAudience
        // The short app-credential form: { "id", "secret", "name", "redirectURL" }.
        case id, secret, redirectURL
    }
}

/// When a stored access token may still be handed out: the one rule of the token store
/// (`TokenSet.isExpired(at:margin:)`) and the fast path (``CachedEntry/isFresh(at:minimumValidity:)``).
package enum TokenFreshnessRule {
    /// Whether a token that expires at `expiresAt` is valid for more than `minimumValidity`
    /// after `now`. A token with no known expiry always is.
    package static func isFresh(expiresAt: Date?, at now: Date, minimumValidity: Duration) -> Bool {
        guard let expiresAt else { return true }
        let (seconds, attoseconds) = minimumValidity.components
        return expiresAt.timeIntervalSince(now) > Double(seconds) + Double(attoseconds) / 1e18
    }
}
