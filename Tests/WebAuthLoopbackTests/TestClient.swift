// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import WebAuthCore
import WebAuthTestSupport

/// What a raw HTTP exchange produced.
struct RawReply: Sendable {
    /// Every byte received before the connection closed.
    var bytes: [UInt8]
    /// Whether the client gave up waiting (the server did not close in time).
    var clientTimedOut: Bool

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The status code, if a status line arrived.
    var status: Int? {
        let line = text.prefix { $0 != "\r" }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(parts[1])
    }

    /// The header fields, by lower-cased name.
    var headers: [String: String] {
        guard let end = text.range(of: "\r\n\r\n") else { return [:] }
        var fields: [String: String] = [:]
        for line in text[..<end.lowerBound].components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The body.
    var body: String {
        guard let end = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[end.upperBound...])
    }
}

/// Collects what a connection receives, and reports it when the connection closes or after a
/// deadline (closing the connection itself then).
private final class CollectingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<RawReply>
    private let deadline: TimeAmount
    private let firstBytes: [UInt8]
    private var reply = RawReply(bytes: [], clientTimedOut: false)
    private var timer: Scheduled<Void>?

    init(promise: EventLoopPromise<RawReply>, deadline: TimeAmount, firstBytes: [UInt8]) {
        self.promise = promise
        self.deadline = deadline
        self.firstBytes = firstBytes
    }

    /// Sends the first bytes as soon as the connection is up, on the event loop, so that a busy
    /// test process cannot delay them past the server's read timeout.
    func channelActive(context: ChannelHandlerContext) {
        if !firstBytes.isEmpty {
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: firstBytes)), promise: nil)
        }
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) { [weak self] in
            self?.reply.clientTimedOut = true
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reply.bytes += unwrapInboundIn(data).readableBytesView
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        promise.succeed(reply)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.succeed(reply)  // no-op when already succeeded
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

enum TestClient {
    static let group = MultiThreadedEventLoopGroup.singleton

    /// An open connection and the reply it will produce when it closes.
    struct Connection: Sendable {
        let channel: any Channel
        let reply: EventLoopFuture<RawReply>

        func send(_ text: String) async throws {
            try await send(Array(text.utf8))
        }

        func send(_ bytes: [UInt8]) async throws {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        }

        /// Waits for the server to close (or the deadline).
        func finish() async throws -> RawReply {
            try await reply.get()
        }

        func close() async {
            try? await channel.close()
        }
    }

    /// Opens a connection to `host`:`port` and sends `firstBytes` at once; the reply completes
    /// when it closes or after `deadline`. The deadline only stops a test that would hang: every
    /// test expects the listener to close first, so it is long enough for a loaded machine.
    /// With `keepingOpenAfterAnswer`, the client does not close its side when the server has
    /// finished sending, as a client that lingers would not.
    static func connect(
        host: String = "127.0.0.1", port: Int, deadline: Duration = .seconds(60), sending firstBytes: [UInt8] = [],
        keepingOpenAfterAnswer: Bool = false
    ) async throws -> Connection {
        let loop = group.next()
        let promise = loop.makePromise(of: RawReply.self)
        let channel = try await ClientBootstrap(group: loop)
            .connectTimeout(.seconds(30))
            .channelOption(.allowRemoteHalfClosure, value: keepingOpenAfterAnswer)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        CollectingHandler(promise: promise, deadline: TimeAmount(deadline), firstBytes: firstBytes))
                }
            }
            .connect(to: SocketAddress(ipAddress: host, port: port))
            .get()
        return Connection(channel: channel, reply: promise.futureResult)
    }

    /// Sends `text` and returns everything received until the server closes.
    static func exchange(
        _ text: String, host: String = "127.0.0.1", port: Int, deadline: Duration = .seconds(60)
    ) async throws -> RawReply {
        try await exchange(Array(text.utf8), host: host, port: port, deadline: deadline)
    }

    /// Sends `bytes` and returns everything received until the server closes.
    static func exchange(
        _ bytes: [UInt8], host: String = "127.0.0.1", port: Int, deadline: Duration = .seconds(60)
    ) async throws -> RawReply {
        try await connect(host: host, port: port, deadline: deadline, sending: bytes).finish()
    }

    /// A `GET` request for `target` with the given `Host` field (none when `nil`).
    static func get(_ target: String, host: String?, method: String = "GET", extra: String = "") -> String {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if let host { text += "Host: \(host)\r\n" }
        text += "User-Agent: WebAuthLoopbackTests\r\nAccept: text/html\r\n\(extra)\r\n"
        return text
    }
}

extension CallbackListener {
    /// The bound port.
    var port: Int { callback.loopbackEndpoint?.port ?? -1 }

    /// `127.0.0.1:PORT` or `[::1]:PORT`.
    var hostField: String { "\(callback.loopbackEndpoint?.host.uriHost ?? "?"):\(port)" }

    /// The URL of the first callback on ``callbacks``, or `nil` if none arrives within `timeout`.
    func firstCallback(within timeout: Duration = .seconds(60)) async -> URL? {
        await firstElement(of: callbacks, within: timeout)?.url
    }
}

/// A session's verdict, for a listener's tests: it accepts what `test` accepts, with the
/// callback read as a session reads it (the listener's router has matched its path and `Host`).
func sessionVerdict(
    accepting test: @escaping @Sendable (URL) -> Bool = { _ in true }
) -> @Sendable (URL) -> CallbackVerdict {
    { url in
        guard test(url) else { return .refused(.callbackMismatch("the test's session did not accept the callback")) }
        var redirect = URLComponents(url: url, resolvingAgainstBaseURL: false)
        redirect?.query = nil
        redirect?.fragment = nil
        return .accepted(ReceivedCallback(url: url, redirectURI: redirect?.url ?? url))
    }
}
