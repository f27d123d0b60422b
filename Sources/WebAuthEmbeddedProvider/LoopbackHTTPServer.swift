// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import WebAuthPlatform

/// A small general HTTP/1.1 server on `127.0.0.1`, at a port the system picks, for tests that
/// need a real server whose every answer they write: an async handler gets each request
/// (method, path, query, header fields, body) and returns a ``ServerResponse``.
///
/// Every request is recorded in arrival order before the handler runs, so a test can assert
/// on what a client called — and what it did not. Each connection carries one request
/// (`Connection: close`). A response can be delayed; other connections are served meanwhile.
///
/// ```swift
/// let server = try await LoopbackHTTPServer.start { request in
///     request.path == "/token" ? .json(#"{"access_token":"a","token_type":"Bearer"}"#) : .text("no", status: 404)
/// }
/// defer { Task { await server.shutdown() } }   // or use withServer(limits:handler:_:)
/// // … point a client at server.baseURL …
/// #expect(await server.requests.map(\.path) == ["/token"])
/// ```
package final class LoopbackHTTPServer: Sendable {
    /// Answers one request.
    package typealias Handler = @Sendable (ServerRequest) async -> ServerResponse

    /// Waits out a response's delay; throws when the server shuts down meanwhile. `Task.sleep`
    /// unless a test steps time by itself.
    package typealias Sleep = @Sendable (Duration) async throws -> Void

    /// Bounds on what the server accepts and how long it keeps a connection.
    package struct Limits: Sendable, Hashable {
        /// The largest request body read; larger ones are answered `413` without calling the
        /// handler. Default 1 MiB.
        package var maximumBodySize: Int
        /// How long a connection may stay open, response delay included; then it is closed.
        /// Default 60 seconds.
        package var connectionLifetime: Duration

        /// Creates limits.
        package init(maximumBodySize: Int = 1 << 20, connectionLifetime: Duration = .seconds(60)) {
            self.maximumBodySize = maximumBodySize
            self.connectionLifetime = connectionLifetime
        }
    }

    /// `http://127.0.0.1:{port}` (no trailing slash).
    package let baseURL: URL
    /// The port the server listens on.
    package let port: Int

    private let log: ServerRequestLog
    private let listener: any Channel
    private let acceptLoop: Task<Void, Never>

    private init(baseURL: URL, port: Int, log: ServerRequestLog, listener: any Channel, acceptLoop: Task<Void, Never>) {
        self.baseURL = baseURL
        self.port = port
        self.log = log
        self.listener = listener
        self.acceptLoop = acceptLoop
    }

    /// Starts a server on `127.0.0.1` at a port the system picks.
    ///
    /// Call ``shutdown()`` when done, or use ``withServer(limits:isolation:handler:_:)`` instead.
    package static func start(
        limits: Limits = Limits(), sleep: @escaping Sleep = { try await Task.sleep(for: $0) },
        handler: @escaping Handler
    ) async throws -> LoopbackHTTPServer {
        let lifetime = TimeAmount.nanoseconds(limits.connectionLifetime.nanoseconds)
        let open = OpenChannels()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Nothing is read until the connection's task has wrapped the channel (see serve).
            .childChannelOption(.autoRead, value: false)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // A safety net against connections a client opens and never finishes,
                    // cancelled when the connection closes: it holds the channel until it runs,
                    // and a busy server would otherwise keep every connection of the last
                    // `connectionLifetime` in memory.
                    let limit = channel.eventLoop.scheduleTask(in: lifetime) { channel.close(promise: nil) }
                    open.insert(channel)
                    channel.closeFuture.whenComplete { _ in
                        limit.cancel()
                        open.remove(channel)
                    }
                    // The plain channel, not a NIOAsyncChannel: one made here and accepted just
                    // as the listener closes is dropped before it is served, and SwiftNIO traps
                    // on a NIOAsyncChannel dropped before `executeThenClose` (swift-nio#2637).
                    return channel
                }
            }
        guard let port = server.channel.localAddress?.port,
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            try? await server.channel.close()
            throw LoopbackHTTPServerError(description: "the listening socket has no port")
        }
        let log = ServerRequestLog()
        let acceptLoop = Task<Void, Never> {
            // Ends when shutdown() closes the listener; the group then cancels the connections
            // still open (delayed responses included) and waits for them. The loop itself is
            // never cancelled, so it serves every connection that reached it before the close;
            // the few accepted as the listener closed never reach it, and are closed below.
            await withDiscardingTaskGroup { group in
                try? await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask {
                            await serve(connection, limits: limits, sleep: sleep, log: log, handler: handler)
                        }
                    }
                }
                group.cancelAll()
            }
            open.closeAll()
        }
        return LoopbackHTTPServer(
            baseURL: baseURL, port: port, log: log, listener: server.channel, acceptLoop: acceptLoop)
    }

    /// Runs `body` with a started server and shuts the server down afterwards, however `body` ends.
    package static func withServer<Result>(
        limits: Limits = Limits(),
        isolation: isolated (any Actor)? = #isolation,
        handler: @escaping Handler,
        _ body: (LoopbackHTTPServer) async throws -> Result
    ) async throws -> Result {
        try await withShutdown(
            of: try await start(limits: limits, handler: handler), shutdown: { await $0.shutdown() }, body)
    }

    /// `baseURL` with `path` (which starts with `/`) appended.
    package func url(_ path: String) -> URL {
        guard let url = URL(string: baseURL.absoluteString + path) else {
            preconditionFailure("not a URL path: \(path)")
        }
        return url
    }

    /// Every request received so far, oldest first, with the status it was answered with once
    /// answered. Requests the server rejected before the handler (a malformed head, a body over
    /// the limit) are included when their head could be read.
    package var requests: [ServerRequest] {
        get async { await log.requests }
    }

    /// The paths of ``requests``, oldest first: the short form for "which endpoints were called".
    package var requestPaths: [String] {
        get async { await log.requests.map(\.path) }
    }

    /// The requests to `path` received so far, oldest first.
    package func requests(to path: String) async -> [ServerRequest] {
        await log.requests.filter { $0.path == path }
    }

    /// Forgets the requests received so far.
    package func clearRequests() async {
        await log.clear()
    }

    /// Waits until `count` requests to `path` have arrived or `timeout` has passed, and returns
    /// the requests to `path` received by then (possibly fewer than `count`).
    package func waitForRequests(
        to path: String, count: Int = 1, timeout: Duration = .seconds(10)
    ) async -> [ServerRequest] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = await requests(to: path)
            if matching.count >= count || ContinuousClock.now >= deadline || Task.isCancelled { return matching }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops listening, closes open connections (cancelling delayed responses) and waits until
    /// all of it is done. Safe to call more than once.
    package func shutdown() async {
        try? await listener.close()
        await acceptLoop.value
    }

    /// Reads one request from `channel`, records it, answers it and closes.
    private static func serve(
        _ channel: any Channel, limits: Limits, sleep: Sleep, log: ServerRequestLog, handler: Handler
    ) async {
        // Wrapped here, by the task that serves it, so that it is always closed through
        // `executeThenClose`; then reading starts.
        let wrapped = try? await channel.eventLoop.submit {
            let connection = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            try channel.syncOptions?.setOption(.autoRead, value: true)
            return connection
        }.get()
        guard let connection = wrapped else {
            try? await channel.close()
            return
        }
        try? await connection.executeThenClose { inbound, outbound in
            var received = ByteBuffer()
            var chunks = inbound.makeAsyncIterator()
            var parsedHead: RequestHead?
            var headLength = 0
            while parsedHead == nil {
                guard let chunk = try await chunks.next() else { return }
                received.writeImmutableBuffer(chunk)
                switch RequestHead.parse(received) {
                case .incomplete:
                    guard received.readableBytes > RequestHead.maximumSize else { continue }
                    try await outbound.write(ServerResponse(status: 431).serialized())
                    return
                case .invalid:
                    try await outbound.write(ServerResponse.text("malformed request\n", status: 400).serialized())
                    return
                case .complete(let head):
                    parsedHead = head
                    headLength = RequestHead.length(in: received) ?? received.readableBytes
                }
            }
            guard let head = parsedHead else { return }
            received.moveReaderIndex(forwardBy: headLength)

            let framing = RequestBody(head: head)
            // Ask for the body only when it may be accepted; an announced oversize gets 413 at once.
            let announcedTooLarge =
                if case .length(let length) = framing { length > limits.maximumBodySize } else { false }
            if head.header("Expect")?.lowercased() == "100-continue", framing != .none, !announcedTooLarge {
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n"))
            }
            var body: [UInt8] = []
            reading: while true {
                switch framing.read(received, limit: limits.maximumBodySize) {
                case .complete(let bytes):
                    body = bytes
                    break reading
                case .incomplete:
                    guard let chunk = try await chunks.next() else { return }
                    received.writeImmutableBuffer(chunk)
                case .tooLarge:
                    let index = await log.append(request(from: head, body: []))
                    let response = ServerResponse.text("request body too large\n", status: 413)
                    await log.setStatus(response.status, at: index)
                    try await outbound.write(response.serialized())
                    // Read (and drop) what the client still sends, up to a bound, so that closing
                    // does not reset the connection before the client has read the answer.
                    var drained = received.readableBytes
                    while drained < drainLimit, let chunk = try await chunks.next() {
                        drained += chunk.readableBytes
                    }
                    return
                case .invalid:
                    let index = await log.append(request(from: head, body: []))
                    let response = ServerResponse.text("malformed request body\n", status: 400)
                    await log.setStatus(response.status, at: index)
                    try await outbound.write(response.serialized())
                    return
                }
            }

            let request = request(from: head, body: body)
            let index = await log.append(request)
            let response = await handler(request)
            // Recorded before answering, so a test that saw the answer also sees the status.
            await log.setStatus(response.status, at: index)
            if response.delay > .zero {
                // Throws when the server shuts down; the connection then closes unanswered.
                try await sleep(response.delay)
            }
            try await outbound.write(response.serialized())
        }
    }

    /// How much of an oversized body the server reads and drops before closing.
    private static let drainLimit = 64 << 20

    private static func request(from head: RequestHead, body: [UInt8]) -> ServerRequest {
        ServerRequest(method: head.method, target: head.target, headerFields: head.headerFields, body: body)
    }
}

