// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing
import WebAuthPlatform
import WebAuthTestSupport

@testable import WebAuthControlledBrowsers

/// The WebDriver BiDi client and its WebSocket client against a scripted WebSocket server
/// (SwiftNIO's own server side): ids, out-of-order answers, errors, events, large messages,
/// timeouts and a connection that drops.
@Suite("BiDi connection")
struct BiDiConnectionTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func answersFindTheirCommandsWhateverTheOrder() async throws {
        try await ScriptedBiDiServer.with { server in
            let connection = try await server.connect()
            async let held = connection.send("hold", ["value": "first"])
            #expect(await server.waitForCommand("hold"), "the held command reached the server first")
            let released = try await connection.send("release", ["value": "second"])
            #expect(released == ["value": "second"])
            #expect(try await held == ["value": "first"])
            await connection.close()
        }
    }

    @Test func anErrorAnswerBecomesACommandError() async throws {
        try await ScriptedBiDiServer.with { server in
            let connection = try await server.connect()
            do {
                try await connection.send("network.addIntercept", ["fail": true])
                Issue.record("no error")
            } catch let error as BiDiConnection.CommandError {
                #expect(error.isUnknownCommand)
                #expect(error.method == "network.addIntercept")
                #expect(error.message == "scripted failure")
            }
            await connection.close()
        }
    }

    @Test func eventsArriveInOrderAlongsideAnswers() async throws {
        try await ScriptedBiDiServer.with { server in
            let connection = try await server.connect()
            try await connection.send("events", ["count": 3])
            var iterator = connection.events.makeAsyncIterator()
            for index in 0..<3 {
                let event = try #require(await iterator.next())
                #expect(event.method == "test.event")
                #expect(event.params["index"]?.intValue == index)
            }
            await connection.close()
            #expect(await iterator.next() == nil, "the events finish with the connection")
        }
    }

    @Test func messagesLargerThanOneFrameDefaultArriveWhole() async throws {
        try await ScriptedBiDiServer.with { server in
            let connection = try await server.connect()
            let big = String(repeating: "x", count: 200_000)
            #expect(try await connection.send("echo", ["big": .string(big)])["big"]?.stringValue?.count == big.count)
            await connection.close()
        }
    }

    @Test func aCommandWithoutAnswerTimesOut() async throws {
        try await ScriptedBiDiServer.with { server in
            let connection = try await server.connect()
            let started = ContinuousClock.now
            do {
                try await connection.send("ignore", [:], timeout: .milliseconds(200))
                Issue.record("answered")
            } catch let error as BiDiConnection.CommandError {
                #expect(error.code == "timeout")
            }
            // Cut off by the 1 s timeout, not left waiting; wide for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(30))
            await connection.close()
        }
    }

    @Test func aDroppedConnectionFailsWaitingCommandsAndFinishesEvents() async throws {
        try await ScriptedBiDiServer.with { server in
            let connection = try await server.connect()
            async let pending: JSONValue = connection.send("hold", [:], timeout: .seconds(30))
            #expect(await server.waitForCommand("hold"), "the command is waiting before the hangup")
            connection.post("hangup", [:])
            do {
                _ = try await pending
                Issue.record("answered")
            } catch let error as BiDiConnection.CommandError {
                #expect(error.code == "connection closed")
            }
            for await _ in connection.events {}
            #expect(!connection.isOpen)
            do {
                try await connection.send("echo", [:])
                Issue.record("sent on a closed connection")
            } catch let error as BiDiConnection.CommandError {
                #expect(error.code == "connection closed")
            }
        }
    }

    @Test func aServerThatNeverUpgradesIsCutOff() async throws {
        // The scripted server does not answer a request it will not upgrade.
        try await ScriptedBiDiServer.with { server in
            let started = ContinuousClock.now
            await #expect(throws: WebSocketClient.Failure.self) {
                _ = try await WebSocketClient.connect(
                    host: "127.0.0.1", port: server.port, path: "/not-bidi", timeout: .seconds(1))
            }
            // Cut off by the 1 s timeout, not left waiting; wide for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }
}

/// A WebSocket server on 127.0.0.1 that answers BiDi-shaped commands by a script:
/// `echo` answers its params, `hold` waits for the next `release` (answered first), params
/// `fail` answers `unknown command`, `events` sends `count` events first, `ignore` never answers,
/// `hangup` closes the connection. Upgrades only `/session`.
final class ScriptedBiDiServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let received: CommandLog

    /// The methods of the commands received, in order, over every connection.
    final class CommandLog: Sendable {
        let methods = Locked<[String]>([])
    }

    private init(port: Int, channel: any Channel, received: CommandLog) {
        self.port = port
        self.channel = channel
        self.received = received
    }

    /// Whether a command `method` has reached the server (waiting for it, up to a minute).
    func waitForCommand(_ method: String) async -> Bool {
        await eventually { self.received.methods.withLock { $0.contains(method) } }
    }

    static func with(_ body: (ScriptedBiDiServer) async throws -> Void) async throws {
        let received = CommandLog()
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: 1 << 22,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeSucceededFuture(head.uri == "/session" ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ScriptHandler(received: received))
                }
            })
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedBiDiServer(port: channel.localAddress?.port ?? 0, channel: channel, received: received)
        do {
            try await body(server)
        } catch {
            try? await channel.close()
            throw error
        }
        try? await channel.close()
    }

    func connect() async throws -> BiDiConnection {
        let socket = try await WebSocketClient.connect(host: "127.0.0.1", port: port, path: "/session")
        return BiDiConnection(socket: socket, logger: BiDiConnectionTests.logger)
    }

    /// Plays the script for one connection, on its event loop.
    private final class ScriptHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        private var held: [JSONValue] = []
        private let received: CommandLog

        init(received: CommandLog) {
            self.received = received
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = unwrapInboundIn(data)
            guard frame.opcode == .text,
                let command = JSONValue.parse(Data(String(buffer: frame.unmaskedData).utf8)),
                let id = command["id"], let method = command["method"]?.stringValue
            else { return }
            received.methods.withLock { $0.append(method) }
            let params = command["params"] ?? [:]
            func answer(_ id: JSONValue, _ result: JSONValue) {
                send(["type": "success", "id": id, "result": result], context: context)
            }
            if params["fail"] != nil {
                send(
                    ["type": "error", "id": id, "error": "unknown command", "message": "scripted failure"],
                    context: context)
                return
            }
            switch method {
            case "echo": answer(id, params)
            case "hold": held.append(command)
            case "release":
                answer(id, params)
                for command in held.reversed() { answer(command["id"]!, command["params"] ?? [:]) }
                held = []
            case "events":
                for index in 0..<(params["count"]?.intValue ?? 0) {
                    send(
                        ["type": "event", "method": "test.event", "params": ["index": .number(Double(index))]],
                        context: context)
                }
                answer(id, [:])
            case "hangup": context.close(promise: nil)
            default: break  // "ignore"
            }
        }

        private func send(_ message: JSONValue, context: ChannelHandlerContext) {
            let buffer = context.channel.allocator.buffer(bytes: message.serialized)
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
        }
    }
}
