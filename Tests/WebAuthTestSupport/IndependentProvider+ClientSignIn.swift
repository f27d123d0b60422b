import Foundation
import WebAuthOAuth

extension IndependentProvider {
    /// Signs in with `client` in a headless Chromium, playing the person on the provider's own
    /// login and consent pages, and returns the tokens (one browser at a time, see
    /// ``BrowserTurns``).
    package func signIn(with client: OAuthClient) async throws -> TokenSet {
        try await BrowserTurns.withTurn { try await signInWithChromium(client) }
    }

    private func signInWithChromium(_ client: OAuthClient) async throws -> TokenSet {
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
            let page = try await driver.page()
            try await self.signIn(on: page)
            try await grantConsent(on: page)
        } catch {
            signIn.cancel()
            throw error
        }
        do {
            return try await signIn.value
        } catch {
            throw IndependentProviderError("sign-in failed: \(error)\nprovider log:\n\(recentLog())")
        }
    }
}
