// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCore
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The provider's forgery switches: what each one changes on the wire, that it changes nothing
/// else, and that the package's own client refuses what it forges.
@Suite("Embedded provider: forgery switches")
struct ForgerySwitchTests {
    /// The redirect that ends an authorization through the pages, as received.
    private static func finalRedirect(
        _ provider: EmbeddedProvider, _ authorization: RawAuthorization = RawAuthorization()
    ) async throws -> [String: String] {
        let browser = HandBrowser()
        var page = try await browser.get(authorization.url(provider))
        if page.html.forms.first?.hasPassword == true {
            page = try await browser.submit(
                on: page,
                values: [
                    "username": EmbeddedProvider.User.demo.username, "password": EmbeddedProvider.User.demo.password,
                ]
            )
        }
        if page.status == 200 { page = try await browser.submit(on: page, button: "approve") }
        #expect([302, 303].contains(page.status), "a redirect back to the client")
        return page.redirectQuery
    }

    @Test func theAuthorizationResponsesStateAndIssCanBeForgedOrLeftOut() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let authorization = RawAuthorization()
            let honest = try await Self.finalRedirect(provider, authorization)
            #expect(honest["state"] == authorization.state)
            #expect(honest["iss"] == provider.issuer.absoluteString)

            provider.overrideAuthorizationResponse(.init(issuer: .value("https://evil.example"), state: .absent))
            let forged = try await Self.finalRedirect(provider, authorization)
            #expect(forged["code"] != nil, "still a working code")
            #expect(forged["iss"] == "https://evil.example")
            #expect(forged["state"] == nil)

            provider.overrideAuthorizationResponse(.init(issuer: .absent, state: .value("forged-state")))
            let other = try await Self.finalRedirect(provider, authorization)
            #expect(other["iss"] == nil)
            #expect(other["state"] == "forged-state")

            // Error responses are forged the same way.
            provider.setFault(.error("access_denied"), for: .authorization)
            let error = try await HandBrowser().get(authorization.url(provider))
            #expect(error.redirectQuery["error"] == "access_denied")
            #expect(error.redirectQuery["state"] == "forged-state")
            #expect(error.redirectQuery["iss"] == nil)

