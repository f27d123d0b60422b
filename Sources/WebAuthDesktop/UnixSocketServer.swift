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
/// A server may answer some first lines at once (``ImmediateAnswer``): the answer is written
/// and the connection closed, without a task or a thread hop. On Linux such a server accepts on
/// a thread of its own, its front door, which checks the same bounds and answers a first line
/// that has arrived whole before the connection becomes a channel at all; every other
/// connection goes on to the event loop as above. The token agent answers a held, fresh token
/// that way.
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

    private let listener: Listener
    private let connections: AsyncStream<Handover>

    /// What accepts the connections.
    private enum Listener: Sendable {
        /// SwiftNIO's listening channel.
        case channel(any Channel)
        #if os(Linux)
            /// The server's own accepting thread (a server with an immediate answer).
            case frontDoor(FrontDoor)
        #endif

        /// Stops accepting: closes the listening socket, without waiting.
        func close() {
            switch self {
            case .channel(let channel): channel.close(promise: nil)
            #if os(Linux)
                case .frontDoor(let door): door.requestClose()
            #endif
            }
        }

        /// Stops accepting, and returns once the listening socket is closed.
        func closeAndWait() async {
            switch self {
            case .channel(let channel): try? await channel.close()
            #if os(Linux)
                case .frontDoor(let door):
                    door.requestClose()
                    try? await door.closed.get()
            #endif
            }
        }
    }

    private init(listener: Listener, connections: AsyncStream<Handover>) {
        self.listener = listener
        self.connections = connections
    }

    /// Answers a connection's first line at once, or `nil` to hand the connection (that line
    /// first) to the server's logic. It must be quick and must not block: it runs on the
    /// accepting thread and on the event loop, which every connection shares.
    package typealias ImmediateAnswer = @Sendable (_ first: SocketLine, _ peer: Peer) -> [UInt8]?

    /// Listens on `descriptor`, a Unix stream socket already bound (see
    /// `DesktopSocketCalls.makeBoundSocket(at:)`), which the server then owns and closes.
    /// Once this returns, the socket accepts connections. `immediate`, when given, may answer a
    /// connection's first line itself (see ``ImmediateAnswer``); on Linux such a server accepts
    /// on a thread of its own, its front door (see ``ImmediateAnswer``). The connections the
    /// server's logic serves (and, without a front door, the listener) run on `group`'s event
    /// loops: one loop (an `EventLoop` is a group of one) keeps every connection on one thread.
    package static func start(
        descriptor: Int32, limits: Limits, logger: Logger, immediate: ImmediateAnswer? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) -> EventLoopFuture<UnixSocketServer> {
        let (connections, continuation) = AsyncStream.makeStream(of: Handover.self)
        let served = OpenConnections()
        let (seconds, attoseconds) = limits.firstLineTimeout.components
        let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let handOver: @Sendable (any Channel, Peer) throws -> Void = { channel, peer in
            served.lineArrived(channel)
            let connection = Handover(try Connection(wrappingChannelSynchronously: channel), peer: peer)
            guard case .enqueued = continuation.yield(connection) else { throw Refused.stopping }
        }
        // The listener's end ends the stream of connections (those already in it are still
        // served or cancelled, see run), and closes those that have not sent a line yet.
        let listenerClosed: @Sendable () -> Void = {
            continuation.finish()
            served.closeThoseWithoutALine()
        }
        #if os(Linux)
            if let immediate {
                let door: FrontDoor
                do {
                    door = try FrontDoor(
                        limits: limits, timeout: timeout, logger: logger, immediate: immediate, group: group,
                        served: served, handOver: handOver)
                } catch {
                    Descriptor.close(descriptor)
                    return group.next().makeFailedFuture(error)
                }
                return door.open(descriptor, whenClosed: listenerClosed).map {
                    UnixSocketServer(listener: .frontDoor(door), connections: connections)
                }
            }
        #endif
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
                    guard isServed(peer, limits) else {
                        logger.debug("refused a connection from another user")
                        throw Refused.anotherUser
                    }
                    try frame(
                        channel, peer: peer, limits: limits, deadline: FirstLineDeadline(timeout: timeout),
                        immediate: immediate, handOver: handOver)
                }
            }
        return bootstrap.withBoundSocket(descriptor).map { listener in
            listener.closeFuture.whenComplete { _ in listenerClosed() }
            return UnixSocketServer(listener: .channel(listener), connections: connections)
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

    /// Whether `peer` is served: this process's own user, and root when the limits say so.
    static func isServed(_ peer: Peer, _ limits: Limits) -> Bool {
        peer.userID == CurrentProcess.effectiveUserID || (limits.servesRoot && peer.userID == 0)
    }

    /// Puts the framing, the first line's `deadline` and the handover in `channel`'s pipeline,
    /// behind `earlier` — bytes the front door read from the connection before the channel
    /// existed, passed on first, ahead of anything the channel reads.
    static func frame(
        _ channel: any Channel, peer: Peer, limits: Limits, deadline: FirstLineDeadline, earlier: [UInt8] = [],
        immediate: ImmediateAnswer?, handOver: @escaping (any Channel, Peer) throws -> Void
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        if !earlier.isEmpty { try pipeline.addHandler(EarlierBytes(earlier)) }
        try pipeline.addHandler(ByteToMessageHandler(LineFrameDecoder(limit: limits.maximumLineLength)))
        try pipeline.addHandler(deadline)
        try pipeline.addHandler(FirstLineHandover(peer: peer, immediate: immediate, handOver: handOver))
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
        await listener.closeAndWait()
        for await handover in connections { await handover.take()?.closeUnserved() }
    }

    /// Stops accepting and closes the listening socket, without waiting (it does not remove the
    /// socket's file); ``run(cancellingConnectionsAtClose:serve:)`` then returns.
    package func requestClose() {
        listener.close()
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
    final class Handover: Sendable {
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
    enum Refused: Error {
        case tooManyConnections
        case anotherUser
        case stopping
    }

    /// The open connections: how many (for the limit), and those that have not sent a line
    /// yet, which no task serves, so that the listener's end closes them.
    final class OpenConnections: Sendable {
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

        /// Counts a connection in that has no channel yet, unless `limit` are open already or
        /// the listener is closed: its place, which ``Place/release()`` frees once.
        func reserve(limit: Int) -> Place? {
            let reserved = state.withLock { state in
                guard state.count < limit, !state.listenerClosed else { return false }
                state.count += 1
                return true
            }
            return reserved ? Place(self) : nil
        }

        /// Notes `channel`, counted in already, as one without a line; `false` (and nothing
        /// noted) once the listener is closed.
        func attach(_ channel: any Channel) -> Bool {
            state.withLock { state in
                guard !state.listenerClosed else { return false }
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

        /// A connection counted in has gone.
        fileprivate func release(_ channel: (any Channel)?) {
            state.withLock { state in
                state.count -= 1
                if let channel { state.withoutALine.removeValue(forKey: ObjectIdentifier(channel)) }
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

        /// One connection's place among the open ones, freed once: when its channel closes, or,
        /// when no channel came of it, by whoever gave up on it.
        final class Place: Sendable {
            private let connections: OpenConnections
            private let held = Locked(true)

            fileprivate init(_ connections: OpenConnections) {
                self.connections = connections
            }

            /// Frees the place (and forgets `channel`, if any) unless it is free already.
            func release(_ channel: (any Channel)? = nil) {
                let releasing = held.withLock { held in
                    defer { held = false }
                    return held
                }
                if releasing { connections.release(channel) }
            }
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

    private let end: End
    private var deadline: Scheduled<Void>?
    private var met = false
    private var expired = false

    /// When the deadline is.
    private enum End {
        /// This long after the channel becomes active.
        case afterActive(TimeAmount)
        /// At this moment (a connection accepted before its channel was made).
        case at(NIODeadline)
    }

    /// A deadline `timeout` after the connection is made.
    package init(timeout: TimeAmount) {
        self.end = .afterActive(timeout)
    }

    /// A deadline at `deadline`, for a connection accepted before its channel was made.
    package init(deadline: NIODeadline) {
        self.end = .at(deadline)
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
        let expire: @Sendable () -> Void = {
            handler.value.expired = true
            channel.close(promise: nil)
        }
        switch end {
        case .afterActive(let timeout): deadline = context.eventLoop.scheduleTask(in: timeout, expire)
        case .at(let moment): deadline = context.eventLoop.scheduleTask(deadline: moment, expire)
        }
    }
}

@available(*, unavailable)
extension FirstLineDeadline: Sendable {}

/// Passes on, once the channel is active and before anything it reads, the bytes the front door
/// read from the connection before the channel was made; then stands aside.
final class EarlierBytes: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var bytes: [UInt8]?

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        guard let bytes else { return }
        self.bytes = nil
        context.fireChannelRead(wrapInboundOut(ByteBuffer(bytes: bytes)))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

@available(*, unavailable)
extension EarlierBytes: Sendable {}

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
