// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthOAuth
import WebAuthTokenStore

/// The token-store examples of README.md, compiled so that the documentation cannot drift from
/// the API. Building the test target is the check; `TokenStoresTests` runs the same calls
/// against a real provider.
struct TokenStoreDocumentationExamples {
    /// README "Tokens between runs and processes".
    func readmeExample(client: OAuthClient, tokens: TokenSet) async throws -> String {
        let stores = TokenStores()  // the keyring when one answers, else 0600 files — where `webauth` keeps them
        // After signing in: keep the tokens, with the configuration that refreshes them.
        try await stores.save(StoredTokens(tokens: tokens, configuration: client.configuration), profile: "work")

        // In any later run, in any number of processes at once:
        let provider = try await stores.accessTokenProvider(profile: "work")
        let accessToken = try await provider.accessToken()
        return accessToken
    }

    /// ``StoredProfile``'s example: a provider with a client of one's own.
    func storedProfileExample(configuration: ClientConfiguration, transport: any HTTPTransport) async throws
        -> AccessTokenProvider?
    {
        let stores = TokenStores()
        guard let (_, entry) = try await stores.find(profile: "work") else { return nil }
        return AccessTokenProvider(
            client: try OAuthClient(configuration: configuration, transport: transport),
            tokens: entry.tokens, persistence: StoredProfile("work", in: stores))
    }
}

extension TokenStoreDocumentationExamples {
    /// README "Authenticated requests" and ``ResourceClient``'s example.
    func resourceClientExample() async throws -> HTTPTransportResponse {
        let provider = try await TokenStores().accessTokenProvider(profile: "work")
        let response = try await ResourceClient(tokenProvider: provider)
            .send(HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/me")!))
        return response
    }
}
