// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Logging
package import NIOCore
import NIOPosix
import WebAuthDesktopSocket
import WebAuthPlatform

/// A line-oriented server on a Unix socket, on SwiftNIO: what the desktop's scheme socket
/// (`SchemeSocketServer`), the web-authentication browser's socket
/// (`AuthenticationBrowserServer`) and the token agent's socket (`AgentServer`) all run on.
///
/// Every bound is enforced on the event loop, before the server's own logic sees a byte:
/// - a connection from another user is refused (`SO_PEERCRED`; root too unless
///   ``Limits/servesRoot``), as is one beyond
///   ``Limits/maximumConnections`` served at once (both closed at once);
/// - the bytes are framed into `\n`-terminated lines of at most ``Limits/maximumLineLength``
///   bytes (`LineFrameDecoder`);
/// - a connection that sends no complete line within ``Limits/firstLineTimeout`` is closed
///   (`FirstLineDeadline`).
///
/// The server's logic runs in structured concurrency: ``run(cancellingConnectionsAtClose:serve:)``
/// serves each connection, a `NIOAsyncChannel` of lines, in a task of a task group, and returns
/// once the listener is closed (and, as asked, its connections are done). A connection reaches
/// it with its first line (`FirstLineHandover`), so one that never sends a line costs no task.
///
/// A server may answer some first lines at once, on the event loop (``ImmediateAnswer``): the
/// answer is written and the connection closed, without a task or a thread hop. The token
/// agent answers a held, fresh token that way.
package final class UnixSocketServer: Sendable {
    /// One accepted connection: lines in, bytes out.
    package typealias Connection = NIOAsyncChannel<SocketLine, ByteBuffer>

    /// The bounds on what a connection may send and how many are served at once.
    package struct Limits: Sendable {
        /// The most connections served at once; more are closed at once.
        package var maximumConnections: Int
        /// The longest line, without its `\n`.
        package var maximumLineLength: Int
        /// How long a new connection has to send its first complete line.
        package var firstLineTimeout: Duration
        /// Whether root's connections are served too (besides this process's own user).
        package var servesRoot: Bool

        /// Bounds for a server; root is served only when `servesRoot`.
        package init(
            maximumConnections: Int, maximumLineLength: Int, firstLineTimeout: Duration, servesRoot: Bool = false
        ) {
            self.maximumConnections = maximumConnections
            self.maximumLineLength = maximumLineLength
            self.firstLineTimeout = firstLineTimeout
            self.servesRoot = servesRoot
        }
    }

    /// Who is at the other end of a connection, from `SO_PEERCRED` when it connected.
    package struct Peer: Sendable, Hashable {
        /// The peer's process ID (0 where the system does not tell).
        package var processID: Int32
        /// The peer's user ID.
        package var userID: UInt32
    }

    private let listener: any Channel
    private let connections: AsyncStream<Handover>

    private init(listener: any Channel, connections: AsyncStream<Handover>) {
        self.listener = listener
        self.connections = connections
    }

    /// Answers a connection's first line on the event loop, or `nil` to hand the connection
    /// (that line first) to the server's logic. It must be quick and must not block: it runs on
    /// the event loop every connection shares.
    package typealias ImmediateAnswer = @Sendable (_ first: SocketLine, _ peer: Peer) -> [UInt8]?

    /// Listens on `descriptor`, a Unix stream socket already bound (see
    /// `DesktopSocketCalls.makeBoundSocket(at:)`), which the server then owns and closes.
    /// Once this returns, the socket accepts connections. `immediate`, when given, may answer a
    /// connection's first line itself (see ``ImmediateAnswer``). The listener and its
    /// connections run on `group`'s event loops: one loop (an `EventLoop` is a group of one)
    /// keeps every connection on the thread that accepted it.
    package static func start(
        descriptor: Int32, limits: Limits, logger: Logger, immediate: ImmediateAnswer? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) -> EventLoopFuture<UnixSocketServer> {
        let (connections, continuation) = AsyncStream.makeStream(of: Handover.self)
        let served = OpenConnections()
        let (seconds, attoseconds) = limits.firstLineTimeout.components
        let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let bootstrap = ServerBootstrap(group: group)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                // On the connection's event loop: the count, the peer check, the framing and the
                // deadline, before the connection reaches the server's logic.
                guard served.enter(channel, limit: limits.maximumConnections) else {
                    logger.debug("refused a connection beyond the limit")
                    return channel.eventLoop.makeFailedFuture(Refused.tooManyConnections)
                }
                channel.closeFuture.whenComplete { _ in served.leave(channel) }
                return peer(of: channel).flatMapThrowing { peer in
                    let user = peer.userID
                    guard user == CurrentProcess.effectiveUserID || (limits.servesRoot && user == 0) else {
                        logger.debug("refused a connection from another user")
                        throw Refused.anotherUser
                    }
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(LineFrameDecoder(limit: limits.maximumLineLength)))
                    try pipeline.addHandler(FirstLineDeadline(timeout: timeout))
                    try pipeline.addHandler(
                        FirstLineHandover(peer: peer, immediate: immediate) { channel, peer in
                            served.lineArrived(channel)
                            let connection = Handover(try Connection(wrappingChannelSynchronously: channel), peer: peer)
                            guard case .enqueued = continuation.yield(connection) else { throw Refused.stopping }
                        })
                }
            }
        return bootstrap.withBoundSocket(descriptor).map { listener in
            // The listener's end ends the stream of connections (those already in it are still
            // served or cancelled, see run), and closes those that have not sent a line yet.
            listener.closeFuture.whenComplete { _ in
                continuation.finish()
                served.closeThoseWithoutALine()
            }
            return UnixSocketServer(listener: listener, connections: connections)
        }
    }

    /// Why a server could not listen at its path: a sentence naming the path and the cause.
    package struct ListenFailure: Error, CustomStringConvertible {
        /// The sentence.
        package let description: String
    }

    /// Listens at `path`, which exists only while something accepts there: the socket is bound
    /// at `pendingPath` (mode 0600, see `DesktopSocketCalls.makeBoundSocket(at:)`), listens,
    /// and is then renamed over `path`, so a client that finds the path can connect and two
    /// servers starting at once never take each other's half-made socket. Whatever is at
    /// `pendingPath` is removed first, and nothing is left there on failure. What is at `path`
    /// is the caller's to judge beforehand (a live server, a stale socket, another user's): the
    /// rename replaces it. The rest as ``start(descriptor:limits:logger:immediate:group:)``.
    package static func listen(
        at path: String, pendingPath: String, limits: Limits, logger: Logger, immediate: ImmediateAnswer? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) -> EventLoopFuture<UnixSocketServer> {
        DesktopSocketCalls.removeFile(pendingPath)
        let descriptor: Int32
        do {
            descriptor = try DesktopSocketCalls.makeBoundSocket(at: pendingPath)
        } catch {
            DesktopSocketCalls.removeFile(pendingPath)
            return group.next().makeFailedFuture(
                ListenFailure(description: "cannot listen on \(pendingPath): \(error)"))
        }
        return start(descriptor: descriptor, limits: limits, logger: logger, immediate: immediate, group: group)
            .flatMapErrorThrowing { error in
                DesktopSocketCalls.removeFile(pendingPath)
                throw ListenFailure(description: "cannot listen on \(pendingPath): \(error)")
            }
            .flatMapThrowing { server in
                do {
                    try DesktopSocketCalls.rename(pendingPath, to: path)
                } catch {
                    Task { await server.closeUnserved() }
                    DesktopSocketCalls.removeFile(pendingPath)
                    throw ListenFailure(description: "\(error)")
                }
                return server
            }
    }

    /// Serves each connection with `serve`, concurrently, until the listener is closed; then,
    /// when `cancellingConnectionsAtClose`, cancels the connections still being served, and
    /// returns once every one has ended.
    package func run(
        cancellingConnectionsAtClose: Bool, serve: @escaping @Sendable (Connection) async -> Void
    ) async {
        await run(cancellingConnectionsAtClose: cancellingConnectionsAtClose) { connection, _ in
            await serve(connection)
        }
    }

    /// As ``run(cancellingConnectionsAtClose:serve:)``, telling `serve` who the peer is.
    package func run(
        cancellingConnectionsAtClose: Bool, serve: @escaping @Sendable (Connection, Peer) async -> Void
    ) async {
        await withDiscardingTaskGroup { group in
            for await handover in connections {
                guard let connection = handover.take() else { continue }
                let peer = handover.peer
                group.addTask { await serve(connection, peer) }
            }
            if cancellingConnectionsAtClose { group.cancelAll() }
        }
    }

    /// For a server that never ran: stops accepting and closes the connections accepted
    /// meanwhile, unserved.
    package func closeUnserved() async {
        try? await listener.close()
        for await handover in connections { await handover.take()?.closeUnserved() }
    }

    /// Stops accepting and closes the listening socket, without waiting (it does not remove the
    /// socket's file); ``run(cancellingConnectionsAtClose:serve:)`` then returns.
    package func requestClose() {
        listener.close(promise: nil)
    }

    /// The connection's peer, from `SO_PEERCRED`. Fails where the system cannot say, so that
    /// an unknown peer is refused.
    private static func peer(of channel: any Channel) -> EventLoopFuture<Peer> {
        guard let option = LocalSocket.peerCredentialsOption, let provider = channel as? SocketOptionProvider
        else { return channel.eventLoop.makeFailedFuture(Refused.anotherUser) }
        let credentials: EventLoopFuture<LocalSocket.PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(option.level), name: SocketOptionName(option.name))
        return credentials.map { Peer(processID: $0.processID, userID: $0.userID) }
    }

    /// An accepted connection on its way to the server's logic.
    ///
    /// A `NIOAsyncChannel` must end through `executeThenClose`: one dropped before that traps.
    /// A connection nobody takes (the server stopped between accepting it and handing it over,
    /// or the task reading the connections ended first) is therefore closed through that
    /// method when its handover ends.
    private final class Handover: Sendable {
        private let connection: Locked<Connection?>
        /// Who connected.
        let peer: Peer

        init(_ connection: Connection, peer: Peer) {
            self.connection = Locked(connection)
            self.peer = peer
        }

        /// The connection, to the first caller only; whoever takes it must end it through
        /// `executeThenClose`.
        func take() -> Connection? {
            connection.withLock { $0.take() }
        }

        deinit {
            guard let connection = take() else { return }
            Task { await connection.closeUnserved() }
        }
    }

    /// Why a connection was closed before it reached the server's logic.
    private enum Refused: Error {
        case tooManyConnections
        case anotherUser
        case stopping
    }

    /// The open connections: how many (for the limit), and those that have not sent a line
    /// yet, which no task serves, so that the listener's end closes them.
    private final class OpenConnections: Sendable {
        private struct State {
            var count = 0
            var withoutALine: [ObjectIdentifier: any Channel] = [:]
            var listenerClosed = false
        }
        private let state = Locked(State())

        /// Counts `channel` in, unless `limit` are open already or the listener is closed.
        func enter(_ channel: any Channel, limit: Int) -> Bool {
            state.withLock { state in
                guard state.count < limit, !state.listenerClosed else { return false }
                state.count += 1
                state.withoutALine[ObjectIdentifier(channel)] = channel
                return true
            }
        }

        /// `channel` sent its first line: the server's logic serves it now.
        func lineArrived(_ channel: any Channel) {
            _ = state.withLock { $0.withoutALine.removeValue(forKey: ObjectIdentifier(channel)) }
        }

        /// `channel` closed.
        func leave(_ channel: any Channel) {
            state.withLock { state in
                state.count -= 1
                state.withoutALine.removeValue(forKey: ObjectIdentifier(channel))
            }
        }

        /// Closes the connections that have not sent a line; no more are counted in.
        func closeThoseWithoutALine() {
            let waiting = state.withLock { state in
                state.listenerClosed = true
                return Array(state.withoutALine.values)
            }
            for channel in waiting { channel.close(promise: nil) }
        }
    }
}

