import Foundation
import Logging
import Synchronization
import Testing
import WebAuthCore

@testable import WebAuthLoopback

/// Keeps every log line, rendered with its metadata.
private final class LogStore: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
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
