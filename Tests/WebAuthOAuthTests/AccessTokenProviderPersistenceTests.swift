// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth
import WebAuthPlatform

/// ``AccessTokenProvider`` with a ``TokenPersistence``: what it refreshes with and when it takes
/// what another holder stored. The persistence here is a value in memory (the seam); the
/// token store's, locked across processes, is tested in WebAuthTokenStoreTests.
@Suite("Fresh access tokens kept in a persistence")
struct AccessTokenProviderPersistenceTests {
    /// Tokens in memory, counting the updates.
    final class MemoryPersistence: TokenPersistence {
        private let state: Locked<(tokens: TokenSet, updates: Int)>
        init(_ tokens: TokenSet) { state = Locked((tokens, 0)) }
        var tokens: TokenSet { state.withLock { $0.tokens } }
        var updates: Int { state.withLock { $0.updates } }

        func update(_ body: (TokenSet) async throws -> TokenSet) async throws -> TokenSet {
            let current = state.withLock { $0.tokens }
            let new = try await body(current)
            state.withLock {
                $0.tokens = new
                $0.updates += 1
            }
            return new
        }
    }

    /// A client whose token endpoint answers `at-N`/`rt-N` for its N-th refresh.
    private static func client(clock: ManualClock) throws -> (OAuthClient, ScriptedTransport) {
        let count = Locked(0)
        let transport = ScriptedTransport { _ in
            let number = count.withLock { value -> Int in
                value += 1
                return value
            }
            return .json(
                200,
                #"{"access_token":"at-\#(number)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(number)"}"#
            )
        }
        let client = try OAuthClient(
            configuration: ClientConfiguration(endpoints: TokenEndpointTests.endpoints, clientID: "c"),
            transport: transport, clock: clock.oauthClock)
        return (client, transport)
    }

    @Test func aStaleTokenIsRefreshedWithTheStoredRefreshTokenAndStored() async throws {
        let clock = ManualClock()
        let (client, transport) = try Self.client(clock: clock)
        let held = TokenSet(accessToken: "old", refreshToken: "rt-held", expiresAt: clock.now.addingTimeInterval(30))
        // Another holder refreshed, but what it stored is stale as well: refresh with its token.
        let persistence = MemoryPersistence(
            TokenSet(accessToken: "other", refreshToken: "rt-stored", expiresAt: clock.now.addingTimeInterval(30)))
        let provider = AccessTokenProvider(client: client, tokens: held, persistence: persistence)

        #expect(try await provider.accessToken() == "at-1")
        #expect(transport.requests.map { $0.formParameters["refresh_token"] } == ["rt-stored"])
        #expect(persistence.tokens.refreshToken == "rt-1", "the rotated token is stored")
        #expect(await provider.tokens.accessToken == "at-1")
        // Fresh now: no update, no request.
        #expect(try await provider.accessToken() == "at-1")
        #expect(persistence.updates == 1)
    }

    @Test func freshTokensAnotherHolderStoredAreTakenWithoutARequest() async throws {
        let clock = ManualClock()
        let (client, transport) = try Self.client(clock: clock)
        let held = TokenSet(accessToken: "old", refreshToken: "rt-0", expiresAt: clock.now.addingTimeInterval(30))
        let stored = TokenSet(accessToken: "new", refreshToken: "rt-x", expiresAt: clock.now.addingTimeInterval(3600))
        let persistence = MemoryPersistence(stored)
        let provider = AccessTokenProvider(client: client, tokens: held, persistence: persistence)

        #expect(try await provider.accessToken() == "new")
        #expect(transport.requests.isEmpty)
        #expect(persistence.tokens == stored)
    }

    @Test func refreshNowRefreshesTheTokensItHoldsEvenWhenFresh() async throws {
        let clock = ManualClock()
        let (client, transport) = try Self.client(clock: clock)
        let tokens = TokenSet(accessToken: "at-0", refreshToken: "rt-0", expiresAt: clock.now.addingTimeInterval(3600))
        let persistence = MemoryPersistence(tokens)
        let provider = AccessTokenProvider(client: client, tokens: tokens, persistence: persistence)

        // Say the resource server refused at-0: the stored tokens are the provider's own, so
        // they are refreshed although they look fresh.
        #expect(try await provider.refreshNow().accessToken == "at-1")
        #expect(transport.requests.map { $0.formParameters["refresh_token"] } == ["rt-0"])
        #expect(persistence.tokens.refreshToken == "rt-1")
    }

    @Test func aFailingPersistenceFailsTheCallAndTheNextCallTriesAgain() async throws {
        struct Unavailable: Error {}
        final class Failing: TokenPersistence {
            let failures: Locked<Int>
            let inner: MemoryPersistence
            init(failures: Int, inner: MemoryPersistence) {
                self.failures = Locked(failures)
                self.inner = inner
            }
            func update(_ body: (TokenSet) async throws -> TokenSet) async throws -> TokenSet {
                if failures.withLock({ value -> Bool in
                    defer { value -= 1 }
                    return value > 0
                }) {
                    throw Unavailable()
                }
                return try await inner.update(body)
            }
        }
        let clock = ManualClock()
        let (client, transport) = try Self.client(clock: clock)
        let tokens = TokenSet(accessToken: "at-0", refreshToken: "rt-0", expiresAt: clock.now)
        let inner = MemoryPersistence(tokens)
        let provider = AccessTokenProvider(
            client: client, tokens: tokens, persistence: Failing(failures: 1, inner: inner))

        await #expect(throws: Unavailable.self) { try await provider.accessToken() }
        #expect(transport.requests.isEmpty, "nothing was refreshed outside the persistence")
        #expect(try await provider.accessToken() == "at-1")
        #expect(inner.tokens.refreshToken == "rt-1")
    }
}
