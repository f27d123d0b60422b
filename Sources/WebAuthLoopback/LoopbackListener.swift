// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import WebAuthCore
import WebAuthPlatform

/// A bound loopback listener: what ``LoopbackReceiver/listen(for:deciding:)`` returns.
///
/// It is `Sendable` because every stored property is an immutable `Sendable` value (or an
/// `Atomic`); the mutable state is in a ``ListenerCore`` reachable only through `NIOLoopBound`,
/// that is only on the listener's event loop.
final class LoopbackListener: CallbackListener {
    let redirectURI: URL
    let callback: Callback
    let callbacks: AsyncStream<ReceivedCallback>
    private let released: ListenerCore.Released
    private let eventLoop: any EventLoop
    private let core: NIOLoopBound<ListenerCore>
    /// Whether ``close()`` has been called; a listener dropped without it closes in `deinit`.
    private let closeCalled = Atomic<Bool>(false)

    private init(
        redirectURI: URL, callback: Callback, callbacks: AsyncStream<ReceivedCallback>, released: ListenerCore.Released,
        eventLoop: any EventLoop, core: NIOLoopBound<ListenerCore>
    ) {
        self.redirectURI = redirectURI
        self.callback = callback
        self.callbacks = callbacks
        self.released = released
        self.eventLoop = eventLoop
        self.core = core
    }

    /// Binds `endpoint` on `eventLoop` (server and connections alike) and starts answering.
    static func start(
        callback: Callback,
        endpoint: (host: LoopbackHost, port: Int, path: String),
        decide: @escaping @Sendable (URL) -> CallbackVerdict,
        configuration: LoopbackReceiver.Configuration,
        peerSockets: any PeerSocketOwnerLookup,
        eventLoop: any EventLoop,
        logger: Logger
    ) async throws(WebAuthenticationSessionError) -> LoopbackListener {
        let requestedPort = endpoint.port == 0 ? nil : endpoint.port
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: endpoint.host.address, port: endpoint.port)
        } catch {
            throw .listenerFailed(port: requestedPort, "\(endpoint.host.address) is not an IP address")
        }
        let (callbacks, continuation) = AsyncStream.makeStream(
            of: ReceivedCallback.self, bufferingPolicy: .bufferingNewest(1))
        let released = ListenerCore.Released()
        let settings = ListenerCore.Settings(
            configuration: configuration, decide: decide, peerSockets: peerSockets, ourUID: UInt32(geteuid()),
            continuation: continuation, released: released, logger: logger, eventLoop: eventLoop)

        let core: NIOLoopBound<ListenerCore>
        do {
            core = try await eventLoop.submit { NIOLoopBound(ListenerCore(settings: settings), eventLoop: eventLoop) }
                .get()
        } catch {
            continuation.finish()
            throw .listenerFailed(port: requestedPort, "the event loop is shut down")
        }

        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 1024)
            // Under a flood the callback waits in the kernel's queue behind every connection
            // made before it; taking 16 from the queue per wake-up (SwiftNIO's default is 4)
            // reaches it sooner, before the strays accepted so far are answered.
            .serverChannelOption(.maxMessagesPerRead, value: 16)
            // A connection that says nothing stays in the kernel, for about the read timeout,
            // and takes no place among the listener's connections nor a turn of its loop.
            .deferringAccept(forUpTo: configuration.deferredAcceptSeconds)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(core: core.value))
                }
            }
        let router: LoopbackRequestRouter
        do {
            // `bind` succeeds on the event loop before the channel becomes active, so the core
            // knows its router before the first connection is accepted.
            router = try await bootstrap.bind(to: address).flatMapThrowing { server in
                guard let port = server.localAddress?.port,
                    let router = LoopbackRequestRouter(callback: callback.boundToPort(port))
                else {
                    server.close(promise: nil)
                    throw ListenerStartError.noLocalAddress
                }
                core.value.didBind(server: server, router: router)
                return router
            }.get()
        } catch {
            continuation.finish()
            logger.debug(
                "loopback listener could not bind",
                metadata: ["address": "\(endpoint.host.uriHost):\(endpoint.port)", "error": "\(error)"])
            throw .listenerFailed(
                port: requestedPort, Self.describe(error, address: endpoint.host, port: endpoint.port))
        }
        let redirectURI = router.callback.redirectURI
        logger.debug("loopback listener bound", metadata: ["redirect_uri": "\(redirectURI.redactedForLogs)"])
        return LoopbackListener(
            redirectURI: redirectURI, callback: router.callback, callbacks: callbacks, released: released,
            eventLoop: eventLoop, core: core)
    }

    /// Closes the server socket and every connection, finishes ``callbacks``, and returns once
    /// the listener is released (see ``ListenerCore/Released``): the listening socket is closed,
    /// so the port refuses new connections, no request is answered any more, and the callback's
    /// answer, if one came, is written. The other connections are closed by then or right after,
    /// on the event loop; nothing of the session reaches them. Idempotent; safe while a
    /// callback is arriving (both run on the listener's event loop, one after the other).
    ///
    /// After a callback the listener releases itself on the event loop, right after it yields
    /// the callback: this waits for that moment, not for a turn of the event loop, which may still be
    /// working through the connections it is closing.
    func close() async {
        closeCalled.store(true, ordering: .relaxed)
        let core = self.core
        let released = self.released
        if !released.isReleased {
            // A loop already shut down runs nothing more: then there is nothing to wait for.
            eventLoop.submit { core.value.shutdown() }.whenFailure { _ in released.stopWaiting() }
        }
        await released.wait()
    }

    deinit {
        // A listener dropped without `close()` must not keep its port.
        guard !closeCalled.load(ordering: .relaxed) else { return }
        let core = self.core
        eventLoop.execute { core.value.shutdown() }
    }

    /// A sentence for a bind failure, naming the address and port.
    private static func describe(_ error: any Error, address: LoopbackHost, port: Int) -> String {
        let place = "\(address.uriHost):\(port)"
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE: return "\(place) is already in use"
            case EACCES: return "permission denied binding \(place)"
            case EADDRNOTAVAIL: return "\(address.address) is not available on this machine"
            default: return "cannot bind \(place) (errno \(io.errnoCode))"
            }
        }
        return "cannot bind \(place): \(error)"
    }
}

