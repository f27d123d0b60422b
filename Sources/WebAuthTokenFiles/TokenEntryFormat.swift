// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The stored token entry's format, version 1: JSON with ISO 8601 dates, objects with these
/// keys. The one description of it: the token store's writer and reader (`StoredTokens`,
/// `TokenSet`, `IDTokenClaims`, `ClientConfiguration`) code their fields under these keys, and
/// the fast path's strict reader (``CachedEntry``) reads them — a key added to the format is a
/// case added here, which the fast path's reader then has to decide on
/// (`CachedEntry.reads(_:)`) before anything compiles.
///
/// The token store adds the JSON coders (`encoder()`, `decoder()`), so that the fast path's
/// program, which reads entries with ``CachedEntryReader`` alone, carries none.
///
/// ```swift
/// let data = try TokenEntryFormat.encoder().encode(storedTokens)
/// let entry = try TokenEntryFormat.decoder().decode(StoredTokens.self, from: data)
/// ```
package enum TokenEntryFormat {
    /// The format version written and read.
    package static let version = 1

    /// The date of `YYYY-MM-DDTHH:MM:SSZ` in the years 1970 to 9999, with a real calendar date
    /// and a time before 24:00 without a leap second; `nil` for anything else, for the full
    /// parser to judge (which also knows the calendar before the Gregorian reform).
    package static func utcDate(_ string: String) -> Date? {
        string.utf8.withContiguousStorageIfAvailable { bytes -> Date? in
            guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                bytes[19] == UInt8(ascii: "Z")
            else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for byte in bytes[start..<start + count] {
                    guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                (1970...9999).contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 60
            else { return nil }
            let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let monthDays = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard (1...monthDays[month - 1]).contains(day) else { return nil }
            // Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
            let shiftedYear = month <= 2 ? year - 1 : year
            let era = shiftedYear / 400
            let yearOfEra = shiftedYear - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
        } ?? nil
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
        // Whether offline_access brings prompt=consent.
        case promptsConsentForOfflineAccess
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
