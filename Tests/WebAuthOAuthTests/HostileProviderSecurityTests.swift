import Crypto
import Foundation
import Testing
import WebAuthOAuth
import WebAuthTestSupport

/// The lines of `SECURITY.md` under "Authorization request and response" and "ID token", each
/// tested against ``HostileProvider`` over real HTTP: the client signs in through a loopback
/// receiver with a redirect-following browser, the provider misbehaves as scripted, and the test
/// checks the typed error and, from the provider's request log, that the client called nothing
/// after the rejection.
@Suite("Security: authorization request and response (hostile provider)")
struct HostileProviderAuthorizationSecurityTests {
    // MARK: PKCE

    @Test func pkceIsAlwaysS256WithAStrongVerifier() async throws {
        #expect(
            try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").challenge
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")  // RFC 7636 Appendix B
        try await HostileProvider.withProvider { provider in
            _ = try await SignIn.run(provider).get()
            let authorize = try #require(await provider.requests(to: .authorize).first)
            #expect(authorize.queryValue("code_challenge_method") == "S256")
            let verifier = try #require(provider.tokenRequests.first?.formValue("code_verifier"))
            #expect((43...128).contains(verifier.count))
            #expect(verifier.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~".contains($0)) })
            #expect(authorize.queryValue("code_challenge") == SignIn.s256(verifier))
            #expect(authorize.queryValue("code_verifier") == nil)
            // Fresh for every sign-in.
            _ = try await SignIn.run(provider).get()
            #expect(Set(provider.tokenRequests.compactMap { $0.formValue("code_verifier") }).count == 2)
        }
    }

    // MARK: state

    @Test(arguments: [
        HostileProvider.Authorize.StateValue.value("forged-state"), .absent, .value(""),
    ])
    func aWrongOrMissingStateIsNeverAccepted(_ state: HostileProvider.Authorize.StateValue) async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.authorize.state = state }
            try await SignIn.expectCallbackTurnedAway(provider)
        }
    }

    @Test func aForgedCallbackDoesNotEndTheRealSession() async throws {
        try await HostileProvider.withProvider { provider in
            let gate = HostileProvider.Gate()
            provider.script { $0.faults[.authorize] = .hold(until: gate) }
            let signIn = Task { await SignIn.run(provider) }
            // The browser is at the (held) authorization page; an attacker hits the listener first.
            let authorize = try #require(await provider.waitForRequests(to: .authorize).first)
            let redirect = try #require(authorize.queryValue("redirect_uri").flatMap(URL.init(string:)))
            let forged = try await RawHTTPClient.get(
                port: try #require(redirect.port), target: redirect.path + "?code=attacker-code&state=forged")
            #expect(forged.status == 400, "the forged callback is turned away")
            gate.open()

            let tokens = try await signIn.value.get()
            #expect(tokens.idTokenClaims?.subject == "user-1234")
            let exchanged = provider.tokenRequests.compactMap { $0.formValue("code") }
            #expect(exchanged.count == 1)
            #expect(exchanged.first != "attacker-code")
            #expect(provider.authorizationRedirects.first?.contains(exchanged.first ?? "-") == true)
        }
    }

    @Test func aCallbackWithAnotherStateIsTypedWhenCompletedByHand() async throws {
        try await HostileProvider.withProvider { provider in
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
            await expectPaths(provider, [SignIn.discovery])
        }
    }

    @Test func aStateAnswersOneResponseOnly() async throws {
        try await HostileProvider.withProvider { provider in
            let client = try SignIn.client(provider)
            let authorization = try await client.prepareAuthorization()
            var components = URLComponents(string: "http://127.0.0.1:9/callback")!
            components.queryItems = [
                .init(name: "code", value: "code-from-the-first-redirect"),
                .init(name: "state", value: authorization.request.state),
                .init(name: "iss", value: provider.issuerURL.absoluteString),
            ]
            let callback = try #require(components.url)
            let received = ReceivedCallback(url: callback, redirectURI: callback)
            // The first response is taken (the provider refuses the made-up code; that is beside the point).
            _ = try? await client.completeAuthorization(authorization, received: received)
            #expect(provider.tokenRequests.count == 1)
            // The same redirect again — replayed, or from a second tab — goes nowhere.
            let copy = authorization
            do throws(OAuthError) {
                _ = try await client.completeAuthorization(copy, received: received)
                Issue.record("a second response with the same state was taken")
            } catch {
                #expect(error.code == .stateMismatch)
                #expect(error.message.contains("already used"))
            }
            #expect(provider.tokenRequests.count == 1, "the replayed code was not sent anywhere")
        }
    }

    // MARK: RFC 9207 iss

    @Test func anIssuerMismatchIsRejectedAndNoOtherEndpointIsCalled() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.authorize.issuer = .value("https://evil.example") }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMismatch)
            await expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test(arguments: ["/", "https://127.0.0.1"])
    func theIssuerIsComparedAsAnExactString(_ variant: String) async throws {
        try await HostileProvider.withProvider { provider in
            // The real issuer with a trailing slash, or with another scheme.
            let issuer =
                variant == "/"
                ? provider.issuer + "/" : provider.issuer.replacingOccurrences(of: "http:", with: "https:")
            provider.script { $0.authorize.issuer = .value(issuer) }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMismatch)
            await expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func aMissingIssWhenTheMetadataPromisesItIsRejected() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.authorize.issuer = .absent }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .issuerMissing)
            await expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func aMissingIssIsAcceptedWhenTheMetadataDoesNotPromiseIt() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script {
                $0.metadata["authorization_response_iss_parameter_supported"] = false
                $0.authorize.issuer = .absent
            }
            _ = try await SignIn.run(provider).get()
            await expectPaths(provider, SignIn.throughJWKS)
        }
    }

    // MARK: Error responses

    @Test(arguments: ["https://docs.example/denied", "javascript:alert(1)"])
    func anErrorResponseIsTypedAndItsDescriptionMadeSafe(_ uri: String) async throws {
        let hostile =
            "Denied\u{1B}]0;owned\u{07}\u{1B}[2J\r\nFAKE LOG LINE <script>alert(1)</script>\u{202E}\u{2028}FAKE\u{200B}"
        try await HostileProvider.withProvider { provider in
            provider.script { $0.authorize.response = .error(code: "access_denied", description: hostile, uri: uri) }
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
            await expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    // MARK: Tokens in URLs

    @Test func anAccessTokenInTheQueryIsRejected() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script {
                $0.authorize.response = .token
                $0.authorize.responseMode = .query
            }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .tokenInQuery)
            #expect(!error.message.contains("at-"))
            await expectPaths(provider, SignIn.throughAuthorize)
        }
    }

    @Test func anImplicitFragmentResponseIsNotTakenByACodeFlowClient() async throws {
        try await HostileProvider.withProvider { provider in
            // Tokens in the fragment: the listener gets the redirect without them, and no state.
            provider.script { $0.authorize.response = .token }
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
            #expect(provider.tokenRequests.isEmpty)
        }
    }
}