extension LoopbackReceiver.Configuration {
    /// How long a silent connection may wait in the kernel before it is accepted: the read
    /// timeout, in whole seconds, at least one (the kernel rounds it up to its retransmission
    /// schedule: 5 seconds become about 7).
    var deferredAcceptSeconds: Int32 {
        let (seconds, attoseconds) = readTimeout.components
        return Int32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
    }
}

extension ServerBootstrap {
    /// Keeps each new connection in the kernel until its first byte arrives, or for up to
    /// `seconds`, where the system can (``ListeningTCPSocket/deferAcceptOption``); elsewhere
    /// leaves the bootstrap as it is.
    func deferringAccept(forUpTo seconds: Int32) -> ServerBootstrap {
        guard let option = ListeningTCPSocket.deferAcceptOption else { return self }
        return serverChannelOption(
            ChannelOptions.Types.SocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: option.level),
                name: NIOBSDSocket.Option(rawValue: option.name)),
            value: SocketOptionValue(seconds))
    }
}

private enum ListenerStartError: Error {
    case noLocalAddress
}

/// The mutable state of one listener. Confined to the listener's event loop: every method runs
/// there (the server channel, its connections and their handlers share that loop).
///
/// Every open connection is in one of two queues, so that admitting, evicting and timing out
/// cost the same however many connections are open: ``waiting`` (reading the request head, by
/// admission, which is also the order of their deadlines) and ``answered`` (being answered or
/// lingering for the client to close, by admission). One timer per listener, set for the
/// earliest deadline, closes the connections whose deadline has passed.
///
/// Time is the event loop's: deadlines are read from `eventLoop.now` and the timer is scheduled
/// on the loop, so that a test can drive the core and its connections on an `EmbeddedEventLoop`
/// and move its clock with `advanceTime`.
final class ListenerCore {
    /// Whether the listener is released: its listening socket is closed (the port refuses new
    /// connections), it answers no request any more, its stream is finished, and the callback's
    /// answer, if one came, is written. Set once, on the event loop; read and awaited from
    /// anywhere, without a turn of the event loop.
    final class Released: Sendable {
        private struct State {
            var isReleased = false
            var waiters: [CheckedContinuation<Void, Never>] = []
        }
        private let state = Locked(State())

