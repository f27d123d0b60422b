// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The embedded provider's HTTP server under load a client cannot cause by accident: bodies
/// too big to read, chunked bodies, answers held back by a delay.
@Suite("Embedded provider: its HTTP server")
struct ProviderServerTests {
    @Test func chunkedRequestBodiesAreDecoded() {
        let body = Array("4\r\nwiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n".utf8)
        #expect(RequestBody.chunked.read(body, limit: 100) == .complete(Array("wikipedia".utf8)))
        #expect(RequestBody.chunked.read(body, limit: 5) == .tooLarge)
        #expect(RequestBody.chunked.read(Array("4\r\nwi".utf8), limit: 100) == .incomplete)
        #expect(RequestBody.length(3).read(Array("abcdef".utf8), limit: 100) == .complete(Array("abc".utf8)))
    }

    @Test func aRequestBodyOverTheLimitIsRefusedUnread() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            // One byte more than the provider reads (64 KiB). URLSession, as a client does, reads
            // the answer by its length rather than waiting for the connection to close.
            var request = URLRequest(url: provider.url(.token), timeoutInterval: 30)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(repeating: 0x61, count: 64 * 1024 + 1)
            let (_, response) = try await URLSession(configuration: .ephemeral).data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode
            #expect(status == 413)
            #expect(provider.requests(to: .token).isEmpty, "no endpoint saw it")
        }
    }

    @Test func aDelayedAnswerComesLateAndDoesNotHoldUpOthers() async throws {
        // The provider's time moves only when the test moves it, so "while the answer is
        // delayed" means the same on an idle machine and on one too busy to answer in 3 s.
        let time = SteppedClock()
        var configuration = EmbeddedProvider.testConfiguration
        configuration.clock = time.clock
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            provider.setFault(.delay(.seconds(3)), for: .token)
            let finished = Locked(false)
            let slow = Task {
                let answer = try await provider.postForm(.token, [("grant_type", "refresh_token")])
                finished.withLock { $0 = true }
                return answer
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while time.sleeperCount == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(time.sleeperCount == 1, "the token answer waits out its delay")
            let discovery = try await RawHTTPClient.get(
                port: provider.port, target: "/.well-known/openid-configuration")
            #expect(discovery.status == 200, "answered while the token answer is delayed")
            time.advance(by: .milliseconds(2999))
            #expect(time.sleeperCount == 1, "not answered a moment before the delay ends")
            #expect(!finished.withLock { $0 })
            time.advance(by: .milliseconds(1))
            #expect(try await slow.value.status == 401, "then answered as usual: no client named")
            #expect(time.sleeperCount == 0)
        }
    }

    @Test func aDelayedAnswerEndsWithTheProvider() async throws {
        let provider = try await EmbeddedProvider.start(EmbeddedProvider.testConfiguration)
        provider.setFault(.delay(.seconds(30)), for: .jwks)
        let started = ContinuousClock.now
        let slow = Task { try await RawHTTPClient.get(port: provider.port, target: "/jwks") }
        try await Task.sleep(for: .milliseconds(200))
        await provider.shutdown()
        // No 30-second wait: the connection closes or the answer says the provider stopped.
        let answer = try? await slow.value
        #expect(answer.map { $0.status != 200 } ?? true)
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
