// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthURLSession

/// The lines of `SECURITY.md` under "Authorization request and response" and "ID token", each
/// tested against ``EmbeddedProvider`` with its forgery and fault switches, over real HTTP: the
/// client signs in through a loopback receiver with the scripted user agent, the provider
/// misbehaves as switched, and the test checks the typed error and, from the provider's request
/// log, that the client called nothing after the rejection.
@Suite("Security: authorization request and response")
struct AuthorizationResponseSecurityTests {
    // MARK: PKCE

    @Test func pkceIsAlwaysS256WithAStrongVerifier() async throws {
        #expect(
            try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")  // RFC 7636 Appendix B
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let wire = Wire()
            let browser = WatchedBrowser()
            _ = try await SignIn.run(provider, client: SignIn.client(provider, wire: wire), browser: browser).get()
            let authorize = try #require(browser.opened.first)
            #expect(authorize.queryValue("code_challenge_method") == "S256")
            let verifier = try #require(wire.formValues("code_verifier").first)
            #expect((43...128).contains(verifier.count))
            #expect(verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) })
            #expect(authorize.queryValue("code_challenge") == SignIn.s256(verifier))
            #expect(authorize.queryValue("code_verifier") == nil)
            // Fresh for every sign-in.
            _ = try await SignIn.run(provider, client: SignIn.client(provider, wire: wire)).get()
            #expect(Set(wire.formValues("code_verifier")).count == 2)
        }
    }

    // MARK: state

    @Test(arguments: [
        EmbeddedProvider.ForgedParameter.value("forged-state"), .absent, .value(""),
    ])
    func aWrongOrMissingStateIsNeverAccepted(_ state: EmbeddedProvider.ForgedParameter) async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideAuthorizationResponse(.init(state: state))
            try await SignIn.expectCallbackTurnedAway(provider)
        }
    }

    @Test func aForgedCallbackDoesNotEndTheRealSession() async throws {
        // The provider holds its authorization page until the test moves its clock on.
        let time = SteppedClock()
        var configuration = SignIn.configuration
        configuration.clock = time.clock
        try await EmbeddedProvider.withProvider(configuration) { provider in
            provider.setFault(.delay(.seconds(60)).times(1), for: .authorization)
            let wire = Wire()
            let browser = WatchedBrowser()
            let client = try SignIn.client(provider, wire: wire)
            let signIn = Task { await SignIn.run(provider, client: client, browser: browser) }
            // The browser is at the (held) authorization page; an attacker hits the listener first.
            let authorize = try #require(await browser.waitForOpenedURL())
            #expect(await eventually { time.sleeperCount == 1 }, "the authorization page is held")
            let redirect = try #require(authorize.queryValue("redirect_uri").flatMap(URL.init(string:)))
            let forged = try await RawHTTPClient.get(
                port: try #require(redirect.port), target: redirect.path + "?code=attacker-code&state=forged")
            #expect(forged.status == 400, "the forged callback is turned away")
            time.advance(by: .seconds(60))

            let tokens = try await signIn.value.get()
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            // One code went to the token endpoint, the provider's: it would refuse any other.
            let exchanged = wire.formValues("code")
            #expect(exchanged.count == 1)
            #expect(exchanged.first != "attacker-code")
            #expect(provider.requests(to: .token).map(\.status) == [200])
        }
    }

    @Test func aCallbackWithAnotherStateIsTypedWhenCompletedByHand() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            let authorization = try await client.prepareAuthorization()
            let callback = try #require(URL(string: "http://127.0.0.1:9/callback?code=abc&state=forged"))
            do throws(OAuthError) {
                _ = try await client.completeAuthorization(
                    authorization, received: ReceivedCallback(url: callback, redirectURI: callback))
                Issue.record("accepted a callback with another state")
            } catch {
                #expect(error.code == .stateMismatch)
            }
            expectPaths(provider, [SignIn.discovery])
        }
    }

    @Test func aStateAnswersOneResponseOnly() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            let authorization = try await client.prepareAuthorization()
            var components = URLComponents(string: "http://127.0.0.1:9/callback")!
            components.queryItems = [
                .init(name: "code", value: "code-from-the-first-redirect"),
                .init(name: "state", value: authorization.request.state),
                .init(name: "iss", value: provider.issuer.absoluteString),
            ]
            let callback = try #require(components.url)
            let received = ReceivedCallback(url: callback, redirectURI: callback)
            // The first response is taken (the provider refuses the made-up code; that is beside the point).
            _ = try? await client.completeAuthorization(authorization, received: received)
            #expect(provider.requests(to: .token).count == 1)
            // The same redirect again — replayed, or from a second tab — goes nowhere.
            let copy = authorization
            do throws(OAuthError) {
                _ = try await client.completeAuthorization(copy, received: received)
                Issue.record("a second response with the same state was taken")
            } catch {
                #expect(error.code == .stateMismatch)
                #expect(error.message.contains("already used"))
            }
            #expect(provider.requests(to: .token).count == 1, "the replayed code was not sent anywhere")
        }
    }

    // MARK: RFC 9207 iss

    @Test func anIssuerMismatchIsRejectedAndNoOtherEndpointIsCalled() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideAuthorizationResponse(.init(issuer: .value("https://evil.example")))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMismatch)
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test(arguments: ["/", "https://127.0.0.1"])
    func theIssuerIsComparedAsAnExactString(_ variant: String) async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            // The real issuer with a trailing slash, or with another scheme.
            let real = provider.issuer.absoluteString
            let issuer = variant == "/" ? real + "/" : real.replacingOccurrences(of: "http:", with: "https:")
            provider.overrideAuthorizationResponse(.init(issuer: .value(issuer)))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMismatch)
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func aMissingIssWhenTheMetadataPromisesItIsRejected() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideAuthorizationResponse(.init(issuer: .absent))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMissing)
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func anErrorAnswerWithoutThePromisedIssIsRefusedAndShowsWhatItSays() async throws {
        var configuration = SignIn.configuration
        configuration.clients = configuration.clients.map { client in
            var client = client
            if client.id == SignIn.clientID { client.allowedScopes.remove("offline_access") }
            return client
        }
        try await EmbeddedProvider.withProvider(configuration) { provider in
            provider.overrideAuthorizationResponse(.init(issuer: .absent))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMissing)
            #expect(error.serverError?.code == .invalidScope)
            #expect(
                error.message.hasSuffix(
                    "the provider answered invalid_scope: 'offline_access' is not allowed for this client "
                        + "(not confirmed: the answer carries no iss)"), "\(error.message)")
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func aMissingIssIsAcceptedWhenTheMetadataDoesNotPromiseIt() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideMetadata(.init(promisesIssuerInAuthorizationResponses: false))
            provider.overrideAuthorizationResponse(.init(issuer: .absent))
            _ = try await SignIn.run(provider).get()
            expectPaths(provider, SignIn.throughJWKS)
        }
    }

    // MARK: Error responses

    @Test(arguments: ["https://docs.example/denied", "javascript:alert(1)"])
    func anErrorResponseIsTypedAndItsDescriptionMadeSafe(_ uri: String) async throws {
        let hostile =
            "Denied\u{1B}]0;owned\u{07}\u{1B}[2J\r\nFAKE LOG LINE <script>alert(1)</script>\u{202E}\u{2028}FAKE\u{200B}"
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.setFault(.error("access_denied", description: hostile), for: .authorization)
            provider.overrideAuthorizationResponse(.init(additionalParameters: ["error_uri": uri]))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .server)
            let serverError = try #require(error.serverError)
            #expect(serverError.code == .accessDenied)
            #expect(serverError.endpoint == .authorization)
            #expect(serverError.rawDescription == hostile)
            #expect(serverError.uri == (uri.hasPrefix("https:") ? URL(string: uri) : nil))
            let safe = try #require(serverError.safeDescription)
            for shown in [safe, serverError.description, error.message, error.description] {
                let unsafe = shown.unicodeScalars.filter {
                    [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
                }
                #expect(unsafe.isEmpty, "\(shown)")
            }
            // The loopback listener's failure page escapes it for HTML (LoopbackReceiverTests).
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    // MARK: Tokens in URLs

    @Test func anAccessTokenInTheQueryIsRejected() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            // An implicit-flow answer in the query: tokens and no code.
            provider.overrideAuthorizationResponse(
                .init(code: .absent, additionalParameters: ["access_token": "at-1", "token_type": "Bearer"]))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .tokenInQuery)
            #expect(!error.message.contains("at-1"))
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func anImplicitFragmentResponseIsNotTakenByACodeFlowClient() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            // Tokens in the fragment: the listener gets the redirect without them, and no state.
            provider.overrideAuthorizationResponse(
                .init(
                    issuer: .absent, state: .absent, code: .absent,
                    fragmentParameters: ["access_token": "at-1", "token_type": "Bearer", "expires_in": "3600"]))
            try await SignIn.expectCallbackTurnedAway(provider)

            // Handed over directly, the fragment is not read either.
            let client = try SignIn.client(provider)
            let authorization = try await client.prepareAuthorization()
            let fragment = "access_token=at-1&token_type=Bearer&state=\(authorization.request.state)"
            let callback = try #require(URL(string: "http://127.0.0.1:9/callback#" + fragment))
            do throws(OAuthError) {
                _ = try await client.completeAuthorization(
                    authorization, received: ReceivedCallback(url: callback, redirectURI: callback))
                Issue.record("a code-flow client took an implicit response")
            } catch {
                #expect([.stateMismatch, .invalidCallback].contains(error.code))
            }
            #expect(provider.requests(to: .token).isEmpty)
        }
    }
}