        /// Whether the listener is released.
        var isReleased: Bool { state.withLock { $0.isReleased } }

        /// Returns once the listener is released (or ``stopWaiting()`` is called).
        func wait() async {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    guard !state.isReleased else { return true }
                    state.waiters.append(waiter)
                    return false
                }
                if now { waiter.resume() }
            }
        }

        /// Marks the listener released and wakes every waiter.
        fileprivate func set() { wakeWaiters(released: true) }

        /// Wakes every waiter without marking the listener released: its event loop is gone.
        func stopWaiting() { wakeWaiters(released: false) }

        private func wakeWaiters(released: Bool) {
            let waiters = state.withLock { state in
                if released { state.isReleased = true }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// What the core is told once, at creation.
    struct Settings: Sendable {
        let configuration: LoopbackReceiver.Configuration
        /// The session's verdict on a callback request, asked once per request.
        let decide: @Sendable (URL) -> CallbackVerdict
        /// Who owns the client's end of a connection.
        let peerSockets: any PeerSocketOwnerLookup
        /// The user the listener runs as (its effective user id).
        let ourUID: UInt32
        /// Where the callback the session accepted goes.
        let continuation: AsyncStream<ReceivedCallback>.Continuation
        let released: Released
        let logger: Logger
        let eventLoop: any EventLoop
    }

    let settings: Settings
    var configuration: LoopbackReceiver.Configuration { settings.configuration }
    var logger: Logger { settings.logger }
    /// Set once the server is bound.
    private(set) var router: LoopbackRequestRouter?
    private var server: (any Channel)?
    /// Whether the listening socket is closed.
    private var serverClosed = false
    /// Once true, no request is answered any more and no connection admitted.
    private(set) var isFinished = false
    /// The connections still reading their request head, oldest first.
    private var waiting = ConnectionQueue()
    /// The connections being answered or answered, by admission.
    private var answered = ConnectionQueue()
    private var nextConnectionID = 0
    /// The timer for the earliest deadline, while any connection is open.
    private var deadlineTimer: Scheduled<Void>?
    /// The answers that do not depend on the request, serialized once.
    private var plainAnswers: [PlainAnswer: ByteBuffer] = [:]
    /// The connection whose callback ended the listener, until its answer is written.
    private var callbackBeingAnswered: ConnectionHandler?

    init(settings: Settings) {
        self.settings = settings
    }

    deinit {
        waiting.removeAll()
        answered.removeAll()
    }

    /// How long a connection may wait for its head, and linger once answered.
    private var readTimeout: TimeAmount { TimeAmount(configuration.readTimeout) }

    /// Records the bound server channel and the router for its port.
    func didBind(server: any Channel, router: LoopbackRequestRouter) {
        self.server = server
        self.router = router
        if isFinished { closeServer() }
    }

    /// Admits a new connection, evicting an old one if the limit is reached. Returns the
    /// connection's number, or `nil` to refuse it.
    func admit(_ connection: ConnectionHandler) -> Int? {
        guard !isFinished, router != nil else { return nil }
        if waiting.count + answered.count >= max(1, configuration.maxConnections) {
            // Prefer a connection that is already answered (it only lingers for the client to
            // close), then the oldest one still waiting for its head.
            guard let victim = answered.first(where: \.isAnswered) ?? waiting.first else {
                logger.debug("loopback listener refused a connection: too many in progress")
                return nil
            }
            logger.trace("loopback listener evicted a connection", metadata: ["connection": "\(victim.id)"])
            victim.closeNow()
        }
        let id = nextConnectionID
        nextConnectionID += 1
        connection.admitted(id: id, deadline: settings.eventLoop.now + readTimeout)
        waiting.append(connection)
        if deadlineTimer == nil { setDeadlineTimer(for: connection.deadline) }
        return id
    }

    /// Moves `connection` from the waiting to the answered ones, with a new deadline.
    func startsAnswering(_ connection: ConnectionHandler) {
        guard connection.queue == .waiting else { return }
        waiting.remove(connection)
        connection.deadline = settings.eventLoop.now + readTimeout
        connection.queue = .answered
        answered.insertInAdmissionOrder(connection)
    }

    /// Forgets a connection that is closing or closed.
    func remove(_ connection: ConnectionHandler) {
        switch connection.queue {
        case .waiting: waiting.remove(connection)
        case .answered: answered.remove(connection)
        case .none: break
        }
        connection.queue = .none
    }

    /// Sets the one timer for `deadline`.
    private func setDeadlineTimer(for deadline: NIODeadline) {
        deadlineTimer = settings.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            self?.closeExpiredConnections()
        }
    }

    /// Closes every connection whose deadline has passed, and sets the timer for the next one.
    private func closeExpiredConnections() {
        deadlineTimer = nil
        let now = settings.eventLoop.now
        while let oldest = waiting.first, oldest.deadline <= now {
            oldest.closeNow()
            remove(oldest)  // closing removes it already; this only makes the loop's end certain
            logger.trace("loopback connection timed out", metadata: ["connection": "\(oldest.id)"])
        }
        var next = waiting.first?.deadline
        for connection in answered {
            if connection.deadline <= now {
                connection.closeNow()
                logger.trace("loopback connection timed out", metadata: ["connection": "\(connection.id)"])
            } else if next.map({ connection.deadline < $0 }) ?? true {
                next = connection.deadline
            }
        }
        if let next { setDeadlineTimer(for: next) }
    }

    /// `response` as bytes on the wire.
    func serialized(_ response: LoopbackResponse, includeBody: Bool) -> ByteBuffer {
        ByteBuffer(bytes: response.serialized(includeBody: includeBody))
    }

    /// The serialized ``LoopbackResponse/plain(_:)`` answer for `status`, made once per listener.
    func plainAnswer(_ status: HTTPStatus, includeBody: Bool) -> ByteBuffer {
        let key = PlainAnswer(status: status, includeBody: includeBody)
        if let bytes = plainAnswers[key] { return bytes }
        let bytes = serialized(.plain(status), includeBody: includeBody)
        plainAnswers[key] = bytes
        return bytes
    }

    /// Answers a complete request head on `connection`.
    func handle(_ head: HTTPRequestHead, on connection: ConnectionHandler) {
        guard !isFinished, let router else {
            connection.closeNow()
            return
        }
        let includeBody = head.method != "HEAD"
        switch router.route(head) {
        case .reject(let status, let reason):
            logger.debug(
                "loopback listener turned a request away",
                metadata: ["status": "\(status.rawValue)", "reason": "\(reason)"])
            connection.respond(plainAnswer(status, includeBody: includeBody))
        case .probe:
            logger.debug("loopback listener answered a HEAD request for the callback path")
            connection.respond(serialized(.success(configuration.successPage), includeBody: false))
        case .callback(let url):
            // Before the session sees it: another user must not even learn whether it matched.
            let owner = connection.ends.map { settings.peerSockets.owner(ofPeerOf: $0) } ?? .unknown
            if owner == .unknown {
                logger.debug("loopback listener could not tell who owns the callback's connection; accepting it")
            }
            guard owner.mayDeliverCallback(ourUID: settings.ourUID) else {
                logger.warning(
                    "loopback listener refused a callback whose connection is not this user's; still waiting",
                    metadata: ["peer_socket": "\(owner.logDescription)", "connection": "\(connection.id)"])
                connection.respond(plainAnswer(.forbidden, includeBody: includeBody))
                return
            }
            // The session's verdict, asked once: an accepted one carries the callback with its
            // parameters read, which the page reads and the session takes as it is.
            guard let received = settings.decide(url).accepted else {
                logger.debug(
                    "loopback listener received a callback the session did not accept",
                    metadata: ["url": "\(url.redactedForLogs)"])
                connection.respond(serialized(.rejected(configuration.rejectedPage), includeBody: true))
                return
            }
            logger.debug("loopback listener received the callback", metadata: ["url": "\(url.redactedForLogs)"])
            let response: LoopbackResponse =
                if let failure = LoopbackRequestRouter.authorizationError(in: received.parameters) {
                    .authorizationError(
                        configuration.failurePage, error: failure.error, description: failure.description)
                } else {
                    .success(configuration.successPage)
                }
            // No other request is answered after this one. The session hears of the callback at
            // once, and closes the listener, which waits until it is released: below, once the
            // listening socket is closed (the port refuses new connections) and this answer is
            // written. Closing the other connections is not waited for.
            isFinished = true
            callbackBeingAnswered = connection
            connection.respond(serialized(response, includeBody: true)) { [weak self] in
                self?.callbackAnswered()
            }
            settings.continuation.yield(received)
            settings.continuation.finish()
            closeServer()
            if callbackBeingAnswered == nil { settings.released.set() }
            closeConnections()
        }
    }

    /// Closes the listening socket. On the event loop a channel closes its socket at once, so
    /// when this returns the port refuses new connections (the kernel resets those it had
    /// queued but the listener had not accepted).
    private func closeServer() {
        guard let server, !serverClosed else { return }
        serverClosed = true
        server.close(promise: nil)
    }

    /// Closes every connection; one being answered closes as soon as its answer is written.
    private func closeConnections() {
        for connection in waiting { connection.closeWhenAnswered() }
        for connection in answered { connection.closeWhenAnswered() }
    }

    /// The callback's answer is written (or its connection closed first): once the listening
    /// socket is closed too, the listener is released.
    private func callbackAnswered() {
        callbackBeingAnswered = nil
        if isFinished, serverClosed { settings.released.set() }
    }

    /// Stops listening, finishes the stream without a value if none was yielded, and closes
    /// every connection. The listener is released at once, or, while the callback's answer is
    /// being written, once it is. The other connections are not waited for: those not closed at
    /// once (an answer being written) close as soon as their answer is written, or at their
    /// deadline.
    func shutdown() {
        if !isFinished {
            isFinished = true
            settings.continuation.finish()
            logger.debug("loopback listener closing")
        }
        closeServer()
        if callbackBeingAnswered == nil { settings.released.set() }
        closeConnections()
    }
}

