// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthCompat  // on Apple platforms: import SwiftUI, import AuthenticationServices

struct SignInView {  // a SwiftUI View on Apple platforms; any struct or class on Linux
    @Environment(\.webAuthenticationSession) private var webAuthenticationSession

    func signIn() async throws -> URL {
        try await webAuthenticationSession.authenticate(
            using: URL(string: "https://example.com/auth")!, callback: .customScheme("exampleauth"),
            preferredBrowserSession: .ephemeral, additionalHeaderFields: [:])
    }
}