@Suite("Security: ID token")
struct IDTokenSecurityTests {
    // MARK: iss, aud, azp

    @Test func aWrongIssuerIsRejected() async throws {
        try await expectIDTokenRejected(.wrongIssuer, claims: .init(issuer: "https://evil.example"))
    }

    @Test func aMissingAudienceIsRejected() async throws {
        try await expectIDTokenRejected(.wrongAudience, claims: .init(removedClaims: ["aud"]))
    }

    // One audience is sent as a string, several as an array.
    @Test(arguments: [["other-client"], ["other-client", "another-client"], [], ["WEBAUTH-DEMO"]])
    func anAudienceWithoutTheClientIDIsRejected(_ audience: [String]) async throws {
        try await expectIDTokenRejected(.wrongAudience, claims: .init(audience: audience))
    }

    @Test(arguments: [nil, "other-client"])
    func anExtraAudienceWithoutMatchingAzpIsRejected(_ azp: String?) async throws {
        try await expectIDTokenRejected(
            .untrustedAudience,
            claims: .init(
                audience: [SignIn.clientID, "other-client"], authorizedParty: azp,
                removedClaims: azp == nil ? ["azp"] : []))
    }

    @Test(arguments: [false, true])
    func anAudienceArrayContainingTheClientIsAccepted(_ withOtherAudience: Bool) async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            // With another audience, `azp` names the client (as it always does here).
            let audience = withOtherAudience ? [SignIn.clientID, "other-client"] : [SignIn.clientID]
            provider.overrideIDTokenClaims(.init(audience: audience))
            let tokens = try await SignIn.run(provider).get()
            #expect(tokens.idTokenClaims?.audience.contains(SignIn.clientID) == true)
        }
    }

    // MARK: Signatures and algorithms

    @Test func anRS256SignatureByAnotherKeyIsRejected() async throws {
        try await expectIDTokenRejected(.badSignature, signature: .signedByAnotherKey)
    }

    @Test func anRS256SignatureThatDoesNotVerifyIsRejected() async throws {
        try await expectIDTokenRejected(.badSignature, signature: .invalidSignature)
    }

    @Test func algNoneIsRejected() async throws {
        try await expectIDTokenRejected(.forbiddenAlgorithm, signature: .unsigned, fetchesKeys: false)
    }

    @Test func algNoneIsRejectedEvenWhenConfigured() async throws {
        try await expectIDTokenRejected(
            .forbiddenAlgorithm, signature: .unsigned, algorithms: ["none", "RS256"], fetchesKeys: false)
    }

    @Test func hs256KeyedWithThePublicKeyIsRejectedForAPublicClient() async throws {
        // The classic key confusion: HMAC keyed with the provider's RSA public key.
        try await expectIDTokenRejected(
            .forbiddenAlgorithm, signature: .hmacWithPublicKey, algorithms: ["RS256", "HS256"], fetchesKeys: false)
    }

    @Test func hs256KeyedWithAnArbitrarySecretIsRejectedForAPublicClient() async throws {
        try await expectIDTokenRejected(
            .forbiddenAlgorithm, signature: .hmacWithArbitrarySecret, algorithms: ["RS256", "HS256"],
            fetchesKeys: false)
    }

    @Test(arguments: [
        EmbeddedProvider.IDTokenSignatureForgery.signedWithPS256, .signedWithRS384, .signedWithES256,
    ])
    func anAlgorithmOtherThanTheExpectedOneIsRejected(_ signature: EmbeddedProvider.IDTokenSignatureForgery)
        async throws
    {
        // Each is a valid signature by a key the provider serves.
        try await expectIDTokenRejected(.unexpectedAlgorithm, signature: signature, fetchesKeys: false)
    }

    @Test func anES256SignatureByAnotherKeyIsRejected() async throws {
        try await expectIDTokenRejected(
            .badSignature, signature: .signedWithES256ByAnotherKey, algorithms: ["ES256"])
    }

    @Test func anES256TokenFromTheServedKeyIsAccepted() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.forgeIDTokenSignatures(.signedWithES256)
            _ = try await SignIn.run(provider, client: SignIn.client(provider, algorithms: ["ES256"])).get()
        }
    }

    // MARK: Times

    @Test func anExpiredTokenBeyondTheLeewayIsRejected() async throws {
        // The provider's tokens live 600 s; the client's clock is 600 + 120 s ahead (leeway 60 s).
        let clock = OAuthClock(now: { Date().addingTimeInterval(720) }, sleep: OAuthClock.system.sleep)
        try await expectIDTokenRejected(.expired, clock: clock)
    }

    @Test func anExpiredTokenWithinTheLeewayIsAccepted() async throws {
        let clock = OAuthClock(now: { Date().addingTimeInterval(620) }, sleep: OAuthClock.system.sleep)
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let tokens = try await SignIn.run(provider, client: SignIn.client(provider, clock: clock)).get()
            #expect(tokens.idTokenClaims != nil)
        }
    }

    @Test func aMissingExpIsRejected() async throws {
        try await expectIDTokenRejected(.expired, claims: .init(removedClaims: ["exp"]))
    }

    @Test func aMissingIatIsRejected() async throws {
        try await expectIDTokenRejected(.badIssuedAt, claims: .init(removedClaims: ["iat"]))
    }

    @Test func anIatFarInTheFutureIsRejected() async throws {
        try await expectIDTokenRejected(
            .badIssuedAt, claims: .init(lifetime: .seconds(3600), issuedAtOffset: .seconds(3600)))
    }

    // MARK: sub and nonce

    @Test(arguments: [nil, ""])
    func aMissingSubjectIsRejected(_ subject: String?) async throws {
        try await expectIDTokenRejected(
            .missingSubject,
            claims: subject.map { .init(subject: $0) } ?? .init(removedClaims: ["sub"]))
    }

    @Test func aWrongNonceIsRejected() async throws {
        try await expectIDTokenRejected(.wrongNonce, claims: .init(nonce: "attacker-nonce"))
    }

    @Test func aMissingNonceIsRejected() async throws {
        try await expectIDTokenRejected(.wrongNonce, claims: .init(removedClaims: ["nonce"]))
    }

    // MARK: Keys

    @Test func anUnknownKidCausesExactlyOneJWKSRefetchThenFails() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            // A client that has the provider's keys cached from an earlier sign-in.
            let client = try SignIn.client(provider)
            _ = try await SignIn.run(provider, client: client).get()
            provider.forgeIDTokenSignatures(.unknownKeyID)
            let error = try #require(await SignIn.run(provider, client: client).failure)
            #expect(error.code == .invalidIDToken)
            #expect(error.idTokenProblem == .unknownKey)
            #expect(provider.requests(to: .jwks).count == 2)
            expectPaths(provider, SignIn.throughJWKS + SignIn.signInAgain + ["/jwks"])
        }
    }

    @Test func anUnknownKidIsFoundAfterTheProviderRotatedItsKeys() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            _ = try await SignIn.run(provider, client: client).get()
            try await provider.rotateSigningKey()
            let tokens = try await SignIn.run(provider, client: client).get()
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            #expect(provider.requests(to: .jwks).count == 2)
            expectPaths(provider, SignIn.throughJWKS + SignIn.signInAgain + ["/jwks"])
        }
    }

    @Test func theKeysAreFetchedWhileThePersonSignsInNotAfterTheCallback() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let tokens = try await SignIn.run(provider).get()
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            let paths = provider.requests.map(\.path)
            let keys = try #require(paths.firstIndex(of: "/jwks"))
            let token = try #require(paths.firstIndex(of: "/token"))
            #expect(keys < token, "the key set was fetched before the callback: \(paths)")
            #expect(provider.requests(to: .jwks).count == 1, "the ID token was checked with the prefetched set")
        }
    }

    @Test func aFailedPrefetchOfTheKeysDoesNotFailTheSignIn() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.setFault(.answer(503).times(1), for: .jwks)
            let tokens = try await SignIn.run(provider).get()
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            #expect(provider.requests(to: .jwks).map(\.status) == [503, 200], "the check fetched the set again")
        }
    }

    @Test func concurrentValidationsShareOneJWKSFetch() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let tokens = try await SignIn.run(provider).get()
            let idToken = try #require(tokens.idToken)
            let nonce = tokens.idTokenClaims?.nonce
            #expect(provider.requests(to: .jwks).count == 1)
            // A fresh client with an empty cache, asked twenty times at once.
            let client = try SignIn.client(provider)
            _ = try await client.metadata()
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.validateIDToken(idToken, nonce: nonce).subject }
                }
                for try await subject in group { #expect(subject == EmbeddedProvider.User.demo.subject) }
            }
            #expect(provider.requests(to: .jwks).count == 2, "one fetch for the first client, one shared by the twenty")
        }
    }

    @Test func aKnownKidDoesNotRefetchTheJWKS() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            _ = try await SignIn.run(provider, client: client).get()
            _ = try await SignIn.run(provider, client: client).get()
            #expect(provider.requests(to: .jwks).count == 1)
        }
    }

    @Test func aTokenWithoutKidIsAcceptedWhenTheJWKSHasOneKey() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.forgeIDTokenSignatures(.withoutKeyID)
            #expect(provider.publishedKeyIDs.count == 1)
            _ = try await SignIn.run(provider).get()
        }
    }

    @Test func aTokenWithoutKidIsRejectedWhenTheJWKSHasSeveralCandidateKeys() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            try await provider.rotateSigningKey()
            provider.forgeIDTokenSignatures(.withoutKeyID)
            #expect(provider.publishedKeyIDs.count == 2)
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.idTokenProblem == .unknownKey)
            expectPaths(provider, SignIn.throughJWKS)
        }
    }

    // MARK: UserInfo and refresh

    @Test func aUserInfoSubjectOtherThanTheIDTokensIsRejected() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            let tokens = try await SignIn.run(provider, client: client).get()
            provider.forgeUserInfoSubject("someone-else")
            do throws(OAuthError) {
                _ = try await client.userInfo(for: tokens)
                Issue.record("accepted UserInfo about another subject")
            } catch {
                #expect(error.code == .userInfoSubjectMismatch)
            }
            expectPaths(provider, SignIn.throughJWKS + ["/userinfo"])

            provider.forgeUserInfoSubject(nil)
            #expect(try await client.userInfo(for: tokens).subject == EmbeddedProvider.User.demo.subject)
        }
    }

    @Test(arguments: ["iss", "sub"])
    func aRefreshedIDTokenWithAnotherIdentityIsRejected(_ claim: String) async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            let tokens = try await SignIn.run(provider, client: client).get()
            // From now on: the refresh's ID token.
            provider.overrideIDTokenClaims(
                claim == "iss"
                    ? .init(issuer: provider.issuer.absoluteString + "/other") : .init(subject: "someone-else"))
            do throws(OAuthError) {
                _ = try await client.refresh(tokens)
                Issue.record("accepted a refreshed ID token with another \(claim)")
            } catch {
                #expect(error.code == .invalidIDToken)
                #expect(error.idTokenProblem == (claim == "iss" ? .wrongIssuer : .identityChanged))
            }
            expectPaths(provider, SignIn.throughJWKS + ["/token"])
        }
    }

    @Test func aRefreshedIDTokenWithTheSameIdentityIsAccepted() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            let client = try SignIn.client(provider)
            let tokens = try await SignIn.run(provider, client: client).get()
            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.idTokenClaims?.subject == tokens.idTokenClaims?.subject)
            #expect(refreshed.refreshToken != tokens.refreshToken)
        }
    }

    // MARK: A provider that misbehaves at the token endpoint

    @Test(arguments: ["garbage JSON", "HTML", "a JSON array", "an empty body"])
    func anUnreadableTokenResponseIsRejected(_ kind: String) async throws {
        let fault: EmbeddedProvider.Fault =
            switch kind {
            case "garbage JSON": .garbageBody
            case "HTML": .htmlInsteadOfJSON
            case "a JSON array": .jsonArray
            default: .emptyBody
            }
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.setFault(fault, for: .token)
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .invalidResponse)
            expectPaths(provider, SignIn.throughToken)
        }
    }

    @Test func aSlowTokenEndpointTimesOut() async throws {
        // The provider's clock never moves, so its answer never comes; the client's deadline ends
        // the wait. The timeout leaves discovery time on a loaded machine.
        var configuration = SignIn.configuration
        configuration.clock = SteppedClock().clock
        try await EmbeddedProvider.withProvider(configuration) { provider in
            provider.setFault(.delay(.seconds(600)), for: .token)
            let client = try SignIn.client(provider, requestTimeout: .seconds(30))
            let error = try #require(await SignIn.run(provider, client: client).failure)
            #expect(error.code == .timedOut)
            // The held request is logged only once answered: nothing after discovery.
            expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func anOversizedTokenResponseIsRejected() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.setFault(.oversizedBody(), for: .token)
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .responseTooLarge)
            expectPaths(provider, SignIn.throughToken)
        }
    }

    // MARK: Helpers

    /// Signs in against a provider whose ID token claims and signature are forged as given,
    /// and expects the ID token to be rejected with `problem` — with nothing called after the
    /// token endpoint but the JWKS (when the check got that far).
    private func expectIDTokenRejected(
        _ problem: IDTokenProblem, claims: EmbeddedProvider.IDTokenClaimOverrides? = nil,
        signature: EmbeddedProvider.IDTokenSignatureForgery? = nil, algorithms: [String] = ["RS256"],
        clock: OAuthClock = .system, fetchesKeys: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideIDTokenClaims(claims)
            provider.forgeIDTokenSignatures(signature)
            let client = try SignIn.client(provider, algorithms: algorithms, clock: clock)
            let result = await SignIn.run(provider, client: client)
            let error = try #require(
                result.failure, "accepted an ID token with \(problem)", sourceLocation: sourceLocation)
            #expect(error.code == .invalidIDToken, sourceLocation: sourceLocation)
            #expect(error.idTokenProblem == problem, "\(error)", sourceLocation: sourceLocation)
            expectPaths(
                provider, fetchesKeys ? SignIn.throughJWKS : SignIn.throughToken, sourceLocation: sourceLocation)
            #expect(provider.requests(to: .token).count == 1, sourceLocation: sourceLocation)
        }
    }
}

