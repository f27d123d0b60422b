// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Foundation
import WebAuthOAuth

func serviceToken(secret: String) async throws -> String {
    let client = try OAuthClient(
        configuration: ClientConfiguration(
            issuer: URL(string: "https://accounts.example.com")!,
            clientID: "billing-service", clientSecret: secret,
            scopes: ["invoices.read"], grant: .clientCredentials))
    let tokens = try await client.clientCredentials()  // no person, no browser, no listener
    return tokens.accessToken
}