/// An error starting a ``LoopbackHTTPServer``.
package struct LoopbackHTTPServerError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String

    /// Creates an error.
    package init(description: String) { self.description = description }
}

/// The requests a server received, shared between its connections.
private actor ServerRequestLog {
    private(set) var requests: [ServerRequest] = []
    /// How many requests ``clear()`` dropped, so indexes handed out earlier stay meaningful.
    private var dropped = 0

    /// Appends `request` and returns its index for ``setStatus(_:at:)``.
    func append(_ request: ServerRequest) -> Int {
        requests.append(request)
        return dropped + requests.count - 1
    }

    func setStatus(_ status: Int, at index: Int) {
        let position = index - dropped
        guard requests.indices.contains(position) else { return }
        requests[position].responseStatus = status
    }

    func clear() {
        dropped += requests.count
        requests.removeAll()
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product + attoseconds / 1_000_000_000
    }
}

/// The connections a server has accepted and not yet closed, so that those it never served can
/// be closed when it stops.
private final class OpenChannels: Sendable {
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])

    func insert(_ channel: any Channel) { channels.withLock { $0[ObjectIdentifier(channel)] = channel } }
    func remove(_ channel: any Channel) { _ = channels.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) } }

    /// Closes every connection still open.
    func closeAll() {
        for channel in channels.withLock({ Array($0.values) }) { channel.close(promise: nil) }
    }
}