@Suite("Security: discovery and mix-up")
struct DiscoverySecurityTests {
    @Test func metadataNamingAnotherIssuerIsRejectedBeforeAnyOtherRequest() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideMetadata(.init(issuer: "https://evil.example"))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .invalidMetadata)
            #expect(provider.requests.allSatisfy { $0.path.hasPrefix("/.well-known/") })
            #expect(provider.requests(to: .authorization).isEmpty)
        }
    }

    @Test func metadataWithAnInsecureEndpointIsRejected() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { provider in
            provider.overrideMetadata(.init(changedMembers: ["token_endpoint": "http://evil.example/token"]))
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .invalidMetadata)
            #expect(provider.requests(to: .authorization).isEmpty)
        }
    }

    /// RFC 9700 §4.4: the client talks to an honest and to an attacking provider; the response
    /// to its request at the honest one comes back naming the attacker as issuer. It is
    /// rejected, and neither provider's token endpoint hears of the code.
    @Test func aResponseFromAnotherProviderIsNotRedeemedAnywhere() async throws {
        try await EmbeddedProvider.withProvider(SignIn.configuration) { attacker in
            try await EmbeddedProvider.withProvider(SignIn.configuration) { honest in
                honest.overrideAuthorizationResponse(.init(issuer: .value(attacker.issuer.absoluteString)))
                // The program also signs in at the attacker, a provider it uses too: that works.
                _ = try await SignIn.run(attacker).get()
                let error = try #require(await SignIn.run(honest).failure)
                #expect(error.code == .issuerMismatch)
                #expect(honest.requests(to: .token).isEmpty)
                #expect(attacker.requests(to: .token).count == 1, "only the attacker's own sign-in")
            }
        }
    }
}

