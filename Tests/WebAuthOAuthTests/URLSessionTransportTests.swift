import Foundation
import Testing
import WebAuthTestSupport

@testable import WebAuthOAuth

/// The default transport over real HTTP on loopback.
@Suite("URLSession transport")
struct URLSessionTransportTests {
    @Test func aBasicChallengeComesBackAsA401InsteadOfHanging() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.token.clientSecret = "right-secret" }
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuerURL, clientID: "c", clientSecret: "wrong-secret",
                    clientAuthentication: .clientSecretBasic),
                requestTimeout: .seconds(60))
            let started = ContinuousClock.now
            do throws(OAuthError) {
                _ = try await client.refresh(TokenSet(accessToken: "a", refreshToken: "r"))
                Issue.record("a wrong client secret was accepted")
            } catch {
                #expect(error.code == .server)
                #expect(error.serverError?.code == .invalidClient)
            }
            #expect(ContinuousClock.now - started < .seconds(30), "answered, not timed out")
            #expect(provider.tokenRequests.count == 1)
        }
    }

    @Test func theDeadlineHoldsEvenForWorkThatIgnoresCancellation() async throws {
        let started = ContinuousClock.now
        await #expect(throws: HTTPTransportError.self) {
            try await withDeadline(.milliseconds(200)) { () async throws -> Int in
                // Sleeps in slices and ignores cancellation, like a request that never completes.
                for _ in 0..<1200 { try? await Task.sleep(for: .milliseconds(50)) }
                return 1
            }
        }
        // Far less than the minute the work would take, with room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aSilentServerTimesOutWithinTheRequestTimeout() async throws {
        try await HostileProvider.withProvider { provider in
            provider.script { $0.faults[.token] = .delay(.seconds(120)) }
            let client = try OAuthClient(
                configuration: ClientConfiguration(issuer: provider.issuerURL, clientID: "c"),
                requestTimeout: .seconds(2))
            let started = ContinuousClock.now
            do throws(OAuthError) {
                _ = try await client.refresh(TokenSet(accessToken: "a", refreshToken: "r"))
                Issue.record("no timeout")
            } catch {
                #expect(error.code == .timedOut)
            }
            #expect(ContinuousClock.now - started < .seconds(60))
        }
    }
}
