// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthOAuth

/// The multi-tenant issuer rule: discovery accepts an issuer template only where it is the
/// configured issuer with one path segment replaced by `{tenantid}`, and an ID token's `iss`
/// must be the template with the token's own `tid`.
@Suite("Multi-tenant issuers ({tenantid} templates)")
struct MultiTenantIssuerTests {
    let configured = URL(string: "https://login.example.com/common/v2.0")!
    let template = "https://login.example.com/{tenantid}/v2.0"

    @Test func discoveryAcceptsTheConfiguredIssuerWithOneSegmentAsTheTemplate() throws {
        #expect(
            IssuerRule.discovered(
                documentIssuer: configured.absoluteString, configured: configured, allowedTenants: nil)
                == .exact(configured.absoluteString))
        let rule = try #require(
            IssuerRule.discovered(documentIssuer: template, configured: configured, allowedTenants: nil))
        guard case .tenant(let found, nil) = rule else {
            Issue.record("expected a tenant rule, got \(rule)")
            return
        }
        #expect(
            found.issuer(forTenant: "9188040d-6c67-4c5b-b112-36a304b66dad")
                == "https://login.example.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0")
        // The same shape at the root and with no suffix.
        #expect(
            IssuerRule.discovered(
                documentIssuer: "https://idp.example/{tenantid}",
                configured: URL(string: "https://idp.example/common")!,
                allowedTenants: nil) != nil)
    }

    /// Any other difference between the configured issuer and the document's is a mix-up.
    @Test(arguments: [
        "https://evil.example/{tenantid}/v2.0",  // another host
        "http://login.example.com/{tenantid}/v2.0",  // another scheme
        "https://login.example.com:8443/{tenantid}/v2.0",  // another port
        "https://login.example.com/{tenantid}/v2.1",  // another suffix
        "https://login.example.com/{tenantid}/v2.0/extra",  // another length
        "https://login.example.com/x{tenantid}/v2.0",  // not a whole segment
        "https://login.example.com/{tenantid}{tenantid}/v2.0",  // twice
        "https://login.example.com/{tenantid}/{tenantid}",  // two placeholders
        "https://login.example.com/common/v2.0/",  // a trailing slash: not the same string
        "{tenantid}",
    ])
    func discoveryRefusesEveryOtherDifference(documentIssuer: String) {
        #expect(
            IssuerRule.discovered(documentIssuer: documentIssuer, configured: configured, allowedTenants: nil) == nil)
    }

    @Test func discoveryChecksTheDocumentWithTheRule() throws {
        let metadata = ProviderMetadata(issuer: template)
        #expect(throws: Never.self) { try Discovery.checked(metadata, issuer: configured) }
        #expect(throws: OAuthError.self) {
            try Discovery.checked(ProviderMetadata(issuer: "https://evil.example/{tenantid}/v2.0"), issuer: configured)
        }
    }

    // MARK: - The ID token

    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func check(allowed: Set<String>? = nil) throws -> IDTokenClaimsCheck {
        let template = try #require(TenantIssuerTemplate(accepted: template))
        return IDTokenClaimsCheck(
            issuer: .tenant(template, allowed: allowed), clientID: "client", nonce: nil, leeway: .seconds(60),
            original: nil)
    }

    private func payload(iss: String, tid: String?) throws -> RawIDTokenPayload {
        var members: [String: Any] = [
            "iss": iss, "sub": "user-1", "aud": "client", "exp": now.timeIntervalSince1970 + 300,
            "iat": now.timeIntervalSince1970 - 10,
        ]
        if let tid { members["tid"] = tid }
        return try JSONDecoder().decode(RawIDTokenPayload.self, from: JSONSerialization.data(withJSONObject: members))
    }

    private func problem(_ payload: RawIDTokenPayload, _ check: IDTokenClaimsCheck) -> IDTokenProblem? {
        do {
            _ = try check.check(payload, now: now)
            return nil
        } catch {
            return error.idTokenProblem
        }
    }

    @Test func theTokensOwnTenantPasses() throws {
        let claims = try check().check(
            payload(iss: "https://login.example.com/tenant-a/v2.0", tid: "tenant-a"), now: now)
        #expect(claims.tenantID == "tenant-a")
        #expect(claims.issuer == "https://login.example.com/tenant-a/v2.0")
    }

    @Test func anIssuerOfAnotherTenantThanTidIsRefused() throws {
        #expect(
            problem(try payload(iss: "https://login.example.com/tenant-b/v2.0", tid: "tenant-a"), try check())
                == .wrongIssuer)
        #expect(
            problem(try payload(iss: template, tid: "tenant-a"), try check()) == .wrongIssuer, "the template itself")
    }

    @Test func aMissingOrUnusableTidIsRefused() throws {
        #expect(
            problem(try payload(iss: "https://login.example.com/tenant-a/v2.0", tid: nil), try check())
                == .missingTenant)
        for tid in ["", "a/b", "..", "tenant a", "ténant", "{tenantid}"] {
            #expect(
                problem(try payload(iss: "https://login.example.com/\(tid)/v2.0", tid: tid), try check())
                    == .missingTenant, "tid \(tid)")
        }
    }

    @Test func aTenantOutsideTheAllowListIsRefused() throws {
        let token = try payload(iss: "https://login.example.com/tenant-a/v2.0", tid: "tenant-a")
        #expect(problem(token, try check(allowed: ["tenant-b"])) == .tenantNotAllowed)
        #expect(problem(token, try check(allowed: ["tenant-a", "tenant-b"])) == nil)
    }

    @Test func aRefreshMustKeepTheTenant() throws {
        var refresh = try check()
        refresh.original = try refresh.check(
            payload(iss: "https://login.example.com/tenant-a/v2.0", tid: "tenant-a"), now: now)
        #expect(problem(try payload(iss: "https://login.example.com/tenant-a/v2.0", tid: "tenant-a"), refresh) == nil)
        #expect(
            problem(try payload(iss: "https://login.example.com/tenant-b/v2.0", tid: "tenant-b"), refresh)
                == .identityChanged)
    }

    // MARK: - The authorization response's iss (RFC 9207)

    @Test func anAuthorizationResponseIssuerMustFitTheTemplateAndTheAllowList() throws {
        let rule = IssuerRule.accepted(issuer: template, allowedTenants: ["tenant-a"])
        #expect(rule.admits(responseIssuer: "https://login.example.com/tenant-a/v2.0"))
        #expect(!rule.admits(responseIssuer: "https://login.example.com/tenant-b/v2.0"))
        #expect(!rule.admits(responseIssuer: "https://evil.example/tenant-a/v2.0"))
        #expect(!rule.admits(responseIssuer: "https://login.example.com/a/b/v2.0"))
        #expect(
            IssuerRule.accepted(issuer: "https://idp.example", allowedTenants: nil) == .exact("https://idp.example"))
    }
}
