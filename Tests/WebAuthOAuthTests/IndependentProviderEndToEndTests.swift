// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTestSupport

/// `OAuthClient` against an independently written provider (django-oauth-toolkit, run on
/// loopback by ``IndependentProvider``), with a real headless Chromium signing in through the
/// provider's own login and consent pages.
@Suite(
    "End to end with an independent provider", .serialized, TestFixture.djangoProvider.required,
    TestFixture.chromium.required)
struct IndependentProviderEndToEndTests {
    private func client(
        _ provider: IndependentProvider, clientID: String, secret: String? = nil,
        authentication: ClientAuthenticationMethod? = nil
    ) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: clientID, clientSecret: secret,
                scopes: IndependentProvider.scopes, clientAuthentication: authentication),
            requestTimeout: .seconds(20))
    }

    private func signIn(_ client: OAuthClient, at provider: IndependentProvider) async throws -> TokenSet {
        try await provider.signIn(with: client)
    }

    @Test func signInRefreshUserInfoAndRevokeWithAPublicClient() async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try client(provider, clientID: provider.publicClientID)
            let tokens = try await signIn(client, at: provider)

            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.issuer == provider.issuer.absoluteString)
            #expect(claims.audience.contains(provider.publicClientID))
            #expect(claims.preferredUsername == provider.username)
            #expect(tokens.scopes == IndependentProvider.scopes)
            #expect(tokens.refreshToken != nil)
            #expect(tokens.expiresAt.map { $0 > Date() } == true)

            let info = try await client.userInfo(for: tokens)
            #expect(info.subject == claims.subject)

            // Refresh: the rotated refresh token is kept, the new ID token is about the same person.
            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.refreshToken != nil && refreshed.refreshToken != tokens.refreshToken)
            #expect(refreshed.accessToken != tokens.accessToken)
            #expect(refreshed.idTokenClaims?.subject == claims.subject)

            // The provider detects reuse of the rotated-out refresh token.
            do throws(OAuthError) {
                _ = try await client.refresh(tokens)
                Issue.record("a rotated-out refresh token worked")
            } catch {
                #expect(error.code == .server)
                #expect(error.serverError?.code == .invalidGrant)
            }

            // Revocation: afterwards neither token works.
            let second = try await signIn(client, at: provider)
            try await client.revoke(second)
            do throws(OAuthError) {
                _ = try await client.refresh(second)
                Issue.record("a revoked refresh token worked")
            } catch {
                #expect(error.serverError?.code == .invalidGrant)
            }
            await #expect(throws: OAuthError.self) { try await client.userInfo(for: second) }
        }
    }

    @Test(arguments: [ClientAuthenticationMethod.clientSecretBasic, .clientSecretPost])
    func aConfidentialClientAuthenticates(_ method: ClientAuthenticationMethod) async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try client(
                provider, clientID: provider.confidentialClientID, secret: provider.confidentialClientSecret,
                authentication: method)
            let tokens = try await signIn(client, at: provider)
            #expect(tokens.idTokenClaims?.preferredUsername == provider.username)
            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.refreshToken != tokens.refreshToken)

            let wrong = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: provider.confidentialClientID, clientSecret: "wrong",
                    scopes: IndependentProvider.scopes, clientAuthentication: method))
            do throws(OAuthError) {
                _ = try await wrong.refresh(refreshed)
                Issue.record("a wrong client secret was accepted")
            } catch {
                #expect(error.serverError?.code == .invalidClient)
            }
        }
    }

    @Test func signingOutOfTheProviderThroughItsConfirmationPage() async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try client(provider, clientID: provider.publicClientID)
            let tokens = try await signIn(client, at: provider)
            let endpoint = try #require(try await client.metadata().endSessionEndpoint)
            #expect(endpoint.absoluteString.hasSuffix(IndependentProvider.LogoutPage.path))

            // DOT asks only a signed-in person to confirm, so the browser signs in first and
            // Django's login then continues (`next`) to the end-session URL.
            let request = try await client.prepareEndSession(idTokenHint: try #require(tokens.idToken))
            let received = try await BrowserTurns.withTurn {
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                let session = WebAuthSession(
                    callback: request.callback, environment: driver.environment(receivers: [LoopbackReceiver()]),
                    authorizationURL: { redirectURI in
                        let endSession = request.url(postLogoutRedirectURI: redirectURI)
                        var login = URLComponents(
                            url: URL(string: IndependentProvider.LoginPage.path, relativeTo: provider.issuer)!
                                .absoluteURL, resolvingAgainstBaseURL: false)!
                        let next = endSession.path + "?" + (endSession.query ?? "")
                        login.queryItems = [URLQueryItem(name: "next", value: next)]
                        return login.url!
                    })
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(120)
                let result = Task { try await session.authenticate() }
                do {
                    let page = try await driver.page()
                    try await provider.signIn(on: page)
                    try await page.waitForPage(path: IndependentProvider.LogoutPage.path)
                    try await page.waitForElement(IndependentProvider.LogoutPage.allowButton)
                    try await page.click(IndependentProvider.LogoutPage.allowButton)
                } catch {
                    session.cancel()
                    throw error
                }
                return try await result.value
            }
            try client.completeEndSession(request, received: received)
            #expect(received.parameters.query["state"] == request.state)

            // DOT deletes the person's tokens when the session ends (OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS).
            do throws(OAuthError) {
                _ = try await client.refresh(tokens)
                Issue.record("a refresh token outlived the provider's session")
            } catch {
                #expect(error.serverError?.code == .invalidGrant)
            }
        }
    }

    @Test func signingOutOfTheProviderWithTheClientsOwnSession() async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try client(provider, clientID: provider.publicClientID)
            let tokens = try await signIn(client, at: provider)
            // A fresh browser is signed in to nothing there, so DOT ends the session and sends it
            // back at once, with the state.
            try await BrowserTurns.withTurn {
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                try await client.endSession(
                    for: tokens, environment: driver.environment(receivers: [LoopbackReceiver()])
                ) { session in
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(120)
                }
            }
            await #expect(throws: OAuthError.self) { try await client.refresh(tokens) }
        }
    }

    @Test func theDeviceFlowCompletesWhenThePersonApprovesInABrowser() async throws {
        try await BrowserTurns.withTurn {
            try await IndependentProvider.withProvider { provider in
                let client = try OAuthClient(
                    configuration: ClientConfiguration(
                        issuer: provider.issuer, clientID: provider.deviceClientID, scopes: ["openid", "profile"]),
                    requestTimeout: .seconds(20))
                let authorization = try await client.startDeviceAuthorization()
                #expect(authorization.verificationURI == provider.deviceVerificationURI)
                let complete = try #require(authorization.verificationURIComplete)
                let polling = Task { () throws(OAuthError) -> TokenSet in
                    try await client.pollDeviceAuthorization(authorization)
                }

                // The person, on another device: a browser on the verification page.
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                let session = driver.browsingSession(to: complete, loopbackReceiver: LoopbackReceiver())
                let browsing = Task { try? await session.authenticate().url }
                defer {
                    session.cancel()
                    polling.cancel()
                }
                let page = try await driver.page()
                try await provider.signIn(on: page)
                try await page.waitForPage(path: IndependentProvider.DevicePages.userCodePath)
                try await page.click(IndependentProvider.DevicePages.verifyButton)
                try await page.waitForPage(pathContaining: IndependentProvider.DevicePages.confirmPathPrefix)
                try await page.click(IndependentProvider.DevicePages.acceptButton)

                let tokens = try await polling.value
                #expect(!tokens.accessToken.isEmpty)
                #expect(tokens.refreshToken != nil)
                #expect(tokens.scopes == ["openid", "profile"])
                session.cancel()
                _ = await browsing.value
            }
        }
    }

    @Test func concurrentCallersForAFreshTokenCauseOneRefreshAndAllSucceed() async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try client(provider, clientID: provider.publicClientID)
            var tokens = try await signIn(client, at: provider)
            tokens.expiresAt = Date()  // stale: the next caller must refresh
            let rotated = Locked<[String]>([])
            let accessTokens = AccessTokenProvider(client: client, tokens: tokens) { refreshed in
                rotated.withLock { $0.append(refreshed.refreshToken ?? "") }
            }
            let results = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await accessTokens.accessToken() } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(results.count == 20)
            #expect(Set(results).count == 1, "everyone got the one refreshed token")
            #expect(rotated.withLock { $0.count } == 1)
            // With reuse detection, a second refresh of the same token would have revoked the
            // family; the rotated token still works.
            let current = await accessTokens.tokens
            _ = try await client.refresh(current)
        }
    }
}

