// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthOAuth
import WebAuthSignIn

func signIn(with client: OAuthClient) async throws -> TokenSet {
    let authorization = try await client.startDeviceAuthorization()
    print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
    return try await client.pollDeviceAuthorization(authorization)
}