/// Signing in against an ``EmbeddedProvider`` with the real client, a loopback receiver and the
/// scripted user agent.
enum SignIn {
    static let clientID = EmbeddedProvider.Client.demo.id
    static let discovery = "/.well-known/openid-configuration"
    /// The paths of a sign-in through the pages: the person's (`/login`, `/consent`) are left
    /// out when paths are compared.
    static let throughAuthorize = [discovery, "/authorize"]
    static let throughToken = throughAuthorize + ["/token"]
    static let throughJWKS = throughToken + ["/jwks"]
    /// A second sign-in with the same client: its discovery document is cached.
    static let signInAgain = ["/authorize", "/token"]

    /// The provider the tests sign in at: ID tokens live 600 s, and no consent page.
    static var configuration: EmbeddedProvider.Configuration {
        EmbeddedProvider.Configuration(idTokenLifetime: .seconds(600), requiresConsent: false)
    }

    /// A public OpenID Connect client of `provider`, whose requests `wire` records when given.
    static func client(
        _ provider: EmbeddedProvider, algorithms: [String] = ["RS256"], clock: OAuthClock = .system,
        requestTimeout: Duration = .seconds(60), wire: Wire? = nil
    ) throws(OAuthError) -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: clientID, scopes: ["openid", "profile", "offline_access"],
                idTokenSigningAlgorithms: algorithms),
            transport: wire.map { RecordingTransport(wire: $0) } ?? URLSessionTransport(),
            clock: clock, requestTimeout: requestTimeout)
    }

    /// A sign-in, bounded by `sessionTimeout`; the session and its loopback listener log into
    /// `sessionLogs` when given. The default bounds only stop a hang: these tests check which
    /// error a hostile answer causes, and a machine busy with the whole suite can take more than
    /// ten seconds to answer discovery.
    static func run(
        _ provider: EmbeddedProvider, client: OAuthClient? = nil, browser: (any Browser)? = nil,
        sessionTimeout: Duration = .seconds(90), sessionLogs: CapturedLogs? = nil
    ) async -> Result<TokenSet, OAuthError> {
        do throws(OAuthError) {
            let client = if let client { client } else { try Self.client(provider) }
            return .success(
                try await client.signIn(
                    environment: SessionEnvironment(
                        browser: browser ?? ScriptedUserAgent(),
                        receivers: [
                            sessionLogs.map { LoopbackReceiver(logger: $0.logger(label: "loopback")) }
                                ?? LoopbackReceiver()
                        ]),
                    configureSession: { session in
                        session.timeout = sessionTimeout
                        if let sessionLogs { session.logger = sessionLogs.logger(label: "session") }
                    }))
        } catch {
            return .failure(error)
        }
    }

    /// Runs a sign-in whose callback the loopback listener must turn away (its log says so),
    /// checks that the session went on waiting until the program cancelled it, and that no
    /// endpoint after `/authorize` was called.
    static func expectCallbackTurnedAway(_ provider: EmbeddedProvider) async throws {
        let logs = CapturedLogs()
        let signIn = Task { await run(provider, sessionTimeout: .seconds(300), sessionLogs: logs) }
        let turnedAway = "received a callback the session did not accept"
        // Waits on the client's listener and session, not on the provider.
        #expect(
            await eventually { logs.all.contains { $0.contains(turnedAway) } }, "the listener turned the callback away")
        signIn.cancel()
        let error = try #require(await signIn.value.failure)
        #expect(error.code == .session)
        #expect(error.sessionError?.cancellationReason == .program, "the session was still waiting")
        expectPaths(provider, throughAuthorize)
    }

    /// `BASE64URL(SHA256(verifier))`.
    static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// What a client sent and was answered, as its transport saw it: the provider's own log keeps
