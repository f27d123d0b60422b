// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import Logging
package import NIOCore
import NIOPosix
package import WebAuthCore

/// A form that a ``LoopbackFormPage`` makes the browser post: where to, which fields, and the
/// words the person sees for the moment the page is shown.
package struct LoopbackFormPost: Sendable {
    /// Where the form is posted (`https`, or `http` to a loopback address).
    package var action: URL
    /// The fields, in order; their values are HTML-escaped on the page.
    package var fields: [(name: String, value: String)]
    /// The page's title and heading.
    package var title: String
    /// The sentence under the heading.
    package var message: String
    /// The label of the button that posts the form when scripts do not run.
    package var buttonLabel: String

    /// Creates a form.
    package init(
        action: URL, fields: [(name: String, value: String)], title: String, message: String, buttonLabel: String
    ) {
        self.action = action
        self.fields = fields
        self.title = title
        self.message = message
        self.buttonLabel = buttonLabel
    }
}

/// A one-use loopback page that posts a form for the browser: the way to hand a browser the
/// session does not control a request that carries a secret (an end-session request's
/// `id_token_hint`) without putting the secret on a command line.
///
/// The browser is given ``url``, `http://127.0.0.1:PORT/` and 256 random bits, which carries
/// nothing secret. The listener on that port answers a `GET` of that path once, and only to a
/// connection whose other end the kernel says is this user's (or root's, or not a local socket
/// at all: WSL2's relay), with the form and a tiny inline script that posts it at once; a button
/// posts it when scripts do not run. The page goes out with `Cache-Control: no-store`,
/// `Referrer-Policy: no-referrer` and a `Content-Security-Policy` that loads nothing and runs
/// only that script (by its nonce). After that answer the page is forgotten: the same path, like
/// every other, gets 404. A connection of another user's program gets 403 and the page stays
/// for the person's browser; so does one whose owner the kernel cannot tell.
///
/// Requests are read as by the callback listener: bounded heads (``HTTPRequestHeadParser``),
/// the `Host` check and methods of ``LoopbackRequestRouter``, a read timeout, a cap on open
/// connections, `TCP_DEFER_ACCEPT`. ``close()`` stops listening and closes every connection.
package final class LoopbackFormPage: Sendable {
    /// The page's address: `http://127.0.0.1:PORT/<random path>`.
    package let url: URL
    private let eventLoop: any EventLoop
    private let core: NIOLoopBound<FormPageCore>

    private init(url: URL, eventLoop: any EventLoop, core: NIOLoopBound<FormPageCore>) {
        self.url = url
        self.eventLoop = eventLoop
        self.core = core
    }

    /// How long a connection may take to send its request head, and at most how long it stays.
    static let readTimeout = TimeAmount.seconds(5)
    /// The most connections open at once; one more is refused.
    static let maxConnections = 32
    /// The largest request head read.
    static let maxHeaderBytes = 8 * 1024

    /// Binds a port on `host` and starts answering.
    ///
    /// - Parameters:
    ///   - form: What the page posts.
    ///   - host: The loopback address to listen on.
    ///   - peerSockets: Who owns the other end of a connection; the kernel's table by default.
    ///   - eventLoop: Where the listener and its connections run.
    ///   - logger: Where to log, never a field's value.
    /// - Throws: ``WebAuthenticationSessionError/Code/callbackListenerFailed`` when no port can
    ///   be bound.
    package static func start(
        _ form: LoopbackFormPost,
        host: LoopbackHost = .ipv4,
        peerSockets: any PeerSocketOwnerLookup = KernelSocketTable(),
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next(),
        logger: Logger = .webAuthSilent
    ) async throws(WebAuthenticationSessionError) -> LoopbackFormPage {
        let path = "/" + Data((0..<32).map { _ in UInt8.random(in: .min ... .max) }).base64URLEncodedString()
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: host.address, port: 0)
        } catch {
            throw .listenerFailed(port: nil, "\(host.address) is not an IP address")
        }
        let page = LoopbackResponse.formPost(form)
        let settings = FormPageCore.Settings(
            peerSockets: peerSockets, ourUID: UInt32(geteuid()), logger: logger, eventLoop: eventLoop)
        let core: NIOLoopBound<FormPageCore>
        do {
            core = try await eventLoop.submit {
                NIOLoopBound(FormPageCore(settings: settings, page: page), eventLoop: eventLoop)
            }.get()
        } catch {
            throw .listenerFailed(port: nil, "the event loop is shut down")
        }
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .deferringAccept(forUpTo: Int32(readTimeout.nanoseconds / 1_000_000_000))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FormPageConnection(core: core.value))
                }
            }
        let port: Int
        do {
            port = try await bootstrap.bind(to: address).flatMapThrowing { server in
                guard let port = server.localAddress?.port,
                    let router = LoopbackRequestRouter(callback: Callback.loopback(path: path, port: port, host: host))
                else {
                    server.close(promise: nil)
                    throw FormPageStartError.noLocalAddress
                }
                core.value.didBind(server: server, router: router)
                return port
            }.get()
        } catch {
            logger.debug("form page could not bind", metadata: ["error": "\(error)"])
            throw .listenerFailed(port: nil, "cannot bind a port on \(host.uriHost): \(error)")
        }
        guard let url = URL(string: host.origin(port: port) + path) else {
            throw .listenerFailed(port: nil, "the page's address does not parse")
        }
        logger.debug("form page listening", metadata: ["origin": "\(host.origin(port: port))"])
        return LoopbackFormPage(url: url, eventLoop: eventLoop, core: core)
    }

    /// Whether the page has been served.
    package var isServed: Bool {
        get async {
            let core = self.core
            return (try? await eventLoop.submit { core.value.isServed }.get()) ?? false
        }
    }

    /// Stops listening, forgets the page and closes every connection. Idempotent.
    package func close() async {
        let core = self.core
        try? await eventLoop.submit { core.value.shutdown() }.get()
    }

    deinit {
        let core = self.core
        eventLoop.execute { core.value.shutdown() }
    }
}

