// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Testing
import WebAuthCore
import WebAuthPlatform

@testable import WebAuthLoopback

/// Keeps every log line, rendered with its metadata.
/// Every log line the loopback tests capture, with its level and metadata.
final class LogStore: Sendable {
    private let lines = Locked<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }

    /// A logger at trace level whose lines go here.
    var logger: Logger {
        Logger(label: "test") { _ in CapturingLogHandler(store: self) }
    }

    /// The `connection` numbers of the lines with `message`, in the order logged.
    func connections(_ message: String) -> [String] {
        all.filter { $0.contains(message) }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("connection=") }.map { String($0.dropFirst(11)) }
        }
    }

    /// Waits until `condition` holds for the lines logged so far; false if it does not within
    /// `limit`, which only stops a hang.
    func wait(limit: Duration = .seconds(60), until condition: ([String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !condition(all) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}

private struct CapturingLogHandler: LogHandler {
    let store: LogStore
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        store.append("\(event.level) \(event.message) \(fields)")
    }
}

@Suite("Loopback limits and logging")
struct LoopbackLimitsAndLoggingTests {
    @Test func oldestStalledConnectionIsEvictedAtTheLimit() async throws {
        // Only eviction can close a stalled connection here: the listener's read timeout (600 s)
        // is longer than the clients' deadline (300 s), which only stops a test that would hang.
        // The deadline runs from each connection's start, while this test's own steps may wait
        // for a thread on a loaded machine, so it must leave room for that wait (a 10-second
        // deadline once ran out before the fifth connection was even made).
        let store = LogStore()
        let receiver = LoopbackReceiver(
            configuration: .init(readTimeout: .seconds(600), maxConnections: 4), logger: store.logger)
        let listener = try await receiver.listen(for: .loopback(), deciding: sessionVerdict())
        let port = listener.port

        // The listener takes a connection when its first bytes arrive, and two clients' first
        // bytes may overtake each other: each is admitted before the next is made.
        var stalled: [TestClient.Connection] = []
        for count in 1...4 {
            stalled.append(try await Self.connectStalled(port: port))
            #expect(await store.wait { _ in store.connections("connection opened").count == count })
        }
        // A fifth connection makes room by closing the oldest stalled one.
        let fifth = try await Self.connectStalled(port: port)
        let oldest = try await stalled[0].finish()
        #expect(!oldest.clientTimedOut)
        #expect(oldest.bytes.isEmpty)

        // The browser's request still gets through, evicting the next stalled one.
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=1", host: listener.hostField), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()
        for connection in stalled.dropFirst() + [fifth] {
            #expect(!(try await connection.finish()).clientTimedOut)
        }
    }

    @Test func answeredConnectionsAreEvictedFirstThenTheOldestWaiting() async throws {
        let store = LogStore()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(store: store) }
        let receiver = LoopbackReceiver(
            configuration: .init(readTimeout: .seconds(600), maxConnections: 3), logger: logger)
        let listener = try await receiver.listen(for: .loopback(), deciding: sessionVerdict())
        let port = listener.port

        // Each connection is admitted before the next is made: the listener takes a connection
        // when its first bytes arrive, and two clients' first bytes may overtake each other.
        let oldestWaiting = try await Self.connectStalled(port: port)  // connection 0
        #expect(await store.wait { _ in store.connections("connection opened").count == 1 })
        // Connection 1 is answered and lingers: bytes followed its head, and its client keeps
        // its side open.
        let lingering = try await Self.connectLingering(port: port, host: listener.hostField)
        #expect(await store.wait { lines in lines.contains { $0.contains("turned a request away") } })
        let nextWaiting = try await Self.connectStalled(port: port)  // connection 2: the limit is reached
        #expect(await store.wait { _ in store.connections("connection opened").count == 3 })
        // Each further connection makes room: first the answered one, although connection 0 is
        // older, then the waiting ones, oldest first.
        var newer: [TestClient.Connection] = []
        for _ in 0..<3 { newer.append(try await Self.connectStalled(port: port)) }
        #expect(await store.wait { _ in store.connections("evicted a connection").count == 3 })
        #expect(store.connections("evicted a connection") == ["1", "0", "2"])

        for evicted in [oldestWaiting, nextWaiting] {
            let reply = try await evicted.finish()
            #expect(!reply.clientTimedOut)
            #expect(reply.bytes.isEmpty)
        }
        await listener.close()
        await lingering.close()
        #expect(try await lingering.finish().status == 404)
        for connection in newer { #expect(!(try await connection.finish()).clientTimedOut) }
    }

    @Test func oneDeadlineTimerClosesWaitingAndLingeringConnectionsAndLaterOnes() async throws {
        let store = LogStore()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(store: store) }
        let receiver = LoopbackReceiver(configuration: .init(readTimeout: .seconds(1)), logger: logger)
        let listener = try await receiver.listen(for: .loopback(), deciding: sessionVerdict())
        let port = listener.port

        // Connection 0 is answered and then lingers; connection 1 stalls in its head. The
        // clients' own deadline (300 s) is far beyond the listener's.
        let lingering = try await Self.connectLingering(port: port, host: listener.hostField)
        #expect(await store.wait { _ in store.connections("connection opened").count == 1 })
        let stalled = try await Self.connectStalled(port: port)
        let stalledReply = try await stalled.finish()
        #expect(!stalledReply.clientTimedOut)
        #expect(stalledReply.bytes.isEmpty)
        #expect(await store.wait { _ in Set(store.connections("timed out")) == ["0", "1"] })
        // A client that lingers learns that the server has closed once it sends again (the
        // timeout is logged after the close).
        try? await lingering.send("x")
        let lingeringReply = try await lingering.finish()
        #expect(!lingeringReply.clientTimedOut)
        #expect(lingeringReply.status == 404)

        // With no connection left, the next one still meets its deadline.
        let late = try await Self.connectStalled(port: port)
        let lateReply = try await late.finish()
        #expect(!lateReply.clientTimedOut)
        #expect(lateReply.bytes.isEmpty)
        // The timeout is logged after the close the client saw, so wait for its line too.
        #expect(await store.wait { _ in store.connections("timed out").sorted() == ["0", "1", "2"] })

        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=1", host: listener.hostField), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()
    }

    @Test func anAnswerClosesAtOnceUnlessBytesFollowedTheHead() async throws {
        let store = LogStore()
        let receiver = LoopbackReceiver(configuration: .init(readTimeout: .seconds(1)), logger: store.logger)
        let listener = try await receiver.listen(for: .loopback(), deciding: sessionVerdict())
        let port = listener.port

        // Connection 0 sends its head and nothing more; its client keeps its side open, so only
        // the listener can end it.
        let clean = try await TestClient.connect(
            port: port, sending: Array(TestClient.get("/favicon.ico", host: listener.hostField).utf8),
            keepingOpenAfterAnswer: true)
        #expect(await store.wait { lines in lines.contains { $0.contains("turned a request away") } })
        // Connection 1 sends bytes after its head: it lingers until the read timeout.
        let lingering = try await Self.connectLingering(port: port, host: listener.hostField)
        #expect(await store.wait { _ in store.connections("timed out").contains("1") })
        // The deadline timer closes every connection past its deadline at once: connection 0,
        // answered earlier, was no longer open to time out.
        #expect(!store.connections("timed out").contains("0"))

        await clean.close()
        #expect(try await clean.finish().status == 404)
        try? await lingering.send("x")  // only then does the client learn the server closed
        let lingeringReply = try await lingering.finish()
        #expect(!lingeringReply.clientTimedOut)
        #expect(lingeringReply.status == 404)
        await listener.close()
    }

    #if os(Linux)
        @Test func silentConnectionsWaitInTheKernelAndTakeNoPlace() async throws {
            // Two places, and a read timeout (also the kernel's wait) far beyond the test.
            let store = LogStore()
            let receiver = LoopbackReceiver(
                configuration: .init(readTimeout: .seconds(120), maxConnections: 2), logger: store.logger)
            let listener = try await receiver.listen(for: .loopback(), deciding: sessionVerdict())
            let port = listener.port

            var silent: [TestClient.Connection] = []
            for _ in 0..<5 { silent.append(try await TestClient.connect(port: port)) }
            let reply = try await TestClient.exchange(
                TestClient.get("/callback?code=1", host: listener.hostField), port: port)
            #expect(reply.status == 200)
            #expect(await listener.firstCallback() != nil)
            // The listener met only the callback's connection: none was evicted for the five.
            #expect(store.connections("connection opened") == ["0"])
            #expect(store.connections("evicted a connection").isEmpty)
            await listener.close()
            for connection in silent { await connection.close() }
        }

        @Test func aSilentConnectionIsAcceptedAfterTheReadTimeoutAndThenClosed() async throws {
            let store = LogStore()
            let receiver = LoopbackReceiver(configuration: .init(readTimeout: .seconds(1)), logger: store.logger)
            let listener = try await receiver.listen(for: .loopback(), deciding: sessionVerdict())

            // The kernel holds it for about a second, then the listener for its read timeout.
            let silent = try await TestClient.connect(port: listener.port, deadline: .seconds(30))
            let reply = try await silent.finish()
            #expect(!reply.clientTimedOut)
            #expect(reply.bytes.isEmpty)
            #expect(await store.wait { _ in store.connections("timed out") == ["0"] })
            await listener.close()
        }
    #endif

    /// A connection that has sent the start of a request head and stalls. Its deadline only
    /// stops a test that would hang; it is long because the tests that evict such connections
    /// wait for several steps of their own before the listener closes them.
    private static func connectStalled(port: Int) async throws -> TestClient.Connection {
        try await TestClient.connect(port: port, deadline: .seconds(300), sending: Array("GET /".utf8))
    }

    /// A connection that sends a whole head for a wrong path and the start of another, and
    /// keeps its side open after the answer: the listener answers 404 and lets it linger.
    private static func connectLingering(port: Int, host: String) async throws -> TestClient.Connection {
        try await TestClient.connect(
            port: port, deadline: .seconds(300),
            sending: Array((TestClient.get("/favicon.ico", host: host) + "GET /").utf8), keepingOpenAfterAnswer: true)
    }

    @Test func logsNeverContainTheQuery() async throws {
        let store = LogStore()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(store: store) }
        let receiver = LoopbackReceiver(logger: logger)
        let listener = try await receiver.listen(
            for: .loopback(),
            deciding: sessionVerdict { url in url.query?.contains("state=GOODSTATE") == true })
        let port = listener.port
        let host = listener.hostField

        _ = try await TestClient.exchange(TestClient.get("/favicon.ico?LEAK1=x", host: host), port: port)
        _ = try await TestClient.exchange(TestClient.get("/callback?code=LEAK2&state=bad", host: host), port: port)
        _ = try await TestClient.exchange(TestClient.get("/callback?code=LEAK3", host: "evil.example"), port: port)
        _ = try await TestClient.exchange("GET /callback?code=LEAK4 HTTP/1.1\r\nHost: a\u{1}\r\n\r\n", port: port)
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=LEAK5&state=GOODSTATE", host: host), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()

        let lines = store.all
        #expect(!lines.isEmpty)
        #expect(lines.contains { $0.contains("/callback?…") })
        for line in lines {
            #expect(!line.contains("LEAK"), "\(line)")
            #expect(!line.contains("GOODSTATE"), "\(line)")
            #expect(line.hasPrefix("debug") || line.hasPrefix("trace"), "\(line)")
        }
    }
}

@Suite("Loopback listener lifetime")
struct LoopbackListenerLifetimeTests {
    @Test func droppedListenerReleasesItsPort() async throws {
        var listener: (any CallbackListener)? = try await LoopbackReceiver().listen(
            for: .loopback(), deciding: sessionVerdict())
        let port = try #require(listener?.port)
        listener = nil
        // The port is released on the listener's event loop shortly after; poll a bounded
        // number of times.
        var released = false
        for _ in 0..<100 where !released {
            let reply = try? await TestClient.exchange(TestClient.get("/x", host: "127.0.0.1:\(port)"), port: port)
            released = reply == nil || reply?.status == nil
            if !released { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(released)
    }
}