/// no body.
final class Wire: Sendable {
    private let exchanges = Locked<[(request: HTTPTransportRequest, response: HTTPTransportResponse?)]>([])

    func record(_ request: HTTPTransportRequest, _ response: HTTPTransportResponse?) {
        exchanges.withLock { $0.append((request, response)) }
    }

    /// Every request so far, oldest first.
    var requests: [HTTPTransportRequest] { exchanges.withLock { $0.map(\.request) } }

    /// The values of the form field `name` in the bodies sent so far, oldest first.
    func formValues(_ name: String) -> [String] {
        requests.compactMap { request in
            guard let body = request.body, let text = String(data: body, encoding: .utf8) else { return nil }
            var components = URLComponents()
            components.percentEncodedQuery = text.replacingOccurrences(of: "+", with: "%20")
            return components.queryItems?.first { $0.name == name }?.value
        }
    }

    /// The string values of the JSON member `name` in the answers so far, oldest first.
    func answeredValues(_ name: String) -> [String] {
        exchanges.withLock { $0.compactMap(\.response) }.compactMap { response in
            let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            return object?[name] as? String
        }
    }
}

/// The default transport, recording what it sends and receives into a ``Wire``.
struct RecordingTransport: HTTPTransport {
    let wire: Wire
    let transport = URLSessionTransport()

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        do {
            let response = try await transport.send(request)
            wire.record(request, response)
            return response
        } catch {
            wire.record(request, nil)
            throw error
        }
    }
}