private enum FormPageStartError: Error {
    case noLocalAddress
}

/// The state of one form page, confined to its event loop.
final class FormPageCore {
    /// What the core is told once, at creation.
    struct Settings: Sendable {
        let peerSockets: any PeerSocketOwnerLookup
        let ourUID: UInt32
        let logger: Logger
        let eventLoop: any EventLoop
    }

    let settings: Settings
    /// The page, until it is served or the listener closes; then `nil`, so that the secret it
    /// carries is not kept.
    private var page: LoopbackResponse?
    private(set) var isServed = false
    private var router: LoopbackRequestRouter?
    private var server: (any Channel)?
    private var isClosed = false
    private var connections: [ObjectIdentifier: FormPageConnection] = [:]

    init(settings: Settings, page: LoopbackResponse) {
        self.settings = settings
        self.page = page
    }

    func didBind(server: any Channel, router: LoopbackRequestRouter) {
        self.server = server
        self.router = router
        if isClosed { server.close(promise: nil) }
    }

    /// Admits a connection; `false` to refuse it.
    func admit(_ connection: FormPageConnection) -> Bool {
        guard !isClosed, router != nil, connections.count < LoopbackFormPage.maxConnections else { return false }
        connections[ObjectIdentifier(connection)] = connection
        return true
    }

    func remove(_ connection: FormPageConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    /// The answer to a complete request head on `connection`.
    func answer(_ head: HTTPRequestHead, on connection: FormPageConnection) -> LoopbackResponse {
        guard !isClosed, let router else { return .plain(.notFound) }
        switch router.route(head) {
        case .reject(let status, let reason):
            settings.logger.debug(
                "form page turned a request away", metadata: ["status": "\(status.rawValue)", "reason": "\(reason)"])
            return .plain(status)
        case .probe:
            return .plain(.notFound)
        case .callback:
            guard let page else {
                settings.logger.debug("form page asked for again")
                return .plain(.notFound)
            }
            let owner = connection.ends.map { settings.peerSockets.owner(ofPeerOf: $0) } ?? .unknown
            guard owner.mayReceivePage(ourUID: settings.ourUID) else {
                settings.logger.warning(
                    "form page refused a connection that is not this user's; still waiting",
                    metadata: ["peer_socket": "\(owner.logDescription)"])
                return .otherUsersRequest
            }
            self.page = nil
            isServed = true
            settings.logger.debug("form page served")
            return page
        }
    }

    /// Stops listening, forgets the page and closes every connection.
    func shutdown() {
        guard !isClosed else { return }
        isClosed = true
        page = nil
        server?.close(promise: nil)
        for connection in connections.values { connection.closeNow() }
        connections = [:]
    }
}

/// Reads one request head from a connection to the form page and answers it.
final class FormPageConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let core: FormPageCore
    private var parser = HTTPRequestHeadParser(maxHeadBytes: LoopbackFormPage.maxHeaderBytes)
    private var context: ChannelHandlerContext?
    private var answered = false
    private var timeout: Scheduled<Void>?

    init(core: FormPageCore) {
        self.core = core
    }

    /// The connection's two ends, as the kernel's socket table names them.
    var ends: ConnectionEnds? {
        guard let channel = context?.channel, let peer = channel.remoteAddress, let local = channel.localAddress
        else { return nil }
        return ConnectionEnds(peer: peer, local: local)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
        core.remove(self)
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        guard core.admit(self) else {
            context.close(promise: nil)
            return
        }
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: LoopbackFormPage.readTimeout) { [weak self] in
            self?.closeNow()
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch parser.feed(unwrapInboundIn(data).readableBytesView) {
        case .needMoreData:
            break
        case .head(let head):
            let response = core.answer(head, on: self)
            respond(response, includeBody: head.method != "HEAD", linger: head.declaresBody || parser.bytesFollowHead)
        case .invalid:
            respond(.plain(.badRequest), includeBody: true, linger: true)
        case .tooLarge:
            respond(.plain(.requestHeaderFieldsTooLarge), includeBody: true, linger: true)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.remove(self)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        closeNow()
    }

    /// Writes `response`, then closes the connection; when bytes may still come, shuts the
    /// output down instead and lets the read timeout close it, so that unread bytes do not make
    /// the kernel reset the connection before the client has read the answer.
    private func respond(_ response: LoopbackResponse, includeBody: Bool, linger: Bool) {
        guard let context, !answered else { return }
        answered = true
        let bytes = ByteBuffer(bytes: response.serialized(includeBody: includeBody))
        context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { [weak self] _ in
            if linger {
                context.close(mode: .output, promise: nil)
            } else {
                self?.closeNow()
            }
        }
    }

    /// Closes the connection now.
    func closeNow() {
        timeout?.cancel()
        timeout = nil
        context?.close(promise: nil)
    }
}

extension PeerSocketOwner {
    /// Whether a page carrying a secret may go over a connection whose client end this is, for a
    /// page served by `ourUID`.
    ///
    /// Stricter than ``mayDeliverCallback(ourUID:)``: a callback from a connection whose owner
    /// cannot be told is accepted, but a secret is handed only where the kernel says it goes —
    /// our own user, root (who can read the session's memory anyway), or a connection relayed
    /// from outside the kernel, which no other local user can make.
    package func mayReceivePage(ourUID: UInt32) -> Bool {
        switch self {
        case .user(let uid): uid == ourUID || uid == 0
        case .notLocal: true
        case .closedByItsProgram, .unknown: false
        }
    }
}