extension UnixSocketServer.Connection {
    /// Closes a connection the server's logic never saw.
    fileprivate func closeUnserved() async {
        try? await executeThenClose { _, _ in }
    }
}

/// What the line framing of a connection yields.
package enum SocketLine: Sendable, Hashable {
    /// The bytes before a `\n`.
    case line([UInt8])
    /// The peer stopped sending; the bytes after the last `\n` (possibly none). Comes once, last.
    case endOfInput([UInt8])
    /// More than the limit arrived without a `\n`; whatever else arrives is discarded.
    case tooLong
}

/// Splits a connection's bytes into `\n`-terminated lines of at most `limit` bytes (without the
/// `\n`), then reports the end of input with what came after the last line.
package struct LineFrameDecoder: ByteToMessageDecoder {
    package typealias InboundOut = SocketLine

    /// The longest line.
    package let limit: Int
    private var discarding = false
    private var ended = false

    /// A decoder for lines of at most `limit` bytes.
    package init(limit: Int) {
        self.limit = limit
    }

    /// The next frame in `buffer` (consuming it), or `nil` when more bytes are needed; with
    /// `atEnd`, the input is over and what is left is reported once as ``SocketLine/endOfInput(_:)``.
    package mutating func nextFrame(in buffer: inout ByteBuffer, atEnd: Bool) -> SocketLine? {
        if discarding {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            return nil
        }
        let bytes = buffer.readableBytesView
        if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - bytes.startIndex
            guard length <= limit else { return discardTheRest(of: &buffer) }
            let line = buffer.readBytes(length: length) ?? []
            buffer.moveReaderIndex(forwardBy: 1)
            return .line(line)
        }
        if buffer.readableBytes > limit { return discardTheRest(of: &buffer) }
        guard atEnd, !ended else { return nil }
        ended = true
        return .endOfInput(buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    private mutating func discardTheRest(of buffer: inout ByteBuffer) -> SocketLine {
        discarding = true
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .tooLong
    }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = nextFrame(in: &buffer, atEnd: false) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    package mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        guard let frame = nextFrame(in: &buffer, atEnd: true) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }
}