/// The scripted user agent, noting the URLs it is asked to open.
final class WatchedBrowser: Browser {
    private let agent = ScriptedUserAgent()
    private let openedURLs = Locked<[URL]>([])

    var name: String { agent.name }
    var capabilities: BrowserCapabilities { agent.capabilities }

    /// The URLs opened so far, oldest first.
    var opened: [URL] { openedURLs.withLock { $0 } }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        openedURLs.withLock { $0.append(request.url) }
        return try await agent.present(request)
    }

    /// The first URL opened, once there is one (`nil` after a minute without).
    func waitForOpenedURL() async -> URL? {
        _ = await eventually { !opened.isEmpty }
        return opened.first
    }
}

extension URL {
    /// The value of the query parameter `name`, if any.
    fileprivate func queryValue(_ name: String) -> String? {
        URLComponents(url: self, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}

extension Result {
    /// The error, if this is a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Expects the provider to have received `paths`, in order, leaving out the pages a person goes
/// through (`/login`, `/consent`) — and except the key set's: a sign-in fetches it while the
/// person is in the browser, at no fixed point after discovery, and cancels that fetch when it
/// ends early. So `/jwks` is compared by number: as many as `paths` lists, or one more from a
/// prefetch that a sign-in failing before the ID token check left behind.
func expectPaths(
    _ provider: EmbeddedProvider, _ paths: [String], sourceLocation: SourceLocation = #_sourceLocation
) {
    let received = provider.requests.map(\.path).filter { $0 != "/login" && $0 != "/consent" }
    let isKeys: (String) -> Bool = { $0 == "/jwks" }
    #expect(received.filter { !isKeys($0) } == paths.filter { !isKeys($0) }, sourceLocation: sourceLocation)
    let expectedKeys = paths.count(where: isKeys)
    #expect(
        (expectedKeys...expectedKeys + 1).contains(received.count(where: isKeys)), "\(received)",
        sourceLocation: sourceLocation)
}
