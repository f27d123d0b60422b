import Foundation
import Testing

@testable import WebAuthOAuth

@Suite("ID token claim checks (OpenID Connect Core §3.1.3.7)")
struct IDTokenClaimsCheckTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let check = IDTokenClaimsCheck(
        issuer: "https://issuer.example", clientID: "client", nonce: "n-1", leeway: .seconds(60), original: nil)

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
        otherIssuer.issuer = "https://issuer2.example"
        #expect(problem(try payload { $0.iss = "https://issuer2.example" }, check: otherIssuer) == .identityChanged)
    }
}