/// Closes a connection that sends no complete line (nor ends its input) within `timeout` of
/// connecting; what it sent by then is dropped, not passed on as its end of input.
package final class FirstLineDeadline: ChannelInboundHandler {
    package typealias InboundIn = SocketLine
    package typealias InboundOut = SocketLine

    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var met = false
    private var expired = false

    /// A deadline `timeout` after the connection is made.
    package init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !expired else { return }
        met = true
        deadline?.cancel()
        deadline = nil
        context.fireChannelRead(data)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil, !met else { return }
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            handler.value.expired = true
            channel.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension FirstLineDeadline: Sendable {}

/// Takes a connection's first line: answers it on the event loop when the server's
/// ``UnixSocketServer/ImmediateAnswer`` does (then closes the connection), else hands the
/// connection to the server's logic — wrapped as a `NIOAsyncChannel` then, so that the line and
/// everything after it reach that logic — and passes every later line on.
final class FirstLineHandover: ChannelInboundHandler {
    typealias InboundIn = SocketLine
    typealias OutboundOut = ByteBuffer

    private let peer: UnixSocketServer.Peer
    private let immediate: UnixSocketServer.ImmediateAnswer?
    private let handOver: (any Channel, UnixSocketServer.Peer) throws -> Void
    private var state = State.waiting

    private enum State {
        /// No line yet.
        case waiting
        /// The server's logic has the connection.
        case handedOver
        /// Answered here; the connection is closing.
        case answered
    }

    init(
        peer: UnixSocketServer.Peer, immediate: UnixSocketServer.ImmediateAnswer?,
        handOver: @escaping (any Channel, UnixSocketServer.Peer) throws -> Void
    ) {
        self.peer = peer
        self.immediate = immediate
        self.handOver = handOver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .handedOver:
            context.fireChannelRead(data)
        case .answered:
            break
        case .waiting:
            if let answer = immediate?(unwrapInboundIn(data), peer) {
                state = .answered
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).whenComplete { _ in
                    channel.close(promise: nil)
                }
                return
            }
            do {
                try handOver(context.channel, peer)
                state = .handedOver
                context.fireChannelRead(data)
            } catch {
                state = .answered
                context.close(promise: nil)
            }
        }
    }
}

@available(*, unavailable)
extension FirstLineHandover: Sendable {}