/// The client credentials grant at django-oauth-toolkit, with a confidential client registered
/// for that grant only.
@Suite("Client credentials at an independent provider", TestFixture.djangoProvider.required)
struct IndependentProviderClientCredentialsTests {
    @Test(arguments: [ClientAuthenticationMethod.clientSecretBasic, .clientSecretPost])
    func theMachineClientGetsATokenTheProviderAccepts(authentication: ClientAuthenticationMethod) async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: provider.machineClientID,
                    clientSecret: provider.machineClientSecret, scopes: ["profile"],
                    clientAuthentication: authentication, grant: .clientCredentials),
                requestTimeout: .seconds(20))
            let tokens = try await client.clientCredentials()
            #expect(tokens.refreshToken == nil)
            #expect(tokens.scopes == ["profile"])
            let again = try await client.refresh(tokens)
            #expect(again.accessToken != tokens.accessToken)

            // The provider's introspection (RFC 7662), asked by the machine client itself.
            let introspection = try await provider.introspect(
                again.accessToken, clientID: provider.machineClientID, secret: provider.machineClientSecret)
            #expect(introspection["active"] as? Bool == true)
            #expect(introspection["client_id"] as? String == provider.machineClientID)
        }
    }

    @Test func aClientNotRegisteredForTheGrantIsRefused() async throws {
        try await IndependentProvider.withProvider { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: provider.confidentialClientID,
                    clientSecret: provider.confidentialClientSecret, scopes: ["profile"], grant: .clientCredentials),
                requestTimeout: .seconds(20))
            do throws(OAuthError) {
                _ = try await client.clientCredentials()
                Issue.record("a client registered for the code grant got client credentials")
            } catch {
                #expect(error.code == .server)
                #expect(error.serverError?.code.rawValue == "unauthorized_client")
            }
        }
    }
}
