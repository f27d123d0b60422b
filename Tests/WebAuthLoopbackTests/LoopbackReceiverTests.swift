// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import Testing
import WebAuthCore

@testable import WebAuthLoopback

/// End-to-end tests over real sockets on the loopback interface.
@Suite("Loopback receiver over sockets")
struct LoopbackReceiverTests {
    private func listen(
        _ callback: Callback = .loopback(),
        configuration: LoopbackReceiver.Configuration = .init(),
        accepting: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) async throws -> any CallbackListener {
        try await LoopbackReceiver(configuration: configuration).listen(
            for: callback, deciding: sessionVerdict(accepting: accepting))
    }

    /// Accepts only `state=expected`.
    private static let stateIsExpected: @Sendable (URL) -> Bool = { url in
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
            == "expected"
    }

    /// Binds `port` on 127.0.0.1 with a fresh NIO server, then closes it.
    private func canBindAgain(port: Int, reuseAddress: Bool = true) async -> Bool {
        var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if reuseAddress { bootstrap = bootstrap.serverChannelOption(.socketOption(.so_reuseaddr), value: 1) }
        guard let channel = try? await bootstrap.bind(host: "127.0.0.1", port: port).get() else { return false }
        try? await channel.close()
        return true
    }

    @Test func canReceiveOnlyLoopback() {
        let receiver = LoopbackReceiver()
        #expect(receiver.canReceive(.loopback()))
        #expect(receiver.canReceive(.loopback(path: "/cb", port: 8080, host: .ipv6)))
        #expect(!receiver.canReceive(.customScheme("com.example.app")))
        #expect(!receiver.canReceive(.https(host: "example.com", path: "/cb")))
    }

