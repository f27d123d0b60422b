// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import JWTKit
import WebAuthCore
import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The claims of a validated ID token (OpenID Connect Core §2) that programs use.
public struct IDTokenClaims: Sendable, Hashable, Codable {
    /// `iss`: the issuer.
    public var issuer: String
    /// `sub`: the person's stable identifier at the issuer.
    public var subject: String
    /// `aud`: the audiences (always containing the client ID once validated).
    public var audience: [String]
    /// `exp`.
    public var expiresAt: Date
    /// `iat`.
    public var issuedAt: Date
    /// `nonce`, if present.
    public var nonce: String?
    /// `azp`, if present.
    public var authorizedParty: String?
    /// `auth_time`, if present.
    public var authenticatedAt: Date?
    /// `email`, if present.
    public var email: String?
    /// `email_verified`, if present.
    public var emailVerified: Bool?
    /// `name`, if present.
    public var name: String?
    /// `preferred_username`, if present.
    public var preferredUsername: String?
    /// `tid`, the tenant, if present: always present and checked against the issuer for a
    /// multi-tenant provider (see ``ClientConfiguration/allowedTenants``).
    public var tenantID: String?

    /// Creates claims.
    public init(
        issuer: String, subject: String, audience: [String], expiresAt: Date, issuedAt: Date, nonce: String? = nil,
        authorizedParty: String? = nil, authenticatedAt: Date? = nil, email: String? = nil,
        emailVerified: Bool? = nil, name: String? = nil, preferredUsername: String? = nil, tenantID: String? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.nonce = nonce
        self.authorizedParty = authorizedParty
        self.authenticatedAt = authenticatedAt
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.preferredUsername = preferredUsername
        self.tenantID = tenantID
    }

    /// The stored entry's keys (``TokenEntryFormat``), shared with the fast path's reader.
    private typealias CodingKeys = TokenEntryFormat.ClaimKey
}

/// An ID token's payload as it arrives: every claim optional, so that a missing one is a
/// validation failure with a name rather than a decoding error.
struct RawIDTokenPayload: JWTPayload {
    var iss: String?
    var sub: String?
    var aud: Audience?
    var exp: Double?
    var iat: Double?
    var nbf: Double?
    var nonce: String?
    var azp: String?
    var authTime: Double?
    var email: String?
    var emailVerified: Bool?
    var name: String?
    var preferredUsername: String?
    var tid: String?

    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nbf, nonce, azp, email, name, tid
        case authTime = "auth_time"
        case emailVerified = "email_verified"
        case preferredUsername = "preferred_username"
    }

    /// `aud` as a single string or an array (OpenID Connect Core §2).
    struct Audience: Codable, Sendable {
        var values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let single = try? container.decode(String.self) {
                values = [single]
            } else {
                values = try container.decode([String].self)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }
    }

    /// Signature verification only; the claims are checked by ``IDTokenClaimsCheck`` with the
    /// injected clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
