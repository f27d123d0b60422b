import Foundation
import Logging
import Synchronization
import WebAuthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The web-authentication browser's side of the socket: listens on
/// ``CallbackSocketDirectory/authenticationBrowserSocketPath`` (mode 0600, in the private socket
/// directory) and hands each request to ``Handler/begin``, and a session's cancellation to
/// ``Handler/cancel``.
///
/// One request per connection (see `AuthenticationBrowserMessage` for the protocol). A
/// connection from another user is refused; one that sends no valid request within 5 seconds
/// is closed. The accept loop and each connection run on threads of their own, so the handler
/// is called on an arbitrary thread.
///
/// ```swift
/// let server = try AuthenticationBrowserServer.start(handler: .init(
///     begin: { connection in open(connection.request.url) … connection.complete(withCallbackURL: url) },
///     cancel: { connection in close the page for connection.request.uuid }))
/// ```
///
/// `Sendable`: the listening descriptor and wake-up pipe are owned by the accept thread, which
/// alone closes them after marking the state `exited` under the lock; the pipe is written only
/// under that lock before `exited`.
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
    private let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: Handler
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var exited = false
    }

    /// The most connections served at once; more are closed at once.
    static let maximumConnections = 32

    private init(socketPath: String, descriptor: Int32, wake: [Int32], handler: Handler, logger: Logger) {
        self.socketPath = socketPath
        self.descriptor = descriptor
        self.wakeRead = wake[0]
        self.wakeWrite = wake[1]
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
        if let live = try? UnixSocket.makeConnection(to: path) {
            close(live)
            throw .alreadyListening("another program already listens for web authentication requests at \(path)")
        }
        unlink(path)  // a socket left by a program that ended without removing it
        // Made under a name of this process's and renamed once it listens, so the path exists
        // only while something accepts, and two programs starting at once never clobber a
        // half-made socket.
        let pending = path + ".\(getpid()).new"
        unlink(pending)
        let descriptor: Int32
        do {
            descriptor = try UnixSocket.makeListeningSocket(at: pending)
        } catch {
            throw .fileSystem(error.description)
        }
        var wake: [Int32] = [0, 0]
        guard pipe(&wake) == 0 else {
            close(descriptor)
            unlink(pending)
            throw .fileSystem("cannot create a pipe")
        }
        for end in wake {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        guard rename(pending, path) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            unlink(pending)
            for end in wake { close(end) }
            throw .fileSystem("cannot move the socket into place at \(path): \(reason)")
        }
        let server = AuthenticationBrowserServer(
            socketPath: path, descriptor: descriptor, wake: wake, handler: handler, logger: logger)
        Thread.detachNewThread { server.acceptLoop() }
        logger.debug("listening for web authentication requests", metadata: ["socket": "\(path)"])
        return server
    }

    /// Stops listening and removes the socket, without waiting. Requests under way keep their
    /// connections.
    public func stop() {
        state.withLock { state in
            guard !state.exited, !state.stopping else { return }
            state.stopping = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private func acceptLoop() {
        UnixSocket.acceptConnections(
            on: descriptor, wake: wakeRead, maximumConnections: Self.maximumConnections,
            isStopping: { state.withLock { $0.stopping } }, serve: { self.serve($0) })
        state.withLock { state in
            state.exited = true
            unlink(socketPath)
            close(descriptor)
            close(wakeRead)
            close(wakeWrite)
        }
    }

    /// Reads the request, hands it to the handler, then waits for the session's cancellation
    /// or for the connection to end.
    private func serve(_ descriptor: Int32) {
        guard UnixSocket.peerUserID(descriptor) == geteuid() else {
            logger.debug("refused a connection from another user")
            close(descriptor)
            return
        }
        let first = UnixSocket.readLine(
            descriptor, limit: AuthenticationBrowserMessage.maximumLineLength, deadline: .now + .seconds(5))
        guard case .line(let bytes) = first else {
            close(descriptor)
            return
        }
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
            UnixSocket.writeAll(descriptor, refusal.line, deadline: .now + .seconds(1))
            close(descriptor)
            return
        }
        let connection = AuthenticationBrowserConnection(descriptor: descriptor, request: request)
        logger.debug("request", metadata: ["uuid": "\(request.uuid)", "url": "\(request.url.redactedForLogs)"])
        handler.begin(connection)
        // The session sends nothing more but `cancel`; that, anything else (which breaks the
        // protocol) or the end of the connection means the session no longer waits.
        while case .timedOut = UnixSocket.readLine(
            descriptor, limit: AuthenticationBrowserMessage.maximumLineLength, deadline: .now + .seconds(3600))
        {}
        if connection.closeConnection() {
            logger.debug("the session cancelled", metadata: ["uuid": "\(request.uuid)"])
            handler.cancel(connection)
        }
    }
}
