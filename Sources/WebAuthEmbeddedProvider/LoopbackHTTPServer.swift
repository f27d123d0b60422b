// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
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
/// HTTP is SwiftNIO's HTTP/1 codec (`configureHTTPServerPipeline`), bounded here: a head over
/// ``maximumHeadSize`` is answered `431`, a body over ``Limits/maximumBodySize`` `413`, anything
/// else the decoder refuses `400`, all before the handler runs.
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
    private let accepted: Locked<Int>
    private let listener: any Channel
    private let acceptLoop: Task<Void, Never>

    private init(
        baseURL: URL, port: Int, log: ServerRequestLog, accepted: Locked<Int>, listener: any Channel,
        acceptLoop: Task<Void, Never>
    ) {
        self.baseURL = baseURL
        self.port = port
        self.log = log
        self.accepted = accepted
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
        let accepted = Locked(0)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptCounter(accepted))
                }
            }
            // Nothing is read until the connection's task has wrapped the channel (see serve).
            .childChannelOption(.autoRead, value: false)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configureHTTP(channel)
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
            baseURL: baseURL, port: port, log: log, accepted: accepted, listener: server.channel,
            acceptLoop: acceptLoop)
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

    /// How many connections the server has accepted so far, whether or not they sent a request
    /// (a TLS handshake, nothing at all). Counted in the order the connections are accepted:
    /// once a request made after others is answered, they have all been counted.
    package var connectionCount: Int { accepted.withLock { $0 } }

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

    /// Stops listening at once and leaves the open connections to close soon after, for a
    /// caller that cannot wait (a `defer`); ``shutdown()`` waits for all of it.
    package func close() {
        listener.close(promise: nil)
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
            let connection = try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                wrappingChannelSynchronously: channel)
            try channel.syncOptions?.setOption(.autoRead, value: true)
            return connection
        }.get()
        guard let connection = wrapped else {
            try? await channel.close()
            return
        }
        // A malformed head, one over the bound, or a malformed body ends the stream with the
        // decoder's error, which `ProtocolErrorAnswer` has already answered.
        try? await connection.executeThenClose { inbound, outbound in
            var parts = inbound.makeAsyncIterator()
            guard case .head(let head)? = try await parts.next() else { return }
            guard head.uri.hasPrefix("/"), let fields = HTTPFields(head.headers) else {
                // Absolute-form, authority-form and asterisk-form targets: a test server is
                // never a proxy, and the request log keeps paths.
                try await outbound.write(contentsOf: ServerResponse.text("malformed request\n", status: 400).parts)
                return
            }
            let announced = head.headers["content-length"].first.flatMap { Int($0) }
            let announcesBody = announced != nil || head.headers.contains(name: "transfer-encoding")
            // Ask for the body only when it may be accepted; an announced oversize gets 413 at once.
            let announcedTooLarge = (announced ?? 0) > limits.maximumBodySize
            if head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }),
                announcesBody, !announcedTooLarge
            {
                try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: .continue)))
            }
            var body: [UInt8] = []
            var tooLarge = announcedTooLarge
            do {
                reading: while !tooLarge {
                    switch try await parts.next() {
                    case .body(let chunk)?:
                        tooLarge = body.count + chunk.readableBytes > limits.maximumBodySize
                        if !tooLarge { body += chunk.readableBytesView }
                    case .end?:
                        break reading
                    case .head?, nil:
                        // The client closed before the body ended.
                        return
                    }
                }
            } catch {
                let index = await log.append(ServerRequest(head, fields: fields))
                await log.setStatus(400, at: index)
                throw error
            }
            if tooLarge {
                let index = await log.append(ServerRequest(head, fields: fields))
                let response = ServerResponse.text("request body too large\n", status: 413)
                await log.setStatus(response.status, at: index)
                try await outbound.write(contentsOf: response.parts)
                // Read (and drop) what the client still sends, up to a bound, so that closing
                // does not reset the connection before the client has read the answer.
                var drained = 0
                draining: while drained < drainLimit, let part = try await parts.next() {
                    switch part {
                    case .body(let chunk): drained += chunk.readableBytes
                    case .head, .end: break draining
                    }
                }
                return
            }

            let request = ServerRequest(head, fields: fields, body: body)
            let index = await log.append(request)
            let response = await handler(request)
            // Recorded before answering, so a test that saw the answer also sees the status.
            await log.setStatus(response.status, at: index)
            if response.delay > .zero {
                // Throws when the server shuts down; the connection then closes unanswered.
                try await sleep(response.delay)
            }
            if let raw = response.rawBytes {
                try await writeUnframed(raw, on: channel)
            } else if head.method == .HEAD {
                // The encoder refuses a body after a HEAD request.
                try await outbound.write(contentsOf: [.head(response.head), .end(nil)])
            } else {
                try await outbound.write(contentsOf: response.parts)
            }
        }
    }

    /// Writes `bytes` to the socket as they are, below the HTTP encoder: a hostile answer (a
    /// truncated body, a wrong length, nothing at all) is not an HTTP message the encoder
    /// could frame.
    private static func writeUnframed(_ bytes: [UInt8], on channel: any Channel) async throws {
        try await channel.eventLoop.flatSubmit {
            do {
                // Writing from the encoder's own context passes only the handlers before it: the
                // socket.
                let encoder = try channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
                let written = channel.eventLoop.makePromise(of: Void.self)
                encoder.writeAndFlush(NIOAny(IOData.byteBuffer(ByteBuffer(bytes: bytes))), promise: written)
                return written.futureResult
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }.get()
    }

    /// How much of an oversized body the server reads and drops before closing.
    private static let drainLimit = 64 << 20

    /// SwiftNIO's HTTP/1 server pipeline as this server uses it: the decoder bounded as
    /// ``maximumHeadSize`` says, the encoder writing the framing fields each response carries
    /// itself (so every answer is the bytes its ``ServerResponse`` describes), and
    /// `ProtocolErrorAnswer` answering what the decoder refuses. No pipelining: one request a
    /// connection.
    private static func configureHTTP(_ channel: any Channel) throws {
        var encoder = HTTPResponseEncoder.Configuration()
        encoder.automaticallySetFramingHeaders = false
        var decoder = NIOHTTPDecoderLimitConfiguration()
        decoder.maxHeaderListSize = maximumHeadSize
        decoder.maxHeaderFieldSize = maximumHeadSize
        decoder.maxHeaderFieldCount = maximumHeaderFieldCount
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
            withEncoderConfiguration: encoder, withDecoderLimitConfiguration: decoder)
        try channel.pipeline.syncOperations.addHandler(ProtocolErrorAnswer())
    }

    /// The largest request head accepted, counting the target and every field's name and value
    /// (SwiftNIO's decoder counts those, not the separators); a larger one is answered `431`.
    /// Browsers send a few kilobytes at most.
    package static let maximumHeadSize = 32 * 1024

    /// The most header fields a request may have, so that the separators the head bound does
    /// not count stay bounded too (4 bytes each).
    package static let maximumHeaderFieldCount = 512
}

