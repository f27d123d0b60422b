// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// One provider serving many clients at once, as a user's parallel tests share one. Its state
/// (pending sign-ins, codes, grants) and its request log have one owner, the state's lock, so
/// every sign-in ends with tokens of its own and every request is logged once. Under
/// ThreadSanitizer (`scripts/sanitize`) an access to either outside the lock is reported here.
@Suite("Embedded provider: many clients at once")
struct ProviderConcurrencyTests {
    @Test func signInsAtOnceEachGetTheirOwnTokensAndEveryRequestIsLoggedOnce() async throws {
        let signIns = 12
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            // The log is read while the requests it records are answered.
            let reader = Task {
                var longest = 0
                while !Task.isCancelled {
                    longest = max(longest, provider.requests.count)
                    await Task.yield()
                }
                return longest
            }
            let tokens = try await withThrowingTaskGroup(of: TokenSet.self) { group in
                for _ in 0..<signIns {
                    group.addTask { try await client.signIn(environment: .standard(browser: ScriptedUserAgent())) }
                }
                return try await group.reduce(into: [TokenSet]()) { $0.append($1) }
            }
            reader.cancel()
            let log = provider.requests
            #expect(await reader.value <= log.count)

            #expect(Set(tokens.map(\.accessToken)).count == signIns)
            #expect(tokens.allSatisfy { provider.isActive(accessToken: $0.accessToken) })
            for path in ["/authorize", "/login", "/consent", "/token"] {
                #expect(log.count { $0.path == path } == signIns, "each sign-in's \(path) logged once")
            }
            #expect(log.allSatisfy { $0.status < 400 }, "no request was refused")
        }
    }
}