            provider.removeAllFaults()
            provider.overrideAuthorizationResponse(nil)
            let restored = try await Self.finalRedirect(provider, authorization)
            #expect(restored["state"] == authorization.state)
            #expect(restored["iss"] == provider.issuer.absoluteString)
        }
    }

    @Test(arguments: [
        (EmbeddedProvider.ForgedParameter.value("https://evil.example"), OAuthError.Code.issuerMismatch),
        (.absent, .issuerMissing),
    ])
    func theClientRefusesAForgedOrMissingIss(_ issuer: EmbeddedProvider.ForgedParameter, _ code: OAuthError.Code)
        async throws
    {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.overrideAuthorizationResponse(.init(issuer: issuer))
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == code, "\(String(describing: error))")
            #expect(provider.requests(to: .token).isEmpty, "the code was never exchanged")
        }
    }

    @Test func theClientRefusesAnAccessTokenInTheCallbacksQuery() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.overrideAuthorizationResponse(.init(additionalParameters: ["access_token": "leaked"]))
            let authorization = RawAuthorization()
            let redirect = try await Self.finalRedirect(provider, authorization)
            #expect(redirect["access_token"] == "leaked")
            #expect(redirect["code"] != nil && redirect["state"] == authorization.state)

            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .tokenInQuery, "\(String(describing: error))")
            #expect(provider.requests(to: .token).isEmpty, "the code was never exchanged")
        }
    }

    @Test func theMetadataCanNameAnotherIssuerOrLeaveMembersOut() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.overrideMetadata(
                .init(
                    issuer: "https://evil.example", promisesIssuerInAuthorizationResponses: false,
                    removedMembers: ["jwks_uri"]))
            for endpoint in [EmbeddedProvider.Endpoint.openIDConfiguration, .authorizationServerMetadata] {
                let document = try jsonObject(
                    try await RawHTTPClient.request(method: "GET", url: provider.url(endpoint)))
                #expect(document["issuer"] as? String == "https://evil.example")
                #expect(document["authorization_response_iss_parameter_supported"] as? Bool == false)
                #expect(document["jwks_uri"] == nil)
                #expect(document["token_endpoint"] as? String == provider.url(.token).absoluteString)
            }
            provider.overrideMetadata(.init(issuer: "https://evil.example"))
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .invalidMetadata, "\(String(describing: error))")
            #expect(provider.requests(to: .authorization).isEmpty, "nothing after the discovery")

            provider.overrideMetadata(nil)
            let document = try jsonObject(
                try await RawHTTPClient.request(method: "GET", url: provider.url(.openIDConfiguration)))
            #expect(document["issuer"] as? String == provider.issuer.absoluteString)
            #expect(document["jwks_uri"] != nil)
        }
    }

    @Test(arguments: [
        (EmbeddedProvider.IDTokenSignatureForgery.unsigned, IDTokenProblem.forbiddenAlgorithm),
        (.invalidSignature, .badSignature),
        (.unknownKeyID, .unknownKey),
        (.hmacWithPublicKey, .forbiddenAlgorithm),
        (.signedByAnotherKey, .badSignature),
        (.hmacWithArbitrarySecret, .forbiddenAlgorithm),
        (.signedWithRS384, .unexpectedAlgorithm),
        (.signedWithPS256, .unexpectedAlgorithm),
        (.signedWithES256, .unexpectedAlgorithm),
    ])
    func theClientRefusesEachForgedIDTokenSignature(
        _ forgery: EmbeddedProvider.IDTokenSignatureForgery, _ problem: IDTokenProblem
    ) async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.forgeIDTokenSignatures(forgery)
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .invalidIDToken, "\(String(describing: error))")
            #expect(error?.idTokenProblem == problem, "\(String(describing: error))")
            #expect(provider.requests(to: .userInfo).isEmpty, "nothing after the refused ID token")

            provider.forgeIDTokenSignatures(nil)
            let tokens = try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
        }
    }

    @Test func aForgedIDTokenSaysWhatItsForgerySays() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            for forgery in EmbeddedProvider.IDTokenSignatureForgery.allCases {
                provider.forgeIDTokenSignatures(forgery)
                let authorization = RawAuthorization()
                let code = try await provider.authorizeByHand(HandBrowser(), authorization)
                let tokens = try jsonObject(try await provider.exchange(code, authorization))
                let idToken = try #require(tokens["id_token"] as? String)
                let parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                #expect(parts.count == 3)
                let header = try #require(
                    Data(base64URLEncoded: parts[0]).flatMap { try? JSONSerialization.jsonObject(with: $0) }
                        as? [String: String])
                switch forgery {
                case .unsigned:
                    #expect(header["alg"] == "none")
                    #expect(parts[2].isEmpty)
                case .invalidSignature:
                    #expect(header["alg"] == "RS256")
                    #expect(header["kid"] == provider.currentKeyID)
                case .unknownKeyID:
                    #expect(header["alg"] == "RS256")
                    #expect(!provider.publishedKeyIDs.contains(header["kid"] ?? ""))
                case .hmacWithPublicKey:
                    #expect(header["alg"] == "HS256")
                    #expect(header["kid"] == provider.currentKeyID)
                case .signedByAnotherKey:
                    #expect(header["alg"] == "RS256")
                    #expect(header["kid"] == provider.currentKeyID)
                case .withoutKeyID:
                    #expect(header["alg"] == "RS256")
                    #expect(header["kid"] == nil)
                case .hmacWithArbitrarySecret:
                    #expect(header["alg"] == "HS256")
                case .signedWithRS384, .signedWithPS256:
                    #expect(header["alg"] == (forgery == .signedWithRS384 ? "RS384" : "PS256"))
                    #expect(header["kid"] == provider.currentKeyID)
                case .signedWithES256, .signedWithES256ByAnotherKey:
                    #expect(header["alg"] == "ES256")
                    let keys = try jsonObject(try await RawHTTPClient.request(method: "GET", url: provider.url(.jwks)))
                    let served = (keys["keys"] as? [[String: String]] ?? []).filter { $0["kty"] == "EC" }
                    #expect(served.count == 1 && served.first?["kid"] == header["kid"], "the served P-256 key's kid")
                }
            }
        }
    }

    @Test func theCodeCanBeLeftOutAndTokensSentInTheFragment() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.overrideAuthorizationResponse(
                .init(code: .absent, fragmentParameters: ["access_token": "at-1", "token_type": "Bearer"]))
            let browser = HandBrowser()
            var page = try await browser.get(RawAuthorization().url(provider))
            page = try await browser.submit(
                on: page,
                values: [
                    "username": EmbeddedProvider.User.demo.username, "password": EmbeddedProvider.User.demo.password,
                ])
            if page.status == 200 { page = try await browser.submit(on: page, button: "approve") }
            let location = try #require(page.location)
            #expect(page.redirectQuery["code"] == nil)
            #expect(page.redirectQuery["state"] != nil)
            #expect(location.fragment == "access_token=at-1&token_type=Bearer")

            provider.overrideAuthorizationResponse(.init(code: .value("forged-code")))
            let forged = try await Self.finalRedirect(provider)
            #expect(forged["code"] == "forged-code")
        }
    }

    @Test func metadataMembersCanBeChanged() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.overrideMetadata(.init(changedMembers: ["token_endpoint": "http://evil.example/token"]))
            let document = try jsonObject(
                try await RawHTTPClient.request(method: "GET", url: provider.url(.openIDConfiguration)))
            #expect(document["token_endpoint"] as? String == "http://evil.example/token")
            #expect(document["issuer"] as? String == provider.issuer.absoluteString)
        }
    }

    @Test func userInfoCanAnswerForAnotherSubjectAndTheClientRefusesIt() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.forgeUserInfoSubject("someone-else")
            let error = await oauthError { try await client.userInfo(for: tokens) }
            #expect(error?.code == .userInfoSubjectMismatch, "\(String(describing: error))")
            provider.forgeUserInfoSubject(nil)
            #expect(try await client.userInfo(for: tokens).subject == EmbeddedProvider.User.demo.subject)
        }
    }
}