@Suite("Security: ID token (hostile provider)")
struct HostileProviderIDTokenSecurityTests {
    // MARK: iss, aud, azp

    @Test func aWrongIssuerIsRejected() async throws {
        try await expectIDTokenRejected(.wrongIssuer) { claims, _ in claims["iss"] = "https://evil.example" }
    }

    @Test func aMissingAudienceIsRejected() async throws {
        try await expectIDTokenRejected(.wrongAudience) { claims, _ in claims["aud"] = nil }
    }

    @Test(arguments: [HostileProvider.JSONValue.string("other-client"), ["other-client"], [], "CLIENT-1"])
    func anAudienceWithoutTheClientIDIsRejected(_ audience: HostileProvider.JSONValue) async throws {
        try await expectIDTokenRejected(.wrongAudience) { claims, _ in claims["aud"] = audience }
    }

    @Test(arguments: [nil, HostileProvider.JSONValue.string("other-client")])
    func anExtraAudienceWithoutMatchingAzpIsRejected(_ azp: HostileProvider.JSONValue?) async throws {
        try await expectIDTokenRejected(.untrustedAudience) { claims, context in
            claims["aud"] = .strings([context.clientID ?? "", "other-client"])
            claims["azp"] = azp
        }
    }

    @Test(arguments: [false, true])
    func anAudienceArrayContainingTheClientIsAccepted(_ withOtherAudience: Bool) async throws {
        try await HostileProvider.withProvider { provider in
            provider.script {
                $0.idToken.editClaims = { claims, context in
                    let client = context.clientID ?? ""
                    claims["aud"] = .strings(withOtherAudience ? [client, "other-client"] : [client])
                    if withOtherAudience { claims["azp"] = .string(client) }
                }
            }
            let tokens = try await SignIn.run(provider).get()
            #expect(tokens.idTokenClaims?.audience.contains(SignIn.clientID) == true)
        }
    }

    // MARK: Signatures and algorithms

