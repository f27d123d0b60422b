// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import Logging
import NIOCore
public import WebAuthCore
public import WebAuthDesktopSocket
import WebAuthPlatform

/// The web-authentication browser's side of the socket: listens on
/// ``CallbackSocketDirectory/authenticationBrowserSocketPath`` (mode 0600, in the private socket
/// directory) and hands each request to ``Handler/begin``, and a session's cancellation to
/// ``Handler/cancel``.
///
/// One request per connection (see `AuthenticationBrowserMessage` for the protocol). A
/// connection from another user is refused; one that sends no valid request within 5 seconds
/// is closed. The server runs on SwiftNIO and serves each connection in a task of its own, so
/// the handler is called on an arbitrary thread.
///
/// ```swift
/// let server = try AuthenticationBrowserServer.start(handler: .init(
///     begin: { connection in open(connection.request.url) … connection.complete(withCallbackURL: url) },
///     cancel: { connection in close the page for connection.request.uuid }))
/// ```
///
/// `Sendable`: its stored properties are immutable `Sendable` values; whether it is stopping is
/// behind a lock (`Locked`), so the socket file is removed and the listener closed once.
public final class AuthenticationBrowserServer: Sendable {
    /// What the program does with requests.
    public struct Handler: Sendable {
        /// A session handed over a request: show its page, then answer through the connection.
        /// Return promptly (answer later, from anywhere): the session's cancellation is noticed
        /// only once this returns.
        public var begin: @Sendable (AuthenticationBrowserConnection) -> Void
        /// The session was cancelled (or went away) before the request was answered: stop
        /// showing its page.
        public var cancel: @Sendable (AuthenticationBrowserConnection) -> Void

        /// Creates a handler.
        public init(
            begin: @escaping @Sendable (AuthenticationBrowserConnection) -> Void,
            cancel: @escaping @Sendable (AuthenticationBrowserConnection) -> Void
        ) {
            self.begin = begin
            self.cancel = cancel
        }
    }

    /// The socket's path.
    public let socketPath: String
    private let server: UnixSocketServer
    private let handler: Handler
    private let logger: Logger
    private let stopping = Locked(false)

    /// The most connections served at once; more are closed at once.
    static let maximumConnections = 32

    /// The bounds a connection gets: its request within 5 seconds, lines of the protocol's size.
    static let limits = UnixSocketServer.Limits(
        maximumConnections: maximumConnections, maximumLineLength: AuthenticationBrowserMessage.maximumLineLength,
        firstLineTimeout: .seconds(5))

    private init(socketPath: String, server: UnixSocketServer, handler: Handler, logger: Logger) {
        self.socketPath = socketPath
        self.server = server
        self.handler = handler
        self.logger = logger
    }

    /// Starts listening for requests.
    ///
    /// - Throws: ``AuthenticationBrowserError/Code/alreadyListening`` when another program of
    ///   this user listens already; ``AuthenticationBrowserError/Code/fileSystem`` when the
    ///   socket directory is unsafe or the socket cannot be made.
    public static func start(
        environment: DesktopEnvironment = DesktopEnvironment(), handler: Handler,
        logger: Logger = .webAuthSilent
    ) throws(AuthenticationBrowserError) -> AuthenticationBrowserServer {
        let directory = CallbackSocketDirectory(environment: environment)
        do {
            try directory.prepare()
        } catch {
            throw .fileSystem(error.description)
        }
        let path = directory.authenticationBrowserSocketPath
        if let live = try? DesktopSocketCalls.makeConnection(to: path) {
            DesktopSocketCalls.close(live)
            throw .alreadyListening("another program already listens for web authentication requests at \(path)")
        }
        DesktopSocketCalls.removeFile(path)  // a socket left by a program that ended without removing it
        let server: UnixSocketServer
        do {
            // Synchronous, as Apple's `sessionHandler` setter that starts it is: binding on the
            // event loop takes a moment.
            server = try UnixSocketServer.listen(
                at: path, pendingPath: path + ".\(DesktopSocketCalls.processID).new", limits: limits, logger: logger
            ).wait()
        } catch {
            throw .fileSystem("\(error)")
        }
        let started = AuthenticationBrowserServer(socketPath: path, server: server, handler: handler, logger: logger)
        Task {
            await server.run(cancellingConnectionsAtClose: false) { connection in await started.serve(connection) }
        }
        logger.debug("listening for web authentication requests", metadata: ["socket": "\(path)"])
        return started
    }

    /// Stops listening and removes the socket, without waiting. Requests under way keep their
    /// connections.
    public func stop() {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        DesktopSocketCalls.removeFile(socketPath)
        server.requestClose()
    }

    /// Reads the request, hands it to the handler, then waits for the session's cancellation
    /// or for the connection to end.
    private func serve(_ connection: UnixSocketServer.Connection) async {
        try? await connection.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            guard case .line(let bytes) = try await lines.next() else { return }
            let request: AuthenticationBrowserRequest
            do throws(AuthenticationBrowserError) {
                guard case .begin(let begun) = try AuthenticationBrowserMessage.parse(bytes) else {
                    throw .protocolViolation("the first message must be begin")
                }
                request = begun
            } catch {
                logger.debug("refused a request", metadata: ["reason": "\(error)"])
                let refusal = AuthenticationBrowserMessage.canceled(
                    UUID(), code: 3, message: "the request was refused: \(error.message)")
                try await outbound.write(ByteBuffer(bytes: refusal.line))
                return
            }
            let answering = AuthenticationBrowserConnection(channel: connection.channel, request: request)
            logger.debug("request", metadata: ["uuid": "\(request.uuid)", "url": "\(request.url.redactedForLogs)"])
            handler.begin(answering)
            // The session sends nothing more but `cancel`; that, anything else (which breaks the
            // protocol) or the end of the connection means the session no longer waits.
            _ = try? await lines.next()
            if answering.closeConnection() {
                logger.debug("the session cancelled", metadata: ["uuid": "\(request.uuid)"])
                handler.cancel(answering)
            }
        }
    }
}
