// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Testing
import WebAuthCore
import WebAuthPlatform
import WebAuthTestSupport

@testable import WebAuthLoopback

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
            #expect(await eventually { store.connections("timed out") == ["0"] })
            await listener.close()
        }
    #endif

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
        // The port is released on the listener's event loop shortly after.
        #expect(
            await eventually {
                let reply = try? await TestClient.exchange(
                    TestClient.get("/x", host: "127.0.0.1:\(port)"), port: port)
                return reply == nil || reply?.status == nil
            })
    }
}
