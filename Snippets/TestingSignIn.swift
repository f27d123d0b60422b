// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTesting

@Test func signInWorksAgainstTheEmbeddedProvider() async throws {
    try await EmbeddedProvider.withProvider { provider in
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: "webauth-demo", scopes: ["openid", "profile", "offline_access"]))

        // The scripted user agent fills in the login form and approves, over real HTTP.
        let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
        #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)

        // Refresh tokens rotate; presenting the old one again is refused.
        let refreshed = try await client.refresh(tokens)
        #expect(refreshed.refreshToken != tokens.refreshToken)
        await #expect(throws: OAuthError.self) { try await client.refresh(tokens) }

        // The provider's log says which endpoints were called (never with secrets).
        let grantTypes = provider.requests(to: .token).map(\.grantType)
        #expect(grantTypes == ["authorization_code", "refresh_token", "refresh_token"])
    }
}
