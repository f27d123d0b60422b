// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import Foundation
import WebAuthOAuth
import WebAuthTokenStore

func me() async throws -> HTTPTransportResponse {
    let provider = try await TokenStores().accessTokenProvider(profile: "work")
    return try await ResourceClient(tokenProvider: provider)
        .send(HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/me")!))
}