    @Test func anRS256SignatureByAnotherKeyIsRejected() async throws {
        try await expectIDTokenRejected(.badSignature, signing: .rs256WithImpostorKey)
    }

    @Test func anES256SignatureByAnotherKeyIsRejected() async throws {
        try await expectIDTokenRejected(.badSignature, signing: .es256WithImpostorKey, algorithms: ["ES256"])
    }

    @Test func anES256TokenFromTheServedKeyIsAccepted() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.idToken.signing = .es256 }
            _ = try await SignIn.run(provider, algorithms: ["ES256"]).get()
        }
    }

    @Test func algNoneIsRejected() async throws {
        try await expectIDTokenRejected(.forbiddenAlgorithm, signing: .none, fetchesKeys: false)
    }

    @Test func algNoneIsRejectedEvenWhenConfigured() async throws {
        try await expectIDTokenRejected(
            .forbiddenAlgorithm, signing: .none, algorithms: ["none", "RS256"], fetchesKeys: false)
    }

    @Test(arguments: ["any secret", "public-key"])
    func hs256IsRejectedForAPublicClient(_ secret: String) async throws {
        // Also the classic key confusion: HMAC keyed with the provider's RSA public key.
        let key = secret == "public-key" ? HostileProvider.Key.rsa.publicKeyPEM : secret
        try await expectIDTokenRejected(
            .forbiddenAlgorithm, signing: .hs256(secret: key), algorithms: ["RS256", "HS256"], fetchesKeys: false)
    }

    @Test(arguments: [HostileProvider.Signing.ps256, .rs384, .es256])
    func anAlgorithmOtherThanTheExpectedOneIsRejected(_ signing: HostileProvider.Signing) async throws {
        // Each is a valid signature by a key the provider serves.
        try await expectIDTokenRejected(.unexpectedAlgorithm, signing: signing, fetchesKeys: false)
    }

    // MARK: Times

    @Test func anExpiredTokenBeyondTheLeewayIsRejected() async throws {
        // The provider's tokens live 600 s; the client's clock is 600 + 120 s ahead (leeway 60 s).
        let clock = OAuthClock(now: { Date().addingTimeInterval(720) }, sleep: { try await Task.sleep(for: $0) })
        try await expectIDTokenRejected(.expired, clock: clock)
    }

    @Test func anExpiredTokenWithinTheLeewayIsAccepted() async throws {
        let clock = OAuthClock(now: { Date().addingTimeInterval(620) }, sleep: { try await Task.sleep(for: $0) })
        try await HostileProvider.withProvider { provider in
            let tokens = try await SignIn.run(provider, clock: clock).get()
            #expect(tokens.idTokenClaims != nil)
        }
    }

    @Test func aMissingExpIsRejected() async throws {
        try await expectIDTokenRejected(.expired) { claims, _ in claims["exp"] = nil }
    }

    @Test func aMissingIatIsRejected() async throws {
        try await expectIDTokenRejected(.badIssuedAt) { claims, _ in claims["iat"] = nil }
    }

    @Test func anIatFarInTheFutureIsRejected() async throws {
        try await expectIDTokenRejected(.badIssuedAt) { claims, context in
            claims.setTime("iat", context.now.addingTimeInterval(3600))
            claims.setTime("exp", context.now.addingTimeInterval(7200))
        }
    }

    // MARK: sub and nonce

    @Test(arguments: [nil, HostileProvider.JSONValue.string("")])
    func aMissingSubjectIsRejected(_ subject: HostileProvider.JSONValue?) async throws {
        try await expectIDTokenRejected(.missingSubject) { claims, _ in claims["sub"] = subject }
    }

    @Test func aWrongNonceIsRejected() async throws {
        try await expectIDTokenRejected(.wrongNonce) { claims, _ in claims["nonce"] = "attacker-nonce" }
    }

    @Test func aMissingNonceIsRejected() async throws {
        try await expectIDTokenRejected(.wrongNonce) { claims, _ in claims["nonce"] = nil }
    }

    // MARK: Keys

    @Test func anUnknownKidCausesExactlyOneJWKSRefetchThenFails() async throws {
        try await HostileProvider.withProvider { provider in
            // A client that has the provider's keys cached from an earlier sign-in.
            let client = try SignIn.client(provider)
            _ = try await SignIn.run(provider, client: client).get()
            provider.script { $0.idToken.signing = .rs256WithUnknownKeyID }
            let error = try #require(await SignIn.run(provider, client: client).failure)
            #expect(error.code == .invalidIDToken)
            #expect(error.idTokenProblem == .unknownKey)
            #expect(provider.jwksFetchCount == 2)
            await expectPaths(provider, SignIn.throughJWKS + ["/authorize", "/token", "/jwks"])
        }
    }

    @Test func anUnknownKidIsFoundAfterTheProviderRotatedItsKeys() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.jwks.keys = [.rsa] }
            let client = try SignIn.client(provider)
            _ = try await SignIn.run(provider, client: client).get()
            provider.script {
                $0.jwks.keys = [.rsa, .rsaNext]
                $0.idToken.signing = .rs256WithUnknownKeyID
            }
            let tokens = try await SignIn.run(provider, client: client).get()
            #expect(tokens.idTokenClaims?.subject == "user-1234")
            #expect(provider.jwksFetchCount == 2)
            await expectPaths(provider, SignIn.throughJWKS + ["/authorize", "/token", "/jwks"])
        }
    }

    @Test func theKeysAreFetchedWhileThePersonSignsInNotAfterTheCallback() async throws {
        try await HostileProvider.withProvider { provider in
            let tokens = try await SignIn.run(provider).get()
            #expect(tokens.idTokenClaims?.subject == "user-1234")
            let paths = await provider.requestPaths
            let keys = try #require(paths.firstIndex(of: "/jwks"))
            let token = try #require(paths.firstIndex(of: "/token"))
            #expect(keys < token, "the key set was fetched before the callback: \(paths)")
            #expect(provider.jwksFetchCount == 1, "the ID token was checked with the prefetched set")
        }
    }

    @Test func aFailedPrefetchOfTheKeysDoesNotFailTheSignIn() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.faults[.jwks] = HostileProvider.Fault.status(503, body: "").times(1) }
            let tokens = try await SignIn.run(provider).get()
            #expect(tokens.idTokenClaims?.subject == "user-1234")
            #expect(provider.jwksFetchCount == 2, "the check fetched the set again")
        }
    }

    @Test func concurrentValidationsShareOneJWKSFetch() async throws {
        try await HostileProvider.withProvider { provider in
            let tokens = try await SignIn.run(provider).get()
            let idToken = try #require(tokens.idToken)
            let nonce = tokens.idTokenClaims?.nonce
            #expect(provider.jwksFetchCount == 1)
            // A fresh client with an empty cache, asked twenty times at once.
            let client = try SignIn.client(provider)
            _ = try await client.metadata()
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.validateIDToken(idToken, nonce: nonce).subject }
                }
                for try await subject in group { #expect(subject == "user-1234") }
            }
            #expect(provider.jwksFetchCount == 2, "one fetch for the first client, one shared by the twenty")
        }
    }

    @Test func aKnownKidDoesNotRefetchTheJWKS() async throws {
        try await HostileProvider.withProvider { provider in
            let client = try SignIn.client(provider)
            _ = try await SignIn.run(provider, client: client).get()
            _ = try await SignIn.run(provider, client: client).get()
            #expect(provider.jwksFetchCount == 1)
        }
    }

    @Test func aTokenWithoutKidIsAcceptedWhenTheJWKSHasOneKey() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script {
                $0.jwks.keys = [.rsa]
                $0.idToken.signing = .rs256.withKeyID(nil)
            }
            _ = try await SignIn.run(provider).get()
        }
    }

    @Test func aTokenWithoutKidIsRejectedWhenTheJWKSHasSeveralCandidateKeys() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script {
                $0.jwks.keys = [.rsa, .rsaNext]
                $0.idToken.signing = .rs256.withKeyID(nil)
            }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.idTokenProblem == .unknownKey)
            await expectPaths(provider, SignIn.throughJWKS)
        }
    }

    // MARK: UserInfo and refresh

    @Test func aUserInfoSubjectOtherThanTheIDTokensIsRejected() async throws {
        try await HostileProvider.withProvider { provider in
            let client = try SignIn.client(provider)
            let tokens = try await SignIn.run(provider, client: client).get()
            provider.script { $0.userInfo.subject = "someone-else" }
            do throws(OAuthError) {
                _ = try await client.userInfo(for: tokens)
                Issue.record("accepted UserInfo about another subject")
            } catch {
                #expect(error.code == .userInfoSubjectMismatch)
            }
            await expectPaths(provider, SignIn.throughJWKS + ["/userinfo"])

            provider.script { $0.userInfo.subject = nil }
            #expect(try await client.userInfo(for: tokens).subject == "user-1234")
        }
    }

    @Test(arguments: ["iss", "sub"])
    func aRefreshedIDTokenWithAnotherIdentityIsRejected(_ claim: String) async throws {
        try await HostileProvider.withProvider { provider in
            let client = try SignIn.client(provider)
            let tokens = try await SignIn.run(provider, client: client).get()
            provider.script {
                $0.idToken.editClaims = { claims, context in
                    guard context.grantType == "refresh_token" else { return }
                    claims[claim] = claim == "iss" ? .string(context.issuer + "/other") : "someone-else"
                }
            }
            do throws(OAuthError) {
                _ = try await client.refresh(tokens)
                Issue.record("accepted a refreshed ID token with another \(claim)")
            } catch {
                #expect(error.code == .invalidIDToken)
                #expect(error.idTokenProblem == (claim == "iss" ? .wrongIssuer : .identityChanged))
            }
            await expectPaths(provider, SignIn.throughJWKS + ["/token"])
        }
    }

    @Test func aRefreshedIDTokenWithTheSameIdentityIsAccepted() async throws {
        try await HostileProvider.withProvider { provider in
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
        let fault: HostileProvider.Fault =
            switch kind {
            case "garbage JSON": .garbageJSON
            case "HTML": .htmlInsteadOfJSON
            case "a JSON array": .jsonArray
            default: .emptyBody
            }
        try await HostileProvider.withProvider { provider in
            provider.script { $0.faults[.token] = fault }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .invalidResponse)
            await expectPaths(provider, SignIn.throughToken)
        }
    }

    @Test func aSlowTokenEndpointTimesOut() async throws {
        try await HostileProvider.withProvider { provider in
            // The timeout is far below the delay yet leaves discovery time on a loaded machine.
            provider.script { $0.faults[.token] = .delay(.seconds(600)) }
            let error = try #require(await SignIn.run(provider, requestTimeout: .seconds(30)).failure)
            #expect(error.code == .timedOut)
            await expectPaths(provider, SignIn.throughToken)
        }
    }

    @Test func anOversizedTokenResponseIsRejected() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.faults[.token] = .oversized() }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .responseTooLarge)
            await expectPaths(provider, SignIn.throughToken)
        }
    }

    // MARK: Helpers

    /// Signs in against a provider whose ID token is edited and signed as given, and expects the
    /// ID token to be rejected with `problem` — with nothing called after the token endpoint
    /// but the JWKS (when the check got that far).
    private func expectIDTokenRejected(
        _ problem: IDTokenProblem, signing: HostileProvider.Signing = .rs256, algorithms: [String] = ["RS256"],
        clock: OAuthClock = .system, fetchesKeys: Bool = true, sourceLocation: SourceLocation = #_sourceLocation,
        edit: HostileProvider.ClaimsEditor? = nil
    ) async throws {
        try await HostileProvider.withProvider { provider in
            provider.script {
                $0.idToken.signing = signing
                $0.idToken.editClaims = edit
            }
            let result = await SignIn.run(provider, algorithms: algorithms, clock: clock)
            let error = try #require(
                result.failure, "accepted an ID token with \(problem)", sourceLocation: sourceLocation)
            #expect(error.code == .invalidIDToken, sourceLocation: sourceLocation)
            #expect(error.idTokenProblem == problem, "\(error)", sourceLocation: sourceLocation)
            await expectPaths(
                provider, fetchesKeys ? SignIn.throughJWKS : SignIn.throughToken, sourceLocation: sourceLocation)
            #expect(provider.tokenRequests.count == 1, sourceLocation: sourceLocation)
        }
    }
}

