// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
package import WebAuthOAuth
import WebAuthSignIn

extension ChromiumPageDriver {
    /// Signs in with `client` in a fresh headless Chromium: `person` plays the person on the
    /// provider's pages (log in, consent) while `OAuthClient.signIn` waits for the callback.
    /// Take a ``BrowserTurns`` turn around it.
    package static func signIn(
        with client: OAuthClient, person: (ChromiumPage) async throws -> Void
    ) async throws -> TokenSet {
        let driver = try ChromiumPageDriver()
        defer { driver.tearDown() }
        let environment = driver.environment(receivers: [LoopbackReceiver()])
        let signIn = Task { () throws(OAuthError) -> TokenSet in
            try await client.signIn(environment: environment) { session in
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(120)
            }
        }
        do {
            try await person(try await driver.page())
        } catch {
            signIn.cancel()
            throw error
        }
        return try await signIn.value
    }
}

extension IndependentProvider {
    /// Signs in with `client` in a headless Chromium, playing the person on the provider's own
    /// login and consent pages, and returns the tokens (one browser at a time, see
    /// ``BrowserTurns``).
    package func signIn(with client: OAuthClient) async throws -> TokenSet {
        try await BrowserTurns.withTurn {
            do {
                return try await ChromiumPageDriver.signIn(with: client) { page in
                    try await self.signIn(on: page)
                    try await self.grantConsent(on: page)
                }
            } catch let error as OAuthError {
                throw IndependentProviderError("sign-in failed: \(error)\nprovider log:\n\(recentLog())")
            }
        }
    }
}
