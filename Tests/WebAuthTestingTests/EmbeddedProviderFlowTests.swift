// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import JWTKit
import Testing
import WebAuth
import WebAuthCore
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The package's own OAuth client against the embedded provider, end to end over loopback
/// HTTP, with the scripted user agent playing the person.
@Suite("Embedded provider: flows with the OAuth client")
struct EmbeddedProviderFlowTests {
    @Test func codeFlowWithPKCEAndOpenIDConnectThenUserInfo() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let steps = Locked<[ScriptedUserAgent.Step]>([])
            var agent = ScriptedUserAgent()
            agent.onStep = { step in steps.withLock { $0.append(step) } }

            let tokens = try await client.signIn(environment: .standard(browser: agent))

            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.issuer == provider.issuer.absoluteString)
            #expect(claims.subject == EmbeddedProvider.User.demo.subject)
            #expect(claims.audience == ["webauth-demo"])
            #expect(claims.authorizedParty == "webauth-demo")
            #expect(claims.nonce != nil)
            #expect(claims.name == "Demo User")
            #expect(claims.email == "demo@example.com")
            #expect(claims.authenticatedAt != nil)
            #expect(tokens.scopes == ["openid", "profile", "email", "offline_access"])
            #expect(tokens.refreshToken != nil)
            // Opaque access tokens of at least 256 bits (43 base64url characters).
            #expect(tokens.accessToken.count >= 43)
            #expect(tokens.expiresAt.map { $0 > Date().addingTimeInterval(3000) } == true)
            #expect(provider.isActive(accessToken: tokens.accessToken))

            let recorded = steps.withLock { $0 }
            #expect(recorded.contains(.filledLoginForm(username: "demo")))
            #expect(recorded.contains(.answeredConsent(approved: true)))
            #expect(recorded.contains(.reachedCallback(path: "/callback")))

            let info = try await client.userInfo(for: tokens)
            #expect(info.subject == claims.subject)
            #expect(info.preferredUsername == "demo")
            #expect(info.email == "demo@example.com")

            // The ID token verifies with an independent JWT library against the published JWKS.
            let jwks = try await RawHTTPClient.request(method: "GET", url: provider.url(.jwks))
            let keys = try await JWTKeyCollection().add(jwksJSON: jwks.body)
            let payload = try await keys.verify(try #require(tokens.idToken), as: IndependentIDTokenPayload.self)
            #expect(payload.sub.value == EmbeddedProvider.User.demo.subject)
            #expect(payload.iss.value == provider.issuer.absoluteString)

            // The client fetches the key set while the person signs in (at no fixed point after
            // discovery, but before the token request); the test fetched it once more above.
            let paths = provider.requests.map(\.path)
            #expect(
                paths.filter { $0 != "/jwks" } == [
                    "/.well-known/openid-configuration", "/authorize", "/login", "/consent", "/token", "/userinfo",
                ])
            #expect(paths.count { $0 == "/jwks" } == 2)
            #expect(paths.firstIndex(of: "/jwks")! < paths.firstIndex(of: "/token")!)
        }
    }

    @Test func refreshRotatesAndReuseRevokesTheWholeFamily() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let first = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))

            let second = try await client.refresh(first)
            #expect(second.refreshToken != nil && second.refreshToken != first.refreshToken)
            #expect(second.accessToken != first.accessToken)
            #expect(second.idTokenClaims?.subject == first.idTokenClaims?.subject)
            #expect(second.idTokenClaims?.nonce == nil)
            #expect(provider.isActive(refreshToken: try #require(second.refreshToken)))
            #expect(!provider.isActive(refreshToken: try #require(first.refreshToken)))

            // The rotated-away token comes back: refused, and the grant is revoked.
            let reuse = await oauthError { try await client.refresh(first) }
            #expect(reuse?.code == .server)
            #expect(reuse?.serverError?.code == .invalidGrant)
            // … so the legitimate holder's newer tokens stop working too.
            let afterReuse = await oauthError { try await client.refresh(second) }
            #expect(afterReuse?.serverError?.code == .invalidGrant)
            #expect(!provider.isActive(accessToken: second.accessToken))
            #expect(await oauthError { try await client.userInfo(for: second) } != nil)
            #expect(provider.requests(to: .token).compactMap(\.error) == ["invalid_grant", "invalid_grant"])
        }
    }

    @Test func withoutRotationTheRefreshTokenStays() async throws {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.rotatesRefreshTokens = false
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let client = try makeClient(provider)
            let first = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let second = try await client.refresh(first)
            let third = try await client.refresh(second)
            #expect(second.refreshToken == first.refreshToken)
            #expect(third.refreshToken == first.refreshToken)
            #expect(third.accessToken != second.accessToken)
        }
    }

    @Test func revocationOfTheRefreshTokenEndsTheGrant() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let refreshed = try await client.refresh(tokens)

            try await client.revoke(refreshed)

            #expect(!provider.isActive(accessToken: refreshed.accessToken))
            #expect(!provider.isActive(accessToken: tokens.accessToken))
            #expect(await oauthError { try await client.refresh(refreshed) }?.serverError?.code == .invalidGrant)
            #expect(await oauthError { try await client.userInfo(for: refreshed) } != nil)
            // Revoking what is already gone (or was never issued) is still a success (RFC 7009 §2.2).
            try await client.revoke(token: "never-issued", hint: .accessToken)
            #expect(provider.requests(to: .revocation).map(\.status) == [200, 200, 200])
        }
    }

    @Test func revokingAnAccessTokenLeavesTheRefreshToken() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            try await client.revoke(token: tokens.accessToken, hint: .accessToken)
            #expect(!provider.isActive(accessToken: tokens.accessToken))
            let refreshed = try await client.refresh(tokens)
            #expect(provider.isActive(accessToken: refreshed.accessToken))
        }
    }

    @Test func aSecondSignInInTheSameBrowserSkipsThePassword() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let agent = ScriptedUserAgent()

            _ = try await client.signIn(environment: .standard(browser: agent))
            #expect(agent.cookies.cookieNames(for: "127.0.0.1") == ["webauth_session"])
            _ = try await client.signIn(environment: .standard(browser: agent))
            #expect(provider.requests(to: .login).count == 1)
            #expect(provider.requests(to: .consent).count == 2)

            // An ephemeral session starts from no cookies: the password is asked again.
            _ = try await client.signIn(environment: .standard(browser: agent)) { session in
                session.prefersEphemeralWebBrowserSession = true
            }
            #expect(provider.requests(to: .login).count == 2)
        }
    }

    @Test func withoutConsentTheCodeFollowsTheLogin() async throws {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.requiresConsent = false
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let tokens = try await makeClient(provider, scopes: ["openid", "profile"])
                .signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.idTokenClaims != nil)
            #expect(provider.requests(to: .consent).isEmpty)

            // offline_access brings prompt=consent (OpenID Connect Core §11), which the provider
            // honours with its consent page.
            let offline = try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(offline.scopes.contains("offline_access"))
            #expect(provider.requests(to: .consent).count == 1)
        }
    }

    @Test func aDeniedConsentIsATypedAccessDenied() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let agent = ScriptedUserAgent(consent: .deny)
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: agent))
            }
            #expect(error?.code == .server)
            #expect(error?.serverError?.code == .accessDenied)
            #expect(provider.requests(to: .token).isEmpty)
        }
    }

    @Test func aWrongPasswordEndsTheSessionWithAClearMessage() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let agent = ScriptedUserAgent(password: "not-the-password")
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: agent)) { session in
                    session.timeout = .seconds(60)
                }
            }
            #expect(error?.code == .session)
            let message = error?.sessionError?.message ?? ""
            #expect(message.contains("the login form was refused: Wrong username or password."))
            #expect(!message.contains("not-the-password"))
        }
    }

    @Test(arguments: [ClientAuthenticationMethod.clientSecretBasic, .clientSecretPost])
    func aConfidentialClientAuthenticates(_ method: ClientAuthenticationMethod) async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let secret = "backend-secret: with symbols & more"
            let client = try makeClient(provider, clientID: "backend", secret: secret, authentication: method)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.idTokenClaims?.audience == ["backend"])
            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.refreshToken != tokens.refreshToken)

            let wrong = try makeClient(provider, clientID: "backend", secret: "wrong", authentication: method)
            let error = await oauthError { try await wrong.refresh(refreshed) }
            #expect(error?.serverError?.code == .invalidClient)
            let refusal = try #require(provider.requests(to: .token).last)
            #expect(refusal.status == 401)
            #expect(refusal.error == "invalid_client")
            // The refused attempt changed nothing: the right client can still refresh.
            _ = try await client.refresh(refreshed)
        }
    }

    @Test func theDeviceFlowCompletesWhenTheAgentApproves() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let authorization = try await client.startDeviceAuthorization()
            #expect(authorization.verificationURI == provider.deviceVerificationURL)
            #expect(authorization.userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
            let complete = try #require(authorization.verificationURIComplete)

            let polling = Task { () throws(OAuthError) -> TokenSet in
                try await client.pollDeviceAuthorization(authorization)
            }
            // Let at least one poll see the authorization still pending.
            _ = await provider.waitForRequests(to: .token, count: 1)
            try await ScriptedUserAgent().approveDevice(verificationURI: complete, userCode: nil)
            let tokens = try await polling.value

            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            #expect(tokens.refreshToken != nil)
            let errors = provider.requests(to: .token).compactMap(\.error)
            #expect(errors.first == "authorization_pending")
            #expect(!errors.contains("slow_down"))
        }
    }

    @Test func aDeviceTheAgentDeniesIsAccessDenied() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let authorization = try await client.startDeviceAuthorization()
            let polling = Task { () throws(OAuthError) -> TokenSet in
                try await client.pollDeviceAuthorization(authorization)
            }
            // Typed by hand on the plain verification page (no prefilled code), lower case and all.
            try await ScriptedUserAgent().denyDevice(
                verificationURI: authorization.verificationURI, userCode: authorization.userCode.lowercased())
            let error = await oauthError { try await polling.value }
            #expect(error?.serverError?.code == .accessDenied)
        }
    }

    @Test func aWrongUserCodeIsReportedByTheAgent() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            do throws(ScriptedUserAgentError) {
                try await ScriptedUserAgent().approveDevice(
                    verificationURI: provider.deviceVerificationURL, userCode: "BCDF-GHJK")
                Issue.record("an unknown user code was accepted")
            } catch {
                #expect(error.code == .refused)
                #expect(error.message == "the user code was refused: That code is not valid, or it has expired.")
            }
        }
    }

    @Test func afterKeyRotationTheClientFetchesTheNewKey() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let firstKey = provider.currentKeyID
            #expect(try header(of: tokens.idToken)["kid"] == firstKey)

            try await provider.rotateSigningKey()
            #expect(provider.currentKeyID != firstKey)
            #expect(provider.publishedKeyIDs == [provider.currentKeyID, firstKey])

            let refreshed = try await client.refresh(tokens)
            #expect(try header(of: refreshed.idToken)["kid"] == provider.currentKeyID)
            #expect(refreshed.idTokenClaims?.subject == tokens.idTokenClaims?.subject)
            // The cached JWKS lacked the new kid: fetched once more, not on every token.
            #expect(provider.requests(to: .jwks).count == 2)
            _ = try await client.refresh(refreshed)
            #expect(provider.requests(to: .jwks).count == 2)
        }
    }

    /// The decoded JOSE header of a compact JWS.
    private func header(of token: String?) throws -> [String: String] {
        let part = try #require(token?.split(separator: ".").first)
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: String])
    }
}

/// The ID token claims, as an independent JWT library reads them.
struct IndependentIDTokenPayload: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
