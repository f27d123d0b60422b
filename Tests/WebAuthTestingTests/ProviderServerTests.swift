// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
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
    @Test func chunkedRequestBodiesAreDecoded() async throws {
        try await LoopbackHTTPServer.withServer(limits: .init(maximumBodySize: 9)) { request in
            .text(request.bodyText)
        } _: { server in
            let head = "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            let answer = try await RawHTTPClient.exchange(
                port: server.port,
                bytes: Array((head + "4\r\nwiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n").utf8))
            #expect(answer.status == 200)
            #expect(answer.body == "wikipedia", "chunk extensions and trailer fields are not body")
            let tooLong = try await RawHTTPClient.exchange(
                port: server.port, bytes: Array((head + "4\r\nwiki\r\n6\r\npedias\r\n0\r\n\r\n").utf8))
            #expect(tooLong.status == 413, "one byte over the limit, announced by no length")
            #expect(await server.requests.map(\.responseStatus) == [200, 413])
        }
    }

    @Test func headsOverTheBoundAndMalformedRequestsAreRefusedBeforeTheHandler() async throws {
        try await LoopbackHTTPServer.withServer { _ in
            .text("handled")
        } _: { server in
            let large = String(repeating: "a", count: LoopbackHTTPServer.maximumHeadSize)
            let oversized = try await RawHTTPClient.exchange(
                port: server.port, bytes: Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Large: \(large)\r\n\r\n".utf8))
            #expect(oversized.status == 431)
            let absolute = try await RawHTTPClient.exchange(
                port: server.port, bytes: Array("GET http://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(absolute.status == 400)
            let conflicting = try await RawHTTPClient.exchange(
                port: server.port,
                bytes: Array(
                    ("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n"
                        + "Content-Length: 2\r\n\r\nab").utf8))
            #expect(conflicting.status == 400)
            #expect(await server.requests.isEmpty, "no handler ran")
        }
    }

    @Test func answersAreTheBytesTheResponseDescribes() async throws {
        try await LoopbackHTTPServer.withServer { request in
            request.path == "/raw"
                ? .raw(Array("HTTP/1.1 200 OK\r\n\r\n{".utf8), status: 200)
                : ServerResponse(
                    status: 418, reason: "Teapot", headerFields: [.contentType: "text/plain"], body: [0x61])
        } _: { server in
            let framed = try await RawHTTPClient.get(port: server.port, target: "/")
            #expect(
                framed.raw
                    == "HTTP/1.1 418 Teapot\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n"
                    + "Cache-Control: no-store\r\nConnection: close\r\n\r\na")
            let raw = try await RawHTTPClient.get(port: server.port, target: "/raw")
            #expect(raw.raw == "HTTP/1.1 200 OK\r\n\r\n{", "no framing added to a raw answer")
        }
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

    @Test(.timeLimit(.minutes(1))) func aDelayedAnswerComesLateAndDoesNotHoldUpOthers() async throws {
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
            try await time.waitForSleepers(1)
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

    @Test(.timeLimit(.minutes(1))) func aDelayedAnswerEndsWithTheProvider() async throws {
        // The delay is on a clock nobody moves: only the shutdown can end it.
        let time = SteppedClock()
        var configuration = EmbeddedProvider.testConfiguration
        configuration.clock = time.clock
        let provider = try await EmbeddedProvider.start(configuration)
        provider.setFault(.delay(.seconds(30)), for: .jwks)
        let slow = Task { try await RawHTTPClient.get(port: provider.port, target: "/jwks") }
        try await time.waitForSleepers(1)
        await provider.shutdown()
        // The connection closes or the answer says the provider stopped.
        let answer = try? await slow.value
        #expect(answer.map { $0.status != 200 } ?? true)
        #expect(time.sleeperCount == 0, "the delayed answer was cancelled")
    }
}

/// The test client's reading of an answer's body, as nginx and Django send it.
@Suite("The test HTTP client's bodies")
struct RawHTTPClientBodyTests {
    static func response(_ head: String, _ body: String) -> RawHTTPClient.Response {
        RawHTTPClient.Response(Array((head + "\r\n\r\n" + body).utf8))
    }

    @Test func aChunkedBodyIsDecoded() {
        let answer = Self.response(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked", "5;name=value\r\n{\"a\":\r\n4\r\n 1}\n\r\n0\r\n\r\n")
        #expect(answer.status == 200)
        #expect(answer.body == "{\"a\": 1}\n")
        let listed = Self.response("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, Chunked", "3\r\nabc\r\n0\r\n\r\n")
        #expect(listed.body == "abc", "the last coding named, in any case")
    }

    @Test func aBodyThatIsNotChunkedOrCutShortIsGivenAsSent() {
        #expect(Self.response("HTTP/1.1 200 OK\r\nContent-Length: 3", "abc").body == "abc")
        for malformed in ["5\r\nab", "zz\r\nabc\r\n0\r\n\r\n", "3\r\nabcd\r\n0\r\n\r\n", "3\r\nabc\r\n"] {
            let answer = Self.response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked", malformed)
            #expect(answer.body == malformed, "\(malformed.debugDescription)")
        }
        #expect(RawHTTPClient.Response(Array("HTTP/1.1 200 OK\r\n".utf8)).body == "", "no blank line, no body")
    }
}
