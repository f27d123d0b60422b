// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport

/// The embedded provider's pages are real HTML a real browser fills in: headless Chromium,
/// driven as a person would drive it, signs in through them with the package's client.
@Suite("Embedded provider in a real browser", TestFixture.chromium.required)
struct EmbeddedProviderInChromiumTests {
    @Test func chromiumSignsInThroughTheLoginFormAndConsentPage() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
                    scopes: ["openid", "profile", "offline_access"]),
                requestTimeout: .seconds(30))
            let tokens = try await BrowserTurns.withTurn {
                try await signInWithChromium(client, wrongPasswordFirst: true)
            }

            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.subject == EmbeddedProvider.User.demo.subject)
            #expect(claims.issuer == provider.issuer.absoluteString)
            #expect(tokens.refreshToken != nil)
            #expect(provider.isActive(accessToken: tokens.accessToken))
            // The browser went through the form twice (a wrong password first), then consent.
            #expect(provider.requests(to: .login).filter { $0.method == "POST" }.count == 2)
            #expect(provider.requests(to: .consent).filter { $0.method == "POST" }.count == 1)
        }
    }

    @Test func chromiumSignsOutThroughTheEndSessionEndpoint() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id, scopes: ["openid"]),
                requestTimeout: .seconds(30))
            let tokens = try await BrowserTurns.withTurn {
                try await signInWithChromium(client, wrongPasswordFirst: false)
            }
            try await BrowserTurns.withTurn {
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                try await client.endSession(
                    for: tokens, environment: driver.environment(receivers: [LoopbackReceiver()])
                ) { session in
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(120)
                }
                #expect(driver.instances.count == 1)
            }
            // The provider checked the hint and redirected back to the loopback listener.
            #expect(provider.requests(to: .endSession).map(\.status) == [302])
        }
    }

    /// Signs in with `client` in a headless Chromium, typing into the provider's pages.
    private func signInWithChromium(_ client: OAuthClient, wrongPasswordFirst: Bool) async throws -> TokenSet {
        try await ChromiumPageDriver.signIn(with: client) { page in
            let user = EmbeddedProvider.User.demo
            if wrongPasswordFirst {
                try await typeCredentials(on: page, username: user.username, password: "not-the-password")
                // The form comes back with a message and the username kept.
                try await page.waitForElement("[role=alert]", within: .seconds(60))
            }
            try await typeCredentials(on: page, username: user.username, password: user.password)
            try await page.waitForElement("button[value=approve]", within: .seconds(60))
            try await page.click("button[value=approve]")
        }
    }

    private func typeCredentials(on page: ChromiumPage, username: String, password: String) async throws {
        try await page.waitForElement("input[name=password]", within: .seconds(60))
        try await page.fill("input[name=username]", with: username)
        try await page.fill("input[name=password]", with: password)
        try await page.submit(form: "form")
    }
}
