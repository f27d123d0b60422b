// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTesting

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
