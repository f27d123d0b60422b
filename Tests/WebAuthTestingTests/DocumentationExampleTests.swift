// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTesting

// The examples of README.md ("Testing your own sign-in code") and of the WebAuthTesting
// catalog's "Testing your sign-in code" and "Attacking your own client" (Snippets/TestingSignIn
// and Snippets/AttackingYourClient), word for word: if these stop compiling or passing, the
// documentation is wrong.

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

@Test func myClientRefusesForgedAnswers() async throws {
    try await EmbeddedProvider.withProvider { provider in
        let client = try OAuthClient(
            configuration: ClientConfiguration(issuer: provider.issuer, clientID: "webauth-demo", scopes: ["openid"]))
        let browser = ScriptedUserAgent()

        // A mix-up attack (RFC 9207): the authorization response names another issuer.
        provider.overrideAuthorizationResponse(.init(issuer: .value("https://evil.example")))
        await #expect(throws: OAuthError.self) { try await client.signIn(environment: .standard(browser: browser)) }
        #expect(provider.requests(to: .token).isEmpty, "the code was never exchanged")
        provider.overrideAuthorizationResponse(nil)

        // An ID token signed by a key the provider never published, then one for another audience.
        provider.forgeIDTokenSignatures(.signedByAnotherKey)
        await #expect(throws: OAuthError.self) { try await client.signIn(environment: .standard(browser: browser)) }
        provider.forgeIDTokenSignatures(nil)
        provider.overrideIDTokenClaims(.init(audience: ["someone-else"]))
        await #expect(throws: OAuthError.self) { try await client.signIn(environment: .standard(browser: browser)) }

        // A token endpoint that answers with an HTML login wall instead of JSON.
        provider.overrideIDTokenClaims(nil)
        provider.setFault(.htmlInsteadOfJSON, for: .token)
        await #expect(throws: OAuthError.self) { try await client.signIn(environment: .standard(browser: browser)) }
    }
}
