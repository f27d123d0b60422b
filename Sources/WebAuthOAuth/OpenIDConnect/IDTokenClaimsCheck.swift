// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The claim checks of OpenID Connect Core §3.1.3.7 (and §12.2 for refreshed tokens), as a
/// pure function of the payload, the expectations and the time.
struct IDTokenClaimsCheck: Sendable {
    /// The issuer the token must name: exactly, or as the template with its own tenant.
    var issuer: IssuerRule
    /// The client ID that must be in `aud` (and be `azp` when there are other audiences).
    var clientID: String
    /// The nonce sent, if one was: the token must carry the same one.
    var nonce: String?
    /// How far `exp` and `iat` may be off the local clock.
    var leeway: Duration
    /// For a refreshed token: the original token's claims, whose `iss` and `sub` must not change.
    var original: IDTokenClaims?

    func check(_ payload: RawIDTokenPayload, now: Date) throws(OAuthError) -> IDTokenClaims {
        func reject(_ problem: IDTokenProblem, _ message: String) -> OAuthError {
            OAuthError(code: .invalidIDToken, message: "ID token rejected: \(message)", idTokenProblem: problem)
        }
        let slack = leeway.timeInterval
        guard let iss = payload.iss else { throw reject(.wrongIssuer, "iss is missing") }
        var tenantID = payload.tid
        switch issuer {
        case .exact(let expected):
            guard iss == expected else {
                throw reject(.wrongIssuer, "iss is '\(iss.safeForDisplay)', expected '\(expected)'")
            }
        case .tenant(let template, let allowed):
            // The tenant comes from `tid`, never from `iss`: the issuer the token names must be
            // the one its own tenant has.
            guard let tid = payload.tid, let expected = template.issuer(forTenant: tid) else {
                throw reject(
                    .missingTenant, payload.tid == nil ? "tid is missing" : "tid is not a tenant identifier")
            }
            guard iss == expected else {
                throw reject(
                    .wrongIssuer, "iss is '\(iss.safeForDisplay)', expected '\(expected)' for tenant '\(tid)'")
            }
            if let allowed, !allowed.contains(tid) {
                throw reject(.tenantNotAllowed, "tenant '\(tid)' is not one of the allowed tenants")
            }
            tenantID = tid
        }
        guard let audience = payload.aud?.values, audience.contains(clientID) else {
            throw reject(.wrongAudience, "aud does not contain this client's ID")
        }
        if audience.count > 1, payload.azp != clientID {
            throw reject(.untrustedAudience, "aud names other audiences and azp is not this client")
        }
        if let azp = payload.azp, azp != clientID {
            throw reject(.untrustedAudience, "azp is not this client")
        }
        // Times go through ProviderNumbers: a time that is not a finite number in 1970–9999 is
        // refused, so none can make a date that traps when formatted or never expires.
        func time(_ name: String, _ value: Double?) throws(OAuthError) -> Date? {
            guard let value else { return nil }
            guard let date = ProviderNumbers.date(value) else {
                throw reject(.badTime, "\(name) is not a time between 1970 and 9999")
            }
            return date
        }
        guard let expiresAt = try time("exp", payload.exp) else { throw reject(.expired, "exp is missing") }
        guard now.timeIntervalSince(expiresAt) < slack else {
            throw reject(.expired, "it expired at \(expiresAt.formatted(.iso8601))")
        }
        guard let issuedAt = try time("iat", payload.iat) else { throw reject(.badIssuedAt, "iat is missing") }
        guard issuedAt.timeIntervalSince(now) <= slack else {
            throw reject(.badIssuedAt, "iat is in the future (\(issuedAt.formatted(.iso8601)))")
        }
        if let notBefore = try time("nbf", payload.nbf), notBefore.timeIntervalSince(now) > slack {
            throw reject(.notYetValid, "nbf is in the future (\(notBefore.formatted(.iso8601)))")
        }
        let authenticatedAt = try time("auth_time", payload.authTime)
        guard let sub = payload.sub, !sub.isEmpty else { throw reject(.missingSubject, "sub is missing") }
        if let nonce, payload.nonce != nonce {
            throw reject(.wrongNonce, payload.nonce == nil ? "nonce is missing" : "nonce is not the one sent")
        }
        if let original,
            original.issuer != iss || original.subject != sub
                || (original.tenantID != nil && original.tenantID != tenantID)
        {
            throw reject(.identityChanged, "the refreshed ID token names a different issuer, tenant or subject")
        }
        return IDTokenClaims(
            issuer: iss, subject: sub, audience: audience, expiresAt: expiresAt, issuedAt: issuedAt,
            nonce: payload.nonce, authorizedParty: payload.azp,
            authenticatedAt: authenticatedAt, email: payload.email,
            emailVerified: payload.emailVerified, name: payload.name, preferredUsername: payload.preferredUsername,
            tenantID: tenantID)
    }
}
