// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthOAuth
import WebAuthTokenStore

// After signing in: keep the tokens, with the configuration that refreshes them.
func keep(_ tokens: TokenSet, from client: OAuthClient) async throws {
    let stores = TokenStores()  // the keyring when one answers, else 0600 files — where `webauth` keeps them
    try await stores.save(StoredTokens(tokens: tokens, configuration: client.configuration), profile: "work")
}

// In any later run, in any number of processes at once:
func accessToken() async throws -> String {
    let provider = try await TokenStores().accessTokenProvider(profile: "work")
    return try await provider.accessToken()
}
