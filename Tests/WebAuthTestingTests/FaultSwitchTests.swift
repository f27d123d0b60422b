// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The fault switches: each makes the real client fail in the typed way it should.
@Suite("Embedded provider: fault switches")
struct FaultSwitchTests {
    @Test func aSlowTokenEndpointMakesTheClientTimeOut() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            // A timeout far below the delay, yet long enough for discovery on a loaded machine.
            let client = try makeClient(provider, requestTimeout: .seconds(10))
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.setFault(.delay(.seconds(120)), for: .token)

            let error = await oauthError { try await client.refresh(tokens) }
            #expect(error?.code == .timedOut)
            // The delayed request had no effect: once the fault is gone, the refresh token works.
            provider.setFault(nil, for: .token)
            #expect(try await client.refresh(tokens).refreshToken != tokens.refreshToken)
        }
    }

    @Test func aConnectionClosedMidResponseFailsTheRequestAndChangesNothing() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.setFault(.closedMidResponse.times(1), for: .token)

            let error = await oauthError { try await client.refresh(tokens) }
            #expect(error?.code == .transportFailed, "\(String(describing: error))")
            // The broken answer carried nothing and used nothing up: the refresh token still works.
            #expect(provider.isActive(refreshToken: try #require(tokens.refreshToken)))
            #expect(try await client.refresh(tokens).refreshToken != tokens.refreshToken)
        }
    }

    @Test func anErrorResponseBecomesATypedServerError() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.setFault(
                .error("temporarily_unavailable", description: "maintenance", status: 503).times(1), for: .token)

            let error = await oauthError { try await client.refresh(tokens) }
            #expect(error?.code == .server)
            #expect(error?.serverError?.code == .temporarilyUnavailable)
            #expect(error?.serverError?.rawDescription == "maintenance")
            #expect(provider.requests(to: .token).last?.status == 503)
            // Once only: the next request is answered normally.
            #expect(provider.fault(for: .token) == nil)
            _ = try await client.refresh(tokens)
        }
    }

    @Test func anErrorOnTheAuthorizationEndpointComesBackAsARedirect() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.setFault(.error("server_error", description: "the provider is unwell"), for: .authorization)
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            // The client checked state and iss on the error redirect before reporting it.
            #expect(error?.code == .server)
            #expect(error?.serverError?.code == .serverError)
            #expect(provider.requests(to: .login).isEmpty)
        }
    }

    @Test func aGarbageBodyIsAnInvalidResponse() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.setFault(.garbageBody, for: .userInfo)
            #expect(await oauthError { try await client.userInfo(for: tokens) }?.code == .invalidResponse)

            provider.setFault(.garbageBody, for: .openIDConfiguration)
            provider.setFault(.garbageBody, for: .authorizationServerMetadata)
            let fresh = try makeClient(provider)
            #expect(await oauthError { try await fresh.metadata() }?.code == .invalidMetadata)
            provider.removeAllFaults()
            #expect(try await fresh.metadata().issuer == provider.issuer.absoluteString)
        }
    }

    @Test(arguments: [
        (EmbeddedProvider.IDTokenClaimOverrides(audience: ["someone-else"]), IDTokenProblem.wrongAudience),
        (.init(issuer: "http://127.0.0.1:1"), .wrongIssuer),
        (.init(nonce: "not-the-nonce"), .wrongNonce),
        (.init(removedClaims: ["nonce"]), .wrongNonce),
        (.init(lifetime: .seconds(-600)), .expired),
        (.init(issuedAtOffset: .seconds(3600)), .badIssuedAt),
        (.init(audience: ["webauth-demo", "other"], authorizedParty: "other"), .untrustedAudience),
        (.init(removedClaims: ["sub"]), .missingSubject),
    ])
    func wrongIDTokenClaimsAreRejectedByTheClient(
        _ overrides: EmbeddedProvider.IDTokenClaimOverrides, _ problem: IDTokenProblem
    ) async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.overrideIDTokenClaims(overrides)
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .invalidIDToken)
            #expect(error?.idTokenProblem == problem)

            provider.overrideIDTokenClaims(nil)
            let tokens = try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
        }
    }

    @Test func aChangedSubjectOnRefreshIsRejected() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.overrideIDTokenClaims(.init(subject: "someone-else"))
            let error = await oauthError { try await client.refresh(tokens) }
            #expect(error?.idTokenProblem == .identityChanged)
        }
    }

    @Test func eachFixedAnswerIsSentExactlyAndForOneRequestOnly() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let cases: [(EmbeddedProvider.Fault, status: Int, contentType: String?, body: String)] = [
                (
                    .answer(503, body: "<html>down</html>", contentType: "text/html"), 503, "text/html",
                    "<html>down</html>"
                ),
                (.htmlInsteadOfJSON, 200, "text/html; charset=utf-8", "<!DOCTYPE html>"),
                (.emptyBody, 200, "application/json", ""),
                (.jsonArray, 200, "application/json", #"["access_token", "abc"]"#),
                (.closedWithoutAnswer, 0, nil, ""),
            ]
            for (fault, status, contentType, body) in cases {
                provider.setFault(fault.times(1), for: .jwks)
                let answer = try await RawHTTPClient.request(method: "GET", url: provider.url(.jwks))
                #expect(answer.status == status, "\(fault)")
                #expect(answer.header("Content-Type") == contentType, "\(fault)")
                #expect(body.isEmpty ? answer.body.isEmpty : answer.body.hasPrefix(body), "\(fault)")
                if status == 0 { #expect(answer.raw.isEmpty, "not a byte") }
            }
            let normal = try await RawHTTPClient.request(method: "GET", url: provider.url(.jwks))
            #expect(normal.status == 200 && normal.body.contains(#""keys""#), "each fault was for one request")
        }
    }

    @Test func anOversizedBodyIsValidJSONOfTheSizeAsked() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.setFault(.oversizedBody(byteCount: 100_000), for: .token)
            let answer = try await RawHTTPClient.request(method: "POST", url: provider.url(.token))
            #expect(answer.status == 200)
            #expect(answer.body.utf8.count == 100_000)
            #expect((try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) is [String: Any])
        }
    }

    @Test(arguments: [
        ("HTML", EmbeddedProvider.Fault.htmlInsteadOfJSON, OAuthError.Code.invalidResponse),
        ("empty", .emptyBody, .invalidResponse), ("array", .jsonArray, .invalidResponse),
        ("oversized", .oversizedBody(), .responseTooLarge), ("closed", .closedWithoutAnswer, .transportFailed),
    ])
    func theClientRefusesEachBrokenTokenAnswer(_ name: String, _ fault: EmbeddedProvider.Fault, _ code: OAuthError.Code)
        async throws
    {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.setFault(fault.times(1), for: .token)
            let error = await oauthError { try await client.refresh(tokens) }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
            #expect(provider.isActive(refreshToken: try #require(tokens.refreshToken)), "nothing used up")
        }
    }
}
