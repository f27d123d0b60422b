// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthOAuth

@Suite("ID token claim checks (OpenID Connect Core §3.1.3.7)")
struct IDTokenClaimsCheckTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let check = IDTokenClaimsCheck(
        issuer: .exact("https://issuer.example"), clientID: "client", nonce: "n-1", leeway: .seconds(60), original: nil)

    private func payload(_ edit: (inout RawIDTokenPayload) -> Void = { _ in }) throws -> RawIDTokenPayload {
        let json = """
            {"iss":"https://issuer.example","sub":"user-1","aud":"client","exp":\(now.timeIntervalSince1970 + 300),
             "iat":\(now.timeIntervalSince1970 - 10),"nonce":"n-1"}
            """
        var payload = try JSONDecoder().decode(RawIDTokenPayload.self, from: Data(json.utf8))
        edit(&payload)
        return payload
    }

    private func problem(_ payload: RawIDTokenPayload, check: IDTokenClaimsCheck? = nil) -> IDTokenProblem? {
        do {
            _ = try (check ?? self.check).check(payload, now: now)
            return nil
        } catch {
            #expect(error.code == .invalidIDToken)
            return error.idTokenProblem
        }
    }

    @Test func acceptsAValidToken() throws {
        let claims = try check.check(payload(), now: now)
        #expect(claims.subject == "user-1")
        #expect(claims.audience == ["client"])
        #expect(claims.expiresAt == now.addingTimeInterval(300))
    }

    @Test func rejectsAWrongOrMissingIssuer() throws {
        #expect(problem(try payload { $0.iss = "https://evil.example" }) == .wrongIssuer)
        #expect(problem(try payload { $0.iss = "https://issuer.example/" }) == .wrongIssuer)
        #expect(problem(try payload { $0.iss = nil }) == .wrongIssuer)
    }

    @Test func rejectsAnAudienceWithoutTheClient() throws {
        #expect(problem(try payload { $0.aud = nil }) == .wrongAudience)
        let other = try JSONDecoder().decode(RawIDTokenPayload.Audience.self, from: Data(#"["other"]"#.utf8))
        #expect(problem(try payload { $0.aud = other }) == .wrongAudience)
    }

    @Test func acceptsAnAudienceArrayOfJustTheClient() throws {
        let array = try JSONDecoder().decode(RawIDTokenPayload.Audience.self, from: Data(#"["client"]"#.utf8))
        #expect(problem(try payload { $0.aud = array }) == nil)
    }

    @Test func extraAudiencesNeedAzpNamingTheClient() throws {
        let many = try JSONDecoder().decode(RawIDTokenPayload.Audience.self, from: Data(#"["client","other"]"#.utf8))
        #expect(problem(try payload { $0.aud = many }) == .untrustedAudience)
        #expect(
            problem(
                try payload {
                    $0.aud = many
                    $0.azp = "other"
                }) == .untrustedAudience)
        #expect(
            problem(
                try payload {
                    $0.aud = many
                    $0.azp = "client"
                }) == nil)
        #expect(problem(try payload { $0.azp = "other" }) == .untrustedAudience)
    }

    @Test func expiryHasABoundedLeeway() throws {
        let justExpired = now.timeIntervalSince1970 - 30
        #expect(problem(try payload { $0.exp = justExpired }) == nil)
        #expect(problem(try payload { $0.exp = now.timeIntervalSince1970 - 61 }) == .expired)
        #expect(problem(try payload { $0.exp = nil }) == .expired)
    }

    @Test func issuedAtMustBeThereAndNotInTheFuture() throws {
        #expect(problem(try payload { $0.iat = nil }) == .badIssuedAt)
        #expect(problem(try payload { $0.iat = now.timeIntervalSince1970 + 3600 }) == .badIssuedAt)
        #expect(problem(try payload { $0.iat = now.timeIntervalSince1970 + 30 }) == nil)
    }

    @Test func subjectMustBeThere() throws {
        #expect(problem(try payload { $0.sub = nil }) == .missingSubject)
        #expect(problem(try payload { $0.sub = "" }) == .missingSubject)
    }

    @Test func nonceMustMatchWhenOneWasSent() throws {
        #expect(problem(try payload { $0.nonce = "other" }) == .wrongNonce)
        #expect(problem(try payload { $0.nonce = nil }) == .wrongNonce)
        var noNonce = check
        noNonce.nonce = nil
        #expect(problem(try payload { $0.nonce = nil }, check: noNonce) == nil)
    }

    @Test func aRefreshedTokenKeepsIssuerAndSubject() throws {
        var refresh = check
        refresh.nonce = nil
        refresh.original = try check.check(payload(), now: now)
        #expect(problem(try payload(), check: refresh) == nil)
        #expect(problem(try payload { $0.sub = "user-2" }, check: refresh) == .identityChanged)
        var otherIssuer = refresh
        otherIssuer.issuer = .exact("https://issuer2.example")
        #expect(problem(try payload { $0.iss = "https://issuer2.example" }, check: otherIssuer) == .identityChanged)
    }

    /// `exp`, `iat`, `nbf` and `auth_time` at zero, negative, huge, fractional and non-finite:
    /// a time outside 1970–9999 or not finite is refused as ``IDTokenProblem/badTime`` (no date
    /// that traps when formatted, none that never expires), a fractional one is taken.
    @Test(arguments: ["exp", "iat", "nbf", "auth_time"])
    func timesAreFiniteAndBounded(_ claim: String) throws {
        let t = now.timeIntervalSince1970
        func set(_ value: Double) throws -> RawIDTokenPayload {
            try payload { payload in
                switch claim {
                case "exp": payload.exp = value
                case "iat": payload.iat = value
                case "nbf": payload.nbf = value
                default: payload.authTime = value
                }
            }
        }
        for value in [-1, -1e300, 1e300, 253_402_300_800, .nan, .infinity, -.infinity] {
            #expect(problem(try set(value)) == .badTime, "\(claim) = \(value)")
        }
        // Zero is 1970: long expired for exp, fine for the others.
        #expect(problem(try set(0)) == (claim == "exp" ? .expired : nil), "\(claim) = 0")
        // A fractional time, in the past for iat, nbf and auth_time and ahead for exp.
        let fractional = claim == "exp" ? t + 299.5 : t - 9.5
        let claims = try check.check(try set(fractional), now: now)
        if claim == "exp" { #expect(claims.expiresAt.timeIntervalSince1970 == fractional) }
        if claim == "iat" { #expect(claims.issuedAt.timeIntervalSince1970 == fractional) }
        if claim == "auth_time" { #expect(claims.authenticatedAt?.timeIntervalSince1970 == fractional) }
    }

    @Test func aTokenNotYetValidIsRefused() throws {
        #expect(problem(try payload { $0.nbf = now.timeIntervalSince1970 + 3600 }) == .notYetValid)
        #expect(problem(try payload { $0.nbf = now.timeIntervalSince1970 + 30 }) == nil, "within the leeway")
    }
}
