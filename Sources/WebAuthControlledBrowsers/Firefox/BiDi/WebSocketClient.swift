// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A minimal WebSocket client (RFC 6455) for text messages, on SwiftNIO: enough to speak
/// WebDriver BiDi to a browser on a loopback port.
///
/// Messages arrive on ``messages``, which finishes when the connection closes, whoever closes it.
/// ``write(_:)`` and ``send(_:)`` may be called from any task or thread. Pings are answered, fragmented messages are joined,
/// and client frames are masked as the RFC requires.
final class WebSocketClient: Sendable {
    /// The text messages received, in order. Finishes when the connection closes.
    let messages: AsyncStream<String>
    private let channel: any Channel

    private init(messages: AsyncStream<String>, channel: any Channel) {
        self.messages = messages
        self.channel = channel
    }

    /// Why a connection could not be opened or used.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private enum UpgradeResult: Sendable {
        case upgraded
        case refused
    }

    /// Opens `ws://{host}:{port}{path}`.
    ///
    /// - Parameters:
    ///   - host: An IP address (the client never resolves names).
    ///   - port: The TCP port.
    ///   - path: The resource, such as `/session`.
    ///   - maximumMessageSize: The largest message accepted; a larger one closes the connection.
    ///   - timeout: How long connecting and the upgrade may take together.
    static func connect(
        host: String, port: Int, path: String, maximumMessageSize: Int = 32 << 20, timeout: Duration = .seconds(10)
    ) async throws -> WebSocketClient {
        let (messages, continuation) = AsyncStream.makeStream(of: String.self)
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let connectTimeout = TimeAmount.nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        let channel: any Channel
        let upgrade: EventLoopFuture<UpgradeResult>
        do {
            (channel, upgrade) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(connectTimeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
                            maxFrameSize: maximumMessageSize
                        ) { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandlers(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                        maxAccumulatedFrameSize: maximumMessageSize),
                                    TextMessageHandler(continuation: continuation))
                                return UpgradeResult.upgraded
                            }
                        }
                        var headers = HTTPHeaders()
                        headers.add(name: "Host", value: hostHeader)
                        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                        let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeResult>(
                            upgradeRequestHead: head, upgraders: [upgrader]
                        ) { channel in
                            channel.eventLoop.makeCompletedFuture { UpgradeResult.refused }
                        }
                        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(
                            upgradeConfiguration: configuration)
                        pipeline.leftOverBytesStrategy = .forwardBytes
                        let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                            configuration: pipeline)
                        // A server that accepts the connection but never answers the upgrade is cut off.
                        let deadline = channel.eventLoop.scheduleTask(in: connectTimeout) {
                            channel.close(promise: nil)
                        }
                        upgrade.whenComplete { _ in deadline.cancel() }
                        return (channel, upgrade)
                    }
                }
        } catch {
            continuation.finish()
            throw Failure(description: "cannot connect to \(hostHeader): \(error)")
        }
        let result: UpgradeResult
        do {
            result = try await upgrade.get()
        } catch {
            continuation.finish()
            try? await channel.close()
            throw Failure(description: "the WebSocket upgrade at \(hostHeader)\(path) failed: \(error)")
        }
        switch result {
        case .upgraded:
            return WebSocketClient(messages: messages, channel: channel)
        case .refused:
            continuation.finish()
            try? await channel.close()
            throw Failure(description: "\(hostHeader)\(path) refused the WebSocket upgrade")
        }
    }

    /// Queues one text message and returns at once. Messages leave in the order of the calls
    /// (the channel's event loop runs writes in the order they are handed to it).
    @discardableResult
    func write(_ text: String) -> EventLoopFuture<Void> {
        var buffer = channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        return channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer))
    }

    /// Sends one text message and waits until it is written.
    func send(_ text: String) async throws {
        try await write(text).get()
    }

    /// Whether the connection is still open.
    var isOpen: Bool { channel.isActive }

    /// Sends a close frame and closes the connection. Safe to call more than once.
    func close() async {
        guard channel.isActive else { return }
        let frame = WebSocketFrame(
            fin: true, opcode: .connectionClose, maskKey: .random(),
            data: channel.allocator.buffer(bytes: [0x03, 0xE8]))  // 1000: normal closure
        try? await channel.writeAndFlush(frame)
        try? await channel.close()
    }
}

/// Hands text messages to a stream, answers pings and close frames, and finishes the stream when
/// the connection goes away. Lives on the channel's event loop only.
private final class TextMessageHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let continuation: AsyncStream<String>.Continuation
    private var closing = false

    init(continuation: AsyncStream<String>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            continuation.yield(String(buffer: frame.unmaskedData))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            guard !closing else {
                context.close(promise: nil)
                return
            }
            closing = true
            var payload = frame.unmaskedData
            let code = payload.readSlice(length: 2) ?? context.channel.allocator.buffer(bytes: [0x03, 0xE8])
            let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in bound.value.close(promise: nil) }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        continuation.finish()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish()
        context.close(promise: nil)
    }
}