/// Counts the connections the listening channel accepts, on its event loop and in their order,
/// before they are set up.
private final class AcceptCounter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let accepted: Locked<Int>

    init(_ accepted: Locked<Int>) { self.accepted = accepted }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        accepted.withLock { $0 += 1 }
        context.fireChannelRead(data)
    }
}

/// Answers a request SwiftNIO's decoder refuses — `431` for a head over the bound, `400`
/// otherwise — unless the server has answered already, then passes the error on (which ends
/// the connection's inbound stream).
private final class ProtocolErrorAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var headRead = false
    private var requestEnded = false
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head: headRead = true
        case .body: break
        case .end: requestEnded = true
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        answered = true
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError, !answered, !requestEnded {
            let response =
                error == .headerOverflow
                ? ServerResponse(status: 431)
                : .text(headRead ? "malformed request body\n" : "malformed request\n", status: 400)
            answered = true
            for part in response.parts { context.write(Self.wrapOutboundOut(part), promise: nil) }
            context.flush()
        }
        context.fireErrorCaught(error)
    }
}

extension ServerRequest {
    /// The request `head` announced, with `fields` (its header fields) and `body`.
    fileprivate init(_ head: HTTPRequestHead, fields: HTTPFields, body: [UInt8] = []) {
        self.init(method: head.method.rawValue, target: head.uri, headerFields: fields, body: body)
    }
}

extension ServerResponse {
    /// The response head: the handler's fields in order, then `Content-Length` unless they
    /// have one, `Cache-Control: no-store` unless they have a `Cache-Control`, and
    /// `Connection: close`.
    fileprivate var head: HTTPResponseHead {
        var headers = HTTPHeaders()
        for field in headerFields { headers.add(name: field.name.rawName, value: field.value) }
        if header("Content-Length") == nil { headers.add(name: "Content-Length", value: String(body.count)) }
        if header("Cache-Control") == nil { headers.add(name: "Cache-Control", value: "no-store") }
        headers.add(name: "Connection", value: "close")
        return HTTPResponseHead(
            version: .http1_1, status: .custom(code: UInt(status), reasonPhrase: reason), headers: headers)
    }

    /// The response as the parts the encoder writes.
    fileprivate var parts: [HTTPServerResponsePart] {
        body.isEmpty
            ? [.head(head), .end(nil)]
            : [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)]
    }
}

extension HTTPFields {
    /// `headers` in order, each name as sent; `nil` when a name is not a valid field name.
    fileprivate init?(_ headers: HTTPHeaders) {
        self.init()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { return nil }
            append(HTTPField(name: name, value: value))
        }
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