/// Which of the answers that do not depend on the request.
private struct PlainAnswer: Hashable {
    let status: HTTPStatus
    let includeBody: Bool
}

/// Reads one request head from a connection and answers it. Runs on the listener's loop.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase {
        /// Admitted, reading the request head.
        case readingHead
        /// The answer is being written.
        case answering
        /// The answer is written and the output shut down (the client sent more than a head, or
        /// not a valid one); input is read and dropped until the client closes, so that the
        /// kernel does not reset the connection over unread bytes.
        case answered
        /// Closing or closed.
        case closed
    }

    /// Which of the listener's queues the connection is in.
    enum Queue {
        case none, waiting, answered
    }

    private let core: ListenerCore
    private var parser: HTTPRequestHeadParser
    private var phase = Phase.readingHead
    private var context: ChannelHandlerContext?
    /// Whether the connection closes as soon as its answer is written instead of lingering:
    /// nothing followed its head, or the listener is finishing.
    private var closeOnceAnswered = false
    /// Runs once the answer being written is written, or the connection closes first.
    private var whenAnswered: (() -> Void)?
    /// The connection's number, in admission order; -1 until admitted.
    private(set) var id = -1
    /// When the listener closes the connection: the head must be complete by then, and an
    /// answered connection lingers no longer.
    var deadline = NIODeadline.distantFuture
    /// The listener's queue the connection is in, and its neighbours there (see
    /// ``ConnectionQueue`` for why the backward link is unowned).
    var queue = Queue.none
    var queueNext: ConnectionHandler?
    unowned var queuePrevious: ConnectionHandler?

    init(core: ListenerCore) {
        self.core = core
        self.parser = HTTPRequestHeadParser(maxHeadBytes: core.configuration.maxHeaderBytes)
    }

    /// The connection's two ends, as the kernel's socket table names them.
    var ends: ConnectionEnds? {
        guard let channel = context?.channel, let peer = channel.remoteAddress, let local = channel.localAddress
        else { return nil }
        return ConnectionEnds(peer: peer, local: local)
    }

    /// Whether the connection has been answered and only lingers for the client to close.
    var isAnswered: Bool { phase == .answered || phase == .closed }

    /// Called by the listener when it admits the connection into its waiting queue.
    func admitted(id: Int, deadline: NIODeadline) {
        self.id = id
        self.deadline = deadline
        queue = .waiting
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Lets go of the context when the channel closes: the context holds this handler, so
    /// keeping it would keep both — and the channel with its buffers — for the life of the
    /// process, a little for every connection the listener ever accepted.
    func handlerRemoved(context: ChannelHandlerContext) {
        core.remove(self)
        self.context = nil
        answerDone()
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let id = core.admit(self) else {
            phase = .closed
            context.close(promise: nil)
            return
        }
        core.logger.trace("loopback connection opened", metadata: ["connection": "\(id)"])
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard phase == .readingHead else { return }  // after the head: drop
        let buffer = unwrapInboundIn(data)
        switch parser.feed(buffer.readableBytesView) {
        case .needMoreData:
            break
        case .head(let head):
            // With nothing after the head, the answer closes the connection at once: no unread
            // byte can make the kernel reset it, so lingering would only cost a wake-up more.
            closeOnceAnswered = !head.declaresBody && !parser.bytesFollowHead
            core.handle(head, on: self)
        case .invalid(let reason):
            core.logger.debug("loopback listener received a malformed request", metadata: ["reason": "\(reason)"])
            respond(core.plainAnswer(.badRequest, includeBody: true))
        case .tooLarge:
            core.logger.debug("loopback listener received a request head over the limit")
            respond(core.plainAnswer(.requestHeaderFieldsTooLarge, includeBody: true))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .closed
        core.remove(self)
        answerDone()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        core.logger.trace("loopback connection error", metadata: ["error": "\(error)"])
        closeNow()
    }

    /// Writes `answer`, then closes the connection, or, when bytes may still come
    /// (``closeOnceAnswered`` is false), shuts the output down and lingers until the client
    /// closes (or the read timeout passes, or the listener finishes). `whenAnswered` runs once
    /// the answer is written, or the connection closed before it was.
    func respond(_ answer: ByteBuffer, whenAnswered: (() -> Void)? = nil) {
        guard let context, phase == .readingHead else {
            whenAnswered?()
            return
        }
        phase = .answering
        self.whenAnswered = whenAnswered
        core.startsAnswering(self)
        context.writeAndFlush(wrapOutboundOut(answer)).assumeIsolated().whenComplete { [weak self] result in
            guard let self else { return }
            // Also when the client closed first (the phase is no longer answering).
            defer { self.answerDone() }
            guard self.phase == .answering else { return }
            self.phase = .answered
            if case .failure = result {
                self.closeNow()
            } else if self.closeOnceAnswered || self.core.isFinished {
                self.closeNow()
            } else {
                context.close(mode: .output, promise: nil)
            }
        }
    }

    /// Runs the action waiting for the answer, once.
    private func answerDone() {
        guard let action = whenAnswered else { return }
        whenAnswered = nil
        action()
    }

    /// Closes the connection now.
    func closeNow() {
        guard phase != .closed else { return }
        phase = .closed
        core.remove(self)
        context?.close(promise: nil)
        answerDone()
    }

    /// Closes the connection now, or as soon as the answer being written is written.
    func closeWhenAnswered() {
        if phase == .answering {
            closeOnceAnswered = true
        } else {
            closeNow()
        }
    }
}
