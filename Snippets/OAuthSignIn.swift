// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Foundation
import WebAuthOAuth
import WebAuthSignIn

func signIn() async throws -> String {
    let client = try OAuthClient(
        configuration: ClientConfiguration(
            issuer: URL(string: "https://accounts.example.com")!,
            clientID: "my-cli",
            scopes: ["openid", "profile", "offline_access"]))
    let tokens = try await client.signIn()  // browser, loopback, PKCE, state, nonce, iss
    print(tokens.idTokenClaims?.subject ?? "")  // the ID token, validated

    let provider = AccessTokenProvider(client: client, tokens: tokens) { refreshed in
        // Store `refreshed`: a rotated refresh token replaces the old one.
    }
    return try await provider.accessToken()  // refreshes only when needed, one at a time
}