/// Signing in against a ``HostileProvider`` with the real client, a loopback receiver and a
/// redirect-following browser.
private enum SignIn {
    static let clientID = "client-1"
    static let discovery = "/.well-known/openid-configuration"
    static let throughAuthorize = [discovery, "/authorize"]
    static let throughToken = throughAuthorize + ["/token"]
    static let throughJWKS = throughToken + ["/jwks"]

    /// A public OpenID Connect client of `provider`.
    static func client(
        _ provider: HostileProvider, algorithms: [String] = ["RS256"], clock: OAuthClock = .system,
        requestTimeout: Duration = .seconds(60)
    ) throws(OAuthError) -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuerURL, clientID: clientID, scopes: ["openid", "profile"],
                idTokenSigningAlgorithms: algorithms),
            clock: clock, requestTimeout: requestTimeout)
    }

    /// A sign-in, bounded by `sessionTimeout`; the session and its loopback listener log into
    /// `sessionLogs` when given. The default bounds only stop a hang: these tests check which
    /// error a hostile answer causes, and a machine busy with the whole suite can take more than
    /// ten seconds to answer discovery.
    static func run(
        _ provider: HostileProvider, client: OAuthClient? = nil, algorithms: [String] = ["RS256"],
        clock: OAuthClock = .system, requestTimeout: Duration = .seconds(60), sessionTimeout: Duration = .seconds(90),
        sessionLogs: CapturedLogs? = nil
    ) async -> Result<TokenSet, OAuthError> {
        do throws(OAuthError) {
            let client =
                if let client { client } else {
                    try Self.client(provider, algorithms: algorithms, clock: clock, requestTimeout: requestTimeout)
                }
            return .success(
                try await client.signIn(
                    environment: SessionEnvironment(
                        browser: RedirectFollowingBrowser(),
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
    static func expectCallbackTurnedAway(_ provider: HostileProvider) async throws {
        let logs = CapturedLogs()
        let signIn = Task { await run(provider, sessionTimeout: .seconds(300), sessionLogs: logs) }
        let turnedAway = "received a callback the session did not accept"
        let deadline = ContinuousClock.now + .seconds(60)
        while !logs.all.contains(where: { $0.contains(turnedAway) }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(logs.all.contains { $0.contains(turnedAway) }, "the listener turned the callback away")
        try await Task.sleep(for: .milliseconds(200))
        signIn.cancel()
        let error = try #require(await signIn.value.failure)
        #expect(error.code == .session)
        #expect(error.sessionError?.cancellationReason == .program, "the session was still waiting")
        await expectPaths(provider, throughAuthorize)
    }

    /// `BASE64URL(SHA256(verifier))`.
    static func s256(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Result {
    /// The error, if this is a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

@Suite("Security: discovery and mix-up (hostile provider)")
struct HostileProviderDiscoverySecurityTests {
    @Test func metadataNamingAnotherIssuerIsRejectedBeforeAnyOtherRequest() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.metadata["issuer"] = .string("https://evil.example") }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .invalidMetadata)
            #expect(await provider.requestPaths.allSatisfy { $0.hasPrefix("/.well-known/") })
            #expect(await provider.requests(to: .authorize).isEmpty)
        }
    }

    @Test func metadataWithAnInsecureEndpointIsRejected() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.metadata["token_endpoint"] = .string("http://evil.example/token") }
            let error = try #require(await SignIn.run(provider).failure)
            #expect(error.code == .invalidMetadata)
            #expect(await provider.requests(to: .authorize).isEmpty)
        }
    }

    /// RFC 9700 §4.4: the client talks to an honest and to an attacking provider; the response
    /// to its request at the honest one comes back naming the attacker as issuer. It is
    /// rejected, and neither provider's token endpoint hears of the code.
    @Test func aResponseFromAnotherProviderIsNotRedeemedAnywhere() async throws {
        try await HostileProvider.withProvider { attacker in
            try await HostileProvider.withProvider { honest in
                honest.script { $0.authorize.issuer = .value(attacker.issuer) }
                // The program also signs in at the attacker, a provider it uses too: that works.
                _ = try await SignIn.run(attacker).get()
                let error = try #require(await SignIn.run(honest).failure)
                #expect(error.code == .issuerMismatch)
                #expect(await honest.requests(to: .token).isEmpty)
                #expect(await attacker.requests(to: .token).count == 1, "only the attacker's own sign-in")
            }
        }
    }
}

/// Expects `provider` to have received requests to exactly `paths`, in order; a failure shows
/// what it did receive.
/// Expects the provider to have received `paths`, in order — except the key set's: a sign-in
/// fetches it while the person is in the browser, at no fixed point after discovery, and cancels
/// that fetch when it ends early. So `/jwks` is compared by number: as many as `paths` lists, or
/// one more from a prefetch that a sign-in failing before the ID token check left behind.
private func expectPaths(
    _ provider: HostileProvider, _ paths: [String], sourceLocation: SourceLocation = #_sourceLocation
) async {
    let received = await provider.requestPaths
    let isKeys: (String) -> Bool = { $0 == "/jwks" }
    #expect(received.filter { !isKeys($0) } == paths.filter { !isKeys($0) }, sourceLocation: sourceLocation)
    let expectedKeys = paths.count(where: isKeys)
    #expect(
        (expectedKeys...expectedKeys + 1).contains(received.count(where: isKeys)), "\(received)",
        sourceLocation: sourceLocation)
}
