// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// "Callback → signed in": what stands between the loopback callback's arrival and the tokens,
// against the embedded provider with every endpoint answering 40 ms late (a provider across a
// network). Only the token request should be left there: the metadata and the key set are
// fetched while the person is still in the browser. Run:
// swift run -c release webauth-benchmarks signed-in
import Foundation
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTestSupport

enum SignInBenchmarks {
    /// The delay every endpoint of the provider adds to each answer.
    static let latency: Duration = .milliseconds(40)

    /// Prints the median time from the callback reaching the session to `signIn` returning, one
    /// token round trip's (a refresh, whose keys are cached), and their ratio.
    static func printFigures(signIns: Int = 30) async throws {
        let provider = try await EmbeddedProvider.start()
        do {
            for endpoint in EmbeddedProvider.Endpoint.allCases {
                provider.setFault(.delay(latency), for: endpoint)
            }
            var toSignedIn = Figures()
            var roundTrip = Figures()
            for index in 0..<(signIns + 3) {
                // A new client each time: nothing cached, as in a new `webauth login`.
                let client = try OAuthClient(
                    configuration: ClientConfiguration(
                        issuer: provider.issuer, clientID: "webauth-demo",
                        scopes: ["openid", "profile", "email", "offline_access"]))
                let arrived = RoutedInstant()
                let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent())) {
                    session in
                    // Asked once, when the listener receives the callback.
                    session.acceptsCallback = { _ in
                        arrived.instant.withLock { $0 = .now }
                        return true
                    }
                }
                let signedIn = ContinuousClock.now
                let refreshStarted = ContinuousClock.now
                _ = try await client.refresh(tokens)
                let refreshed = ContinuousClock.now
                guard index >= 3, let arrived = arrived.instant.withLock({ $0 }) else { continue }  // warm-up
                toSignedIn.add(signedIn - arrived)
                roundTrip.add(refreshed - refreshStarted)
            }
            print("webauth sign-in benchmarks (milliseconds; the provider answers each request 40 ms late)")
            print("".padding(toLength: 52, withPad: " ", startingAt: 0) + "   median      p90      p99      max")
            print(toSignedIn.line("callback received → signed in"))
            print(roundTrip.line("one token round trip (refresh, keys cached)"))
            print(String(format: "ratio of the medians: %.2f× (target ≤ 1.2×)", toSignedIn.median / roundTrip.median))
        } catch {
            await provider.shutdown()
            throw error
        }
        await provider.shutdown()
    }
}