    @Test func invalidCallbacksAreRefused() async {
        for callback in [Callback.customScheme("com.example.app"), .loopback(path: "cb"), .loopback(port: 70000)] {
            await #expect(throws: WebAuthenticationSessionError.self) {
                _ = try await LoopbackReceiver().listen(for: callback, deciding: sessionVerdict())
            }
        }
    }

    @Test func bindsIPv4LoopbackAndDeliversTheCallback() async throws {
        let listener = try await listen()
        #expect(listener.port > 0)
        #expect(listener.redirectURI.absoluteString == "http://127.0.0.1:\(listener.port)/callback")
        #expect(listener.callback == .loopback(port: listener.port))

        let target = "/callback?code=SECRETCODE123&state=STATEVALUE456&extra=a%20b"
        let reply = try await TestClient.exchange(
            TestClient.get(target, host: listener.hostField), port: listener.port)
        #expect(reply.status == 200)
        let headers = reply.headers
        #expect(headers["content-type"] == "text/html; charset=utf-8")
        #expect(headers["cache-control"] == "no-store")
        #expect(headers["pragma"] == "no-cache")
        #expect(headers["referrer-policy"] == "no-referrer")
        #expect(headers["x-content-type-options"] == "nosniff")
        #expect(headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'")
        #expect(headers["connection"] == "close")
        #expect(headers["content-length"] == "\(reply.body.utf8.count)")
        #expect(reply.body.contains("Signed in — you can close this window and return to the app."))
        #expect(!reply.text.contains("SECRETCODE123"))
        #expect(!reply.text.contains("STATEVALUE456"))
        #expect(!reply.clientTimedOut)

        let url = await listener.firstCallback()
        #expect(url?.absoluteString == "http://127.0.0.1:\(listener.port)\(target)")
        await listener.close()
    }

    @Test func bindsIPv6LoopbackWhenAvailable() async throws {
        let listener: any CallbackListener
        do {
            listener = try await listen(.loopback(path: "/cb", host: .ipv6))
        } catch {
            print("note: ::1 cannot be bound on this machine (\(error)); skipping the IPv6 loopback test")
            return
        }
        #expect(listener.redirectURI.absoluteString == "http://[::1]:\(listener.port)/cb")
        // The IPv4 address is not bound by this listener. (Another test's IPv4 listener may hold
        // the same port number, so the connection may succeed — but never reach this listener.)
        let wrongFamily = try? await TestClient.exchange(
            TestClient.get("/cb?code=1", host: "127.0.0.1:\(listener.port)"), port: listener.port)
        #expect(wrongFamily?.status != 200)
        // An IPv4 Host field is refused on the IPv6 listener.
        let wrongHost = try await TestClient.exchange(
            TestClient.get("/cb?code=1", host: "127.0.0.1:\(listener.port)"), host: "::1", port: listener.port)
        #expect(wrongHost.status == 400)
        let reply = try await TestClient.exchange(
            TestClient.get("/cb?code=1", host: "[::1]:\(listener.port)"), host: "::1", port: listener.port)
        #expect(reply.status == 200)
        let url = await listener.firstCallback()
        #expect(url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.query } == "code=1")
        #expect(url.map { listener.callback.matchesURL($0) } == true)
        await listener.close()
    }

    @Test func localhostHostFieldIsAccepted() async throws {
        let listener = try await listen()
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=1", host: "localhost:\(listener.port)"), port: listener.port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()
    }

    @Test func strayPathsGet404AndTheSessionContinues() async throws {
        let listener = try await listen()
        for path in ["/favicon.ico", "/", "/callback/", "/callbackx?code=1", "/other/callback"] {
            let reply = try await TestClient.exchange(
                TestClient.get(path, host: listener.hostField), port: listener.port)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'")
            #expect(reply.headers["connection"] == "close")
        }
        let head = try await TestClient.exchange(
            TestClient.get("/favicon.ico", host: listener.hostField, method: "HEAD"), port: listener.port)
        #expect(head.status == 404)
        #expect(head.body.isEmpty)

        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=real", host: listener.hostField), port: listener.port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback()?.query == "code=real")
        await listener.close()
    }

    @Test func headOnTheCallbackPathIsNotTheCallback() async throws {
        let listener = try await listen()
        let head = try await TestClient.exchange(
            TestClient.get("/callback?code=probe", host: listener.hostField, method: "HEAD"), port: listener.port)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=real", host: listener.hostField), port: listener.port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback()?.query == "code=real")
        await listener.close()
    }

    @Test func wrongOrMissingHostGets400AndTheSessionContinues() async throws {
        let listener = try await listen()
        let port = listener.port
        for host in [
            "evil.example", "evil.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1", "127.0.0.2:\(port)", nil,
        ] {
            let reply = try await TestClient.exchange(TestClient.get("/callback?code=x", host: host), port: port)
            #expect(reply.status == 400, "Host \(host ?? "missing")")
            #expect(!reply.text.contains("code=x"))
        }
        let doubled = try await TestClient.exchange(
            TestClient.get("/callback?code=x", host: listener.hostField, extra: "Host: evil.example\r\n"), port: port)
        #expect(doubled.status == 400)

        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=ok", host: listener.hostField), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback()?.query == "code=ok")
        await listener.close()
    }

    @Test func rejectedCallbackKeepsTheSessionGoing() async throws {
        let listener = try await listen(accepting: Self.stateIsExpected)
        let forged = try await TestClient.exchange(
            TestClient.get("/callback?code=FORGEDCODE&state=forged", host: listener.hostField), port: listener.port)
        #expect(forged.status == 400)
        #expect(forged.body.contains("This sign-in response was not expected"))
        #expect(!forged.text.contains("FORGEDCODE"))
        #expect(forged.headers["cache-control"] == "no-store")

        let missing = try await TestClient.exchange(
            TestClient.get("/callback?code=x", host: listener.hostField), port: listener.port)
        #expect(missing.status == 400)

        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=good&state=expected", host: listener.hostField), port: listener.port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback()?.query == "code=good&state=expected")
        await listener.close()
    }

    @Test func onlyTheFirstCallbackIsTaken() async throws {
        // A path of its own: once this listener closes, the system may give its port to another
        // test's listener, which must not mistake the late second request for its callback.
        let path = "/only-first-\(UUID().uuidString.prefix(8))"
        let listener = try await listen(.loopback(path: path))
        let first = try await TestClient.exchange(
            TestClient.get("\(path)?code=first", host: listener.hostField), port: listener.port)
        #expect(first.status == 200)

        // The server socket is closed by the time the first answer's connection is: a second
        // callback cannot even connect (or, at worst, is closed without an answer).
        let second = try? await TestClient.exchange(
            TestClient.get("\(path)?code=second", host: listener.hostField), port: listener.port)
        #expect(second?.status == nil)

        await listener.close()
        var received: [URL] = []
        for await callback in listener.callbacks { received.append(callback.url) }
        #expect(received.map(\.query) == ["code=first"])
        await listener.close()  // idempotent
    }

    @Test func portIsReleasedAfterSuccess() async throws {
        let listener = try await listen()
        let port = listener.port
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=1", host: listener.hostField), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()
        // Like the receiver itself, a new server binds with SO_REUSEADDR (the answered
        // connection's TIME_WAIT stays on the server's side, as the server closes first).
        #expect(await canBindAgain(port: port))
        let again = try await listen(.loopback(port: port))
        #expect(again.port == port)
        await again.close()
    }

    @Test func portIsReleasedAfterCloseWithoutCallback() async throws {
        let path = "/callback-\(UUID().uuidString.prefix(8).lowercased())"
        let listener = try await listen(.loopback(path: path))
        let port = listener.port
        await listener.close()
        #expect(await listener.firstCallback(within: .seconds(1)) == nil)
        // Without any connection there is no TIME_WAIT: even a plain bind succeeds at once —
        // unless the system has meanwhile given the released number to another test's socket
        // (tests run in parallel), and then what holds the port is not this listener.
        let rebound = await canBindAgain(port: port, reuseAddress: false)
        let askedAgain = try? await TestClient.exchange(
            TestClient.get("\(path)?code=late", host: "127.0.0.1:\(port)"), port: port)
        #expect(rebound || askedAgain?.status != 200, "the closed listener does not answer")
    }

    @Test func portIsReleasedAfterCloseWithOpenConnections() async throws {
        let listener = try await listen(configuration: .init(readTimeout: .seconds(30)))
        let port = listener.port
        // A long client deadline: the reply must end because the listener closed it.
        let idle = try await TestClient.connect(port: port, deadline: .seconds(60))
        try await idle.send("GET /callback?code=1 HTTP/1.1\r\n")
        let stray = try await TestClient.exchange(TestClient.get("/nothing", host: listener.hostField), port: port)
        #expect(stray.status == 404)
        await listener.close()
        let idleReply = try await idle.finish()
        #expect(!idleReply.clientTimedOut)
        #expect(await canBindAgain(port: port))
        // Connecting now fails: nothing listens.
        let late = try? await TestClient.exchange(TestClient.get("/after-close", host: "127.0.0.1:\(port)"), port: port)
        #expect(late?.status == nil)
    }

    @Test func afterTheCallbackClosingNeedsNoTurnOfTheEventLoopAndThePortRefusesConnections() async throws {
        // The listener's own loop, so that the test can hold it.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let path = "/callback-\(UUID().uuidString.prefix(8).lowercased())"
        let listener = try await LoopbackReceiver(eventLoopGroup: group).listen(
            for: .loopback(path: path), deciding: sessionVerdict())
        let port = listener.port
        // Connections still open when the callback comes: the listener closes them, and the
        // session need not wait for that.
        var strays: [TestClient.Connection] = []
        for _ in 0..<20 {
            strays.append(
                try await TestClient.connect(port: port, sending: Array("GET /favicon.ico HTTP/1.1\r\n".utf8)))
        }
        let reply = try await TestClient.exchange(
            TestClient.get("\(path)?code=1", host: listener.hostField), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)

        // Hold the listener's event loop: closing, and refusing new connections, must not need it.
        let held = DispatchSemaphore(value: 0)
        group.next().execute { held.wait() }
        let (closedWhileHeld, refusedWhileHeld) = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                await listener.close()
                return true
            }
            tasks.addTask {
                // Real time is the point: close() either returns while the loop is held or
                // hangs, and only a bound on the wall clock can tell the two apart.
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let closed = await tasks.next() ?? false
            // With the listening socket open, the kernel would complete the handshake and the
            // held loop would never answer: the client's deadline would pass. Refused is right;
            // so is an answer from another test's server that has since taken the port number.
            let late = try? await TestClient.exchange(
                TestClient.get("\(path)?code=late", host: "127.0.0.1:\(port)"), port: port, deadline: .seconds(2))
            let refused = !(late?.clientTimedOut ?? false)
            held.signal()
            tasks.cancelAll()
            return (closed, refused)
        }
        #expect(closedWhileHeld, "close() returned while the event loop was held")
        #expect(refusedWhileHeld, "the port refused a new connection while the event loop was held")
        for stray in strays { _ = try? await stray.finish() }
        try await group.shutdownGracefully()
    }

    @Test func closeRacingTheCallbackIsSafe() async throws {
        for _ in 0..<20 {
            // A path of its own, for the same reason as in onlyTheFirstCallbackIsTaken.
            let path = "/race-\(UUID().uuidString.prefix(8))"
            let listener = try await listen(.loopback(path: path))
            async let reply = try? TestClient.exchange(
                TestClient.get("\(path)?code=race", host: listener.hostField), port: listener.port)
            await listener.close()
            let answer = await reply
            var received: [URL] = []
            for await callback in listener.callbacks { received.append(callback.url) }
            // Either the callback won (200, delivered once) or the close did (nothing delivered).
            if answer?.status == 200 {
                #expect(received.count == 1)
            } else {
                #expect(received.isEmpty)
            }
            #expect(await canBindAgain(port: listener.port))
        }
    }

    @Test func busyPortFailsNamingThePort() async throws {
        let blocker = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(blocker.localAddress?.port)
        do {
            let listener = try await listen(.loopback(port: port))
            await listener.close()
            Issue.record("binding a busy port should fail")
        } catch let error as WebAuthenticationSessionError {
            #expect(error.code == .callbackListenerFailed)
            #expect(error.port == port)
            #expect(error.message.contains("\(port)"))
        }
        try await blocker.close()
    }

    @Test func errorCallbackShowsEscapedErrorAndIsDelivered() async throws {
        let listener = try await listen(accepting: Self.stateIsExpected)
        let target =
            "/callback?error=access_denied&error_description=%3Cscript%3Ealert(%27x%27)%3C%2Fscript%3E+%26+more"
            + "&state=expected"
        let reply = try await TestClient.exchange(TestClient.get(target, host: listener.hostField), port: listener.port)
        #expect(reply.status == 200)
        #expect(reply.body.contains("access_denied"))
        #expect(reply.body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more"))
        #expect(!reply.body.contains("<script"))
        #expect(!reply.body.contains("expected"))
        #expect(reply.body.contains("Sign-in failed"))
        #expect(await listener.firstCallback()?.query == String(target.dropFirst("/callback?".count)))
        await listener.close()
    }

    @Test func providerTextOnTheErrorPageLosesControlBidiAndSeparatorCharacters() async throws {
        let listener = try await listen(accepting: Self.stateIsExpected)
        // error: ESC ] 0 ; title BEL and a bidi override; description: U+202E, U+2028, a C1 CSI
        // and a zero-width space, all percent-encoded as a hostile provider would send them.
        let target =
            "/callback?error=denied%1B%5D0%3Btitle%07%E2%80%AE&error_description=abc%E2%80%AEdef%E2%80%A8ghi%C2%9B2J%E2%80%8B"
            + "&state=expected"
        let reply = try await TestClient.exchange(TestClient.get(target, host: listener.hostField), port: listener.port)
        #expect(reply.status == 200)
        for scalar in ["\u{1B}", "\u{07}", "\u{202E}", "\u{2028}", "\u{9B}", "\u{200B}"] as [Unicode.Scalar] {
            #expect(
                !reply.body.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) reached the page")
        }
        #expect(reply.body.contains("denied?]0;title??"))
        #expect(reply.body.contains("abc?def?ghi?2J?"))
        // The callback itself is delivered as it came.
        #expect(await listener.firstCallback()?.query == String(target.dropFirst("/callback?".count)))
        await listener.close()
    }

    @Test func connectionFloodDoesNotLockOutTheBrowser() async throws {
        let listener = try await listen(configuration: .init(readTimeout: .seconds(30)))
        let port = listener.port
        let flood = try await withThrowingTaskGroup(of: TestClient.Connection.self) { group in
            for index in 0..<300 {
                group.addTask {
                    // Some say nothing, some start a head and stall.
                    let partial = index % 3 == 0 ? Array("GET /callback?code=x HTTP/1.1\r\nHo".utf8) : []
                    return try await TestClient.connect(port: port, deadline: .seconds(20), sending: partial)
                }
            }
            var connections: [TestClient.Connection] = []
            for try await connection in group { connections.append(connection) }
            return connections
        }
        #expect(flood.count == 300)

        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=real", host: listener.hostField), port: port)
        #expect(!reply.clientTimedOut)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback()?.query == "code=real")
        await listener.close()
        // No flooding connection got an answer; close whatever the server has not closed yet.
        for connection in flood {
            await connection.close()
            #expect(try await connection.finish().status == nil)
        }
    }

    @Test func manyConcurrentStrayRequestsAllGet404() async throws {
        // A connection cap above this test's 200: at the default cap (128) a burst that arrives
        // faster than heads are read is cut back by eviction, which the flood test covers. A long
        // read deadline: on a loaded machine 200 clients can take more than 5 s to send their
        // heads, and the deadline has tests of its own.
        let listener = try await listen(configuration: .init(readTimeout: .seconds(60), maxConnections: 256))
        let port = listener.port
        let host = listener.hostField
        let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let path = ["/favicon.ico", "/", "/callback/", "/robots.txt"][index % 4]
                    return try await TestClient.exchange(
                        TestClient.get(path, host: host), port: port, deadline: .seconds(60)
                    ).status
                }
            }
            var statuses: [Int?] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 404 })

        let reply = try await TestClient.exchange(TestClient.get("/callback?code=real", host: host), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback()?.query == "code=real")
        await listener.close()
    }
}
