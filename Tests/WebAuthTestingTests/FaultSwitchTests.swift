import Foundation
import Testing
import WebAuthOAuth

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
}
