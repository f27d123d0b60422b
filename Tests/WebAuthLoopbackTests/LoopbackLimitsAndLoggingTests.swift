import Foundation
import Logging
import Synchronization
import Testing
import WebAuthCore

@testable import WebAuthLoopback

/// Keeps every log line, rendered with its metadata.
/// Every log line the loopback tests capture, with its level and metadata.
final class LogStore: Sendable {
    private let lines = Mutex<[String]>([])

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
    @Test func oldestIdleConnectionIsEvictedAtTheLimit() async throws {
        // Only eviction can close an idle connection here: the listener's read timeout (120 s) is
        // longer than the clients' deadline (60 s). The deadline runs from each connection's
        // start, while this test's own steps may wait for a thread on a loaded machine, so it
        // must leave room for that wait (a 10-second deadline once ran out before the fifth
        // connection was even made).
        let receiver = LoopbackReceiver(configuration: .init(readTimeout: .seconds(120), maxConnections: 4))
        let listener = try await receiver.listen(for: .loopback(), accepting: { _ in true })
        let port = listener.port

        var idle: [TestClient.Connection] = []
        for _ in 0..<4 { idle.append(try await TestClient.connect(port: port, deadline: .seconds(60))) }
        // A fifth connection makes room by closing the oldest idle one.
        let fifth = try await TestClient.connect(port: port, deadline: .seconds(60))
        let oldest = try await idle[0].finish()
        #expect(!oldest.clientTimedOut)
        #expect(oldest.bytes.isEmpty)

        // The browser's request still gets through, evicting the next idle one.
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=1", host: listener.hostField), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()
        for connection in idle.dropFirst() + [fifth] {
            #expect(!(try await connection.finish()).clientTimedOut)
        }
    }

    @Test func answeredConnectionsAreEvictedFirstThenTheOldestWaiting() async throws {
        let store = LogStore()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(store: store) }
        let receiver = LoopbackReceiver(
            configuration: .init(readTimeout: .seconds(120), maxConnections: 3), logger: logger)
        let listener = try await receiver.listen(for: .loopback(), accepting: { _ in true })
        let port = listener.port

        let oldestWaiting = try await TestClient.connect(port: port)  // connection 0
        // Connection 1 is answered and lingers: its client keeps its side open.
        let lingering = try await TestClient.connect(
            port: port, sending: Array(TestClient.get("/favicon.ico", host: listener.hostField).utf8),
            keepingOpenAfterAnswer: true)
        #expect(await store.wait { lines in lines.contains { $0.contains("turned a request away") } })
        let nextWaiting = try await TestClient.connect(port: port)  // connection 2: the limit is reached
        // Each further connection makes room: first the answered one, although connection 0 is
        // older, then the waiting ones, oldest first.
        var newer: [TestClient.Connection] = []
        for _ in 0..<3 { newer.append(try await TestClient.connect(port: port)) }
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
        let listener = try await receiver.listen(for: .loopback(), accepting: { _ in true })
        let port = listener.port

        // Connection 0 is answered and then lingers; connection 1 never sends a byte. The
        // clients' own deadline (60 s) is far beyond the listener's.
        let lingering = try await TestClient.connect(
            port: port, sending: Array(TestClient.get("/favicon.ico", host: listener.hostField).utf8),
            keepingOpenAfterAnswer: true)
        let silent = try await TestClient.connect(port: port)
        let silentReply = try await silent.finish()
        #expect(!silentReply.clientTimedOut)
        #expect(silentReply.bytes.isEmpty)
        #expect(await store.wait { _ in Set(store.connections("timed out")) == ["0", "1"] })
        // A client that lingers learns that the server has closed once it sends again (the
        // timeout is logged after the close).
        try? await lingering.send("x")
        let lingeringReply = try await lingering.finish()
        #expect(!lingeringReply.clientTimedOut)
        #expect(lingeringReply.status == 404)

        // With no connection left, the next one still meets its deadline.
        let late = try await TestClient.connect(port: port)
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

    @Test func logsNeverContainTheQuery() async throws {
        let store = LogStore()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(store: store) }
        let receiver = LoopbackReceiver(logger: logger)
        let listener = try await receiver.listen(
            for: .loopback(),
            accepting: { url in url.query?.contains("state=GOODSTATE") == true })
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
            for: .loopback(), accepting: { _ in true })
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
