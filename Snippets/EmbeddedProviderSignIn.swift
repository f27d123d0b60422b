// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn

func signInToTheEmbeddedProvider() async throws -> TokenSet {
    let provider = try await EmbeddedProvider.start()
    let client = try OAuthClient(
        configuration: ClientConfiguration(
            issuer: provider.issuer, clientID: "webauth-demo", scopes: ["openid", "profile"]))
    let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
    await provider.shutdown()
    return tokens
}
