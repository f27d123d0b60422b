// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthCore
import WebAuthTokenFiles

/// The tokens a sign-in or refresh produced, typed: the access token, the refresh token, the
/// validated ID token's claims, the expiry as a date and the scopes granted.
///
/// `Codable`, for storage. Printing a token set (``description``, string interpolation,
/// ``debugDescription``, `dump`) never shows a token.
public struct TokenSet: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access token. Keep it out of logs.
    public var accessToken: String
    /// The token type, usually `Bearer`.
    public var tokenType: String
    /// The refresh token, if the provider issued one.
    public var refreshToken: String?
    /// The ID token as received (a compact JWS), for OpenID Connect.
    public var idToken: String?
    /// The ID token's claims, validated.
    public var idTokenClaims: IDTokenClaims?
    /// When the access token expires, if the provider said (`expires_in`).
    public var expiresAt: Date?
    /// The scopes granted: the response's `scope`, else the scopes asked for (RFC 6749 §5.1).
    public var scopes: [String]
    /// When these tokens were received.
    public var receivedAt: Date
    /// The key the tokens are bound to (DPoP, RFC 9449), if they are: every request with them
    /// carries a proof signed with it. Stored with the tokens when it is
    /// ``DPoPKey/Storage/persistent``; an ephemeral key is never encoded.
    public var dpopKey: DPoPKey?

    /// Creates a token set.
    public init(
        accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil, idToken: String? = nil,
        idTokenClaims: IDTokenClaims? = nil, expiresAt: Date? = nil, scopes: [String] = [], receivedAt: Date = Date(),
        dpopKey: DPoPKey? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.idTokenClaims = idTokenClaims
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.receivedAt = receivedAt
        self.dpopKey = dpopKey
    }

    /// Whether the access token is DPoP-bound (`token_type` `DPoP`, RFC 9449 §5): it is sent
    /// as `Authorization: DPoP …` with a proof, never as a bearer token.
    public var isDPoPBound: Bool { tokenType.caseInsensitiveCompare("DPoP") == .orderedSame }

    /// The stored entry's keys (``TokenEntryFormat``), shared with the fast path's reader.
    private typealias CodingKeys = TokenEntryFormat.TokenKey

    /// Encodes the tokens, with the DPoP key only when it is persistent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encodeIfPresent(idToken, forKey: .idToken)
        try container.encodeIfPresent(idTokenClaims, forKey: .idTokenClaims)
        try container.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(receivedAt, forKey: .receivedAt)
        if let dpopKey, dpopKey.storage == .persistent { try container.encode(dpopKey, forKey: .dpopKey) }
    }

    /// Whether the access token has expired at `date`, or will within `margin`. A token with no
    /// known expiry never counts as expired.
    public func isExpired(at date: Date = Date(), margin: Duration = .zero) -> Bool {
        // The rule the fast path hands out cached tokens by, too.
        !TokenFreshnessRule.isFresh(expiresAt: expiresAt, at: date, minimumValidity: margin)
    }

    /// A summary with no token values: type, expiry, scopes, subject, which tokens are present.
    public var description: String {
        // The values come from the provider: made safe for a terminal or a log line.
        var parts = ["\(tokenType.safeForDisplay) access token"]
        if let expiresAt { parts.append("expires \(expiresAt.formatted(.iso8601))") }
        if !scopes.isEmpty { parts.append("scopes \(scopes.joined(separator: " ").safeForDisplay)") }
        if refreshToken != nil { parts.append("refresh token") }
        if let subject = idTokenClaims?.subject { parts.append("subject \(subject.safeForDisplay)") }
        if let dpopKey { parts.append("DPoP key \(dpopKey.thumbprint)") }
        return "TokenSet(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``: the tokens stay hidden in debug output too.
    public var debugDescription: String { description }
}

/// A token endpoint's successful answer (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
struct TokenResponse: Decodable, Sendable {
    var accessToken: String
    var tokenType: String
    var expiresIn: Double?
    var refreshToken: String?
    var idToken: String?
    var scope: String?
    /// `issued_token_type`, in a token exchange's answer (RFC 8693 §2.2.1).
    var issuedTokenType: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case issuedTokenType = "issued_token_type"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        tokenType = try container.decode(String.self, forKey: .tokenType)
        // Some servers send expires_in as a string.
        if let number = try? container.decodeIfPresent(Double.self, forKey: .expiresIn) {
            expiresIn = number
        } else if let string = try? container.decodeIfPresent(String.self, forKey: .expiresIn) {
            expiresIn = Double(string)
        } else {
            expiresIn = nil
        }
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        issuedTokenType = try? container.decodeIfPresent(String.self, forKey: .issuedTokenType)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
    }

    /// Reads the fragment parameters of an implicit response.
    init(implicit parameters: [String: String]) throws(OAuthError) {
        guard let accessToken = parameters["access_token"], !accessToken.isEmpty else {
            throw OAuthError(code: .invalidCallback, message: "the implicit response has no access_token")
        }
        self.accessToken = accessToken
        tokenType = parameters["token_type"] ?? "Bearer"
        expiresIn = parameters["expires_in"].flatMap(Double.init)
        refreshToken = nil
        idToken = nil
        scope = parameters["scope"]
    }

    /// The token set, with `now` as the receipt time.
    ///
    /// - Throws: ``OAuthError/Code/invalidResponse`` when `expires_in` is not a finite number, or
    ///   a token or the token type holds a character RFC 6749 Appendix A does not allow (only
    ///   `%x20-7E`: `webauth token` prints the access token as it is). A negative `expires_in`
    ///   is an expired token, one beyond ``ProviderNumbers/longestTokenLifetime`` that long.
    func tokenSet(requestedScopes: [String], claims: IDTokenClaims?, now: Date) throws(OAuthError) -> TokenSet {
        for (field, value) in [
            ("access_token", accessToken), ("token_type", tokenType), ("refresh_token", refreshToken),
        ] {
            guard let value, !value.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else { continue }
            throw OAuthError(
                code: .invalidResponse, message: "the provider's \(field) holds characters RFC 6749 does not allow")
        }
        let lifetime = try expiresIn.map { (seconds) throws(OAuthError) in
            try ProviderNumbers.seconds(seconds, field: "expires_in", within: 0...ProviderNumbers.longestTokenLifetime)
        }
        return TokenSet(
            accessToken: accessToken, tokenType: tokenType, refreshToken: refreshToken, idToken: idToken,
            idTokenClaims: claims, expiresAt: lifetime.map { now.addingTimeInterval($0) },
            scopes: scope.map { $0.split(separator: " ").map(String.init) } ?? requestedScopes, receivedAt: now)
    }
}
