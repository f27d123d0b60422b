// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@testable import WebAuthLoopback

/// A loopback listener bound before its session: its redirect URI is known first, it refuses
/// the callback until a session takes it, the session then decides, and an untaken listener
/// releases its port when closed.
@Suite("Bound loopback receiver")
struct BoundLoopbackReceiverTests {
    @Test func itRefusesUntilASessionTakesItThenAnswersByTheSessionsRule() async throws {
        let bound = try await BoundLoopbackReceiver.bind(.loopback(path: "/bound"))
        let port = try #require(bound.callback.loopbackEndpoint?.port)
        #expect(port != 0)
        #expect(bound.redirectURI.absoluteString == "http://127.0.0.1:\(port)/bound")
        #expect(bound.canReceive(.loopback(path: "/bound")))
        #expect(bound.canReceive(.loopback(path: "/bound", port: port)))
        #expect(!bound.canReceive(.loopback(path: "/other")))
        #expect(!bound.canReceive(.loopback(path: "/bound", port: port == 65535 ? 1 : port + 1)))

        let early = try await TestClient.exchange(
            TestClient.get("/bound?state=expected", host: "127.0.0.1:\(port)"), port: port)
        #expect(early.status == 400, "no session waits yet")

        let listener = try await bound.listen(
            for: .loopback(path: "/bound", port: port),
            deciding: sessionVerdict { url in
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.contains {
                    $0.name == "state" && $0.value == "expected"
                } == true
            })
        #expect(!bound.canReceive(.loopback(path: "/bound")), "one session takes it")
        await #expect(throws: WebAuthenticationSessionError.self) {
            _ = try await bound.listen(for: .loopback(path: "/bound"), deciding: sessionVerdict())
        }
        let wrong = try await TestClient.exchange(
            TestClient.get("/bound?state=forged", host: "127.0.0.1:\(port)"), port: port)
        #expect(wrong.status == 400)
        let right = try await TestClient.exchange(
            TestClient.get("/bound?state=expected", host: "127.0.0.1:\(port)"), port: port)
        #expect(right.status == 200)
        #expect(await listener.firstCallback()?.query == "state=expected")
        await bound.close()  // the session's to close: nothing happens here
        await listener.close()
    }

    @Test func anUntakenListenerReleasesItsPortWhenClosed() async throws {
        let bound = try await BoundLoopbackReceiver.bind(.loopback(path: "/unused"))
        let port = try #require(bound.callback.loopbackEndpoint?.port)
        await bound.close()
        let again = try await BoundLoopbackReceiver.bind(.loopback(path: "/unused", port: port))
        #expect(again.callback.loopbackEndpoint?.port == port)
        await again.close()
        #expect(!bound.canReceive(.loopback(path: "/unused")), "a closed listener is taken by nobody")
    }
}
