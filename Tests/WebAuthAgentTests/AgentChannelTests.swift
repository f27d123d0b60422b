// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOEmbedded
import Testing
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthDesktop
import WebAuthPlatform
import WebAuthTokenStore

/// The agent's server handler on an in-memory channel, with the socket server's framing and
/// deadline in front of it as on a socket: a request line in, the typed answer out; bad, other
/// versions', oversized and slow lines; the event loop's clock moved by the test. No socket,
/// no real time.
@Suite("The agent's server handler, on a channel")
struct AgentChannelTests {
    static let asker = AgentServiceTests.asker

    /// A connection to `service` through `door`, as the agent's server serves one: the line
    /// framing and the first line's deadline (``AgentServer/limits``), then
    /// ``AgentServer/serve(_:asker:door:service:)`` in a task.
    static func connect(
        to service: AgentService, through door: AgentDoor = .full
    ) async throws -> (channel: NIOAsyncTestingChannel, serving: Task<Void, Never>) {
        let channel = NIOAsyncTestingChannel()
        let limits = AgentServer.limits
        let (seconds, _) = limits.firstLineTimeout.components
        let connection = try await channel.testingEventLoop.executeInContext {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(ByteToMessageHandler(LineFrameDecoder(limit: limits.maximumLineLength)))
            try pipeline.addHandler(FirstLineDeadline(timeout: .seconds(seconds)))
            return try UnixSocketServer.Connection(wrappingChannelSynchronously: channel)
        }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        let serving = Task { await AgentServer.serve(connection, asker: asker, door: door, service: service) }
        return (channel, serving)
    }

    /// The one answer written on `channel`, read as a client reads it.
    static func answer(on channel: NIOAsyncTestingChannel) async throws -> AgentAnswer {
        let written = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        let bytes = Array(written.readableBytesView)
        #expect(bytes.last == UInt8(ascii: "\n"), "one line")
        #expect(bytes.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil, "one line")
        return try #require(AgentAnswer(line: Array(bytes.dropLast())))
    }

    @Test func aTokenRequestLineInGivesTheHeldTokenOutAndTheConnectionCloses() async throws {
        let service = try await AgentServiceTests.service()
        let (channel, serving) = try await Self.connect(to: service)
        try await channel.writeInbound(ByteBuffer(string: #"{"op":"token","profile":"work","v":1}"# + "\n"))
        let answer = try await Self.answer(on: channel)
        #expect(answer.ok)
        #expect(answer.token?.accessToken == "at-1")
        await serving.value
        #expect(!channel.isActive, "one request, one answer, then closed")
        // The line was read once, and remembered: the event loop answers it next time.
        #expect(service.immediateAnswer(to: Array(#"{"op":"token","profile":"work","v":1}"#.utf8)) != nil)
    }

    @Test(arguments: [
        ("not json", AgentAnswer.Code.badRequest),
        (#"{"v":1,"op":"warp"}"#, .badRequest),
        (#"{"v":2,"op":"token","profile":"work"}"#, .version),
        (#"{"v":7}"#, .version),
        (#"{"v":1,"op":"token","profile":"../work"}"#, .badRequest),
        (#"{"v":1,"op":"token","profile":"nobody"}"#, .notHeld),
    ])
    func aBadLineGetsATypedFailure(line: String, code: AgentAnswer.Code) async throws {
        let service = try await AgentServiceTests.service()
        let (channel, serving) = try await Self.connect(to: service)
        try await channel.writeInbound(ByteBuffer(string: line + "\n"))
        let answer = try await Self.answer(on: channel)
        #expect(!answer.ok)
        #expect(answer.error?.code == code, "\(line): \(answer)")
        await serving.value
        #expect(await service.holds("work"))
    }

    @Test func anOversizedLineIsRefusedWithoutBeingRead() async throws {
        let service = try await AgentServiceTests.service()
        let (channel, serving) = try await Self.connect(to: service)
        let long =
            #"{"v":1,"op":"token","profile":""# + String(repeating: "a", count: AgentProtocol.maximumRequestLength)
        try await channel.writeInbound(ByteBuffer(string: long))
        let answer = try await Self.answer(on: channel)
        #expect(answer.error?.code == .badRequest)
        #expect(answer.error?.message.contains("longer than") == true, "\(answer)")
        await serving.value
    }

    @Test func aSlowLineIsServedWithinTheDeadlineAndClosedUnansweredAfterIt() async throws {
        let service = try await AgentServiceTests.service()
        let (slow, slowServing) = try await Self.connect(to: service)
        try await slow.writeInbound(ByteBuffer(string: #"{"op":"token","#))
        await slow.testingEventLoop.advanceTime(by: .milliseconds(4999))
        #expect(slow.isActive, "within the request's 5 s")
        try await slow.writeInbound(ByteBuffer(string: #""profile":"work","v":1}"# + "\n"))
        #expect(try await Self.answer(on: slow).token?.accessToken == "at-1")
        await slowServing.value

        let (late, lateServing) = try await Self.connect(to: service)
        try await late.writeInbound(ByteBuffer(string: #"{"op":"token","profile":"work","v":1}"#))
        await late.testingEventLoop.advanceTime(by: .seconds(5))
        await lateServing.value
        #expect(!late.isActive, "closed at the deadline")
        #expect(try await late.readOutbound(as: ByteBuffer.self) == nil, "and nothing answered")
    }

    @Test func theForwardingDoorRefusesManagementOnTheChannelToo() async throws {
        let service = try await AgentServiceTests.service()
        for line in [#"{"op":"status","v":1}"#, #"{"op":"stop","v":1}"#, #"{"op":"remove","profile":"work","v":1}"#] {
            let (channel, serving) = try await Self.connect(to: service, through: .forwarding)
            try await channel.writeInbound(ByteBuffer(string: line + "\n"))
            let answer = try await Self.answer(on: channel)
            #expect(answer.error?.code == .notServedHere, "\(line): \(answer)")
            #expect(answer.status == nil)
            await serving.value
        }
        #expect(await service.holds("work"))
    }

    @Test func aStopIsAnsweredFirstAndThenStopsTheAgent() async throws {
        let service = try await AgentServiceTests.service()
        let stopped = Locked(false)
        await service.onStop { stopped.withLock { $0 = true } }
        let (channel, serving) = try await Self.connect(to: service)
        try await channel.writeInbound(ByteBuffer(string: #"{"op":"stop","v":1}"# + "\n"))
        #expect(try await Self.answer(on: channel).ok)
        await serving.value
        #expect(stopped.withLock { $0 })
    }
}
