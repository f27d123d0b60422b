import Foundation
import Logging
import NIOCore
import Synchronization
import WebAuthAgentProtocol
import WebAuthDesktopSocket
import WebAuthPlatform
import WebAuthSocketServer

/// The agent's socket: where it listens, how a stale or foreign socket there is treated, and
/// the serving of connections — one request line, one answer line — on a ``UnixSocketServer``
/// (same user and root only, bounded lines, a deadline on the request).
///
/// The socket is the one the environment names (``AgentSocketPath``), or the descriptor systemd
/// passes (`LISTEN_FDS`, `LISTEN_PID`: descriptor 3). A socket file already at the path is
/// replaced when it is this user's and nothing answers on it (left by an agent that died), and
/// refused — with a message naming its owner — when another user owns it or an agent answers
/// there. The socket is made under a name of its own, mode 0600, and renamed into place once it
/// listens; it is removed when the agent stops (unless systemd passed it).
package final class AgentServer: Sendable {
    /// Why the agent could not start.
    package struct StartFailure: Error, CustomStringConvertible {
        /// A sentence naming the path and what is wrong.
        package let description: String
    }

    /// The bounds on the agent's connections.
    static let limits = UnixSocketServer.Limits(
        maximumConnections: 256, maximumLineLength: AgentProtocol.maximumRequestLength,
        firstLineTimeout: AgentProtocol.requestTimeout, servesRoot: true)

    /// The socket's path (for a passed descriptor, the path the environment names).
    package let path: String
    private let server: UnixSocketServer
    private let service: AgentService
    private let ownsPath: Bool
    private let logger: Logger

    private init(path: String, server: UnixSocketServer, service: AgentService, ownsPath: Bool, logger: Logger) {
        self.path = path
        self.server = server
        self.service = service
        self.ownsPath = ownsPath
        self.logger = logger
    }

    /// Listens for `service`: on the descriptor systemd passed when `environment` says so, else
    /// at `socket`'s path, prepared as the type describes.
    package static func start(
        service: AgentService, socket: AgentSocketPath, environment: [String: String], logger: Logger
    ) async throws -> AgentServer {
        if let passed = passedDescriptor(environment: environment) {
            let server = try await UnixSocketServer.start(
                descriptor: passed, limits: limits, logger: logger, immediate: immediateAnswer(service)
            ).get()
            return AgentServer(path: socket.path, server: server, service: service, ownsPath: false, logger: logger)
        }
        let path = socket.path
        if socket.isNamed {
            // Only the default directory is made here; a named socket's directory must exist.
            guard let info = try? FileSystem.status(socket.directory), info.kind == .directory else {
                throw StartFailure(
                    description: "the directory of WEBAUTH_AGENT_SOCK (\(socket.directory)) does not exist")
            }
        } else {
            do {
                try CallbackSocketDirectory(environment: DesktopEnvironment(variables: environment)).prepare()
            } catch {
                throw StartFailure(description: error.description)
            }
        }
        try replaceStaleSocket(at: path)
        let pending = path + ".\(CurrentProcess.id).new"
        DesktopSocketCalls.removeFile(pending)
        let server: UnixSocketServer
        do {
            let descriptor = try DesktopSocketCalls.makeBoundSocket(at: pending)
            server = try await UnixSocketServer.start(
                descriptor: descriptor, limits: limits, logger: logger, immediate: immediateAnswer(service)
            ).get()
        } catch {
            DesktopSocketCalls.removeFile(pending)
            throw StartFailure(description: "cannot listen on \(pending): \(error)")
        }
        do {
            try DesktopSocketCalls.rename(pending, to: path)
        } catch {
            await server.closeUnserved()
            DesktopSocketCalls.removeFile(pending)
            throw StartFailure(description: error.description)
        }
        return AgentServer(path: path, server: server, service: service, ownsPath: true, logger: logger)
    }

    /// What the server answers on its event loop: a token the service holds ready (see
    /// ``AgentService/immediateAnswer(to:)``).
    static func immediateAnswer(_ service: AgentService) -> UnixSocketServer.ImmediateAnswer {
        { first, _ in
            guard case .line(let bytes) = first else { return nil }
            return service.immediateAnswer(to: bytes)
        }
    }

    /// The descriptor systemd passed (3), when `LISTEN_PID` is this process and `LISTEN_FDS`
    /// is at least 1.
    static func passedDescriptor(environment: [String: String]) -> Int32? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == CurrentProcess.id,
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return nil }
        return 3
    }

    /// Removes a socket left at `path` by an agent that is gone; refuses one another user owns,
    /// something that is not a socket, and a socket an agent still answers on.
    static func replaceStaleSocket(at path: String) throws {
        let info: FileStatus
        do {
            info = try FileSystem.status(path, followingLinks: false)
        } catch {
            if error == .noSuchEntry { return }
            throw StartFailure(description: "cannot read \(path): \(error)")
        }
        guard info.owner == CurrentProcess.effectiveUserID else {
            throw StartFailure(
                description:
                    "\(path) belongs to another user (uid \(info.owner)); refusing it — remove it, or set WEBAUTH_AGENT_SOCK"
            )
        }
        guard info.kind == .other else {
            throw StartFailure(description: "\(path) is not a socket; remove it, or set WEBAUTH_AGENT_SOCK")
        }
        switch AgentConnection.exchange(AgentRequest(.status), path: path, timeout: .seconds(2)) {
        case .success:
            throw StartFailure(description: "an agent already listens on \(path)")
        case .failure(.noAgent):
            DesktopSocketCalls.removeFile(path)
        case .failure(.anotherUser(let owner)):
            throw StartFailure(
                description:
                    "\(path) is served by another user (uid \(owner.map(String.init) ?? "unknown")); refusing it")
        case .failure:
            throw StartFailure(description: "something listens on \(path) but does not answer as an agent; remove it")
        }
    }

    /// Serves until ``requestStop()`` (or a `stop` request); then removes the socket (when it
    /// made it) and returns.
    package func run() async {
        let service = service
        let server = server
        await service.onStop { server.requestClose() }
        let ticker = Task {
            while !Task.isCancelled {
                let next = await service.tick()
                let wait = min(max(next.map { $0.timeIntervalSinceNow } ?? 1, 0.05), 1)
                try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
            }
        }
        await server.run(cancellingConnectionsAtClose: true) { connection, peer in
            await Self.serve(connection, peer: peer, service: service)
        }
        ticker.cancel()
        if ownsPath { DesktopSocketCalls.removeFile(path) }
        logger.info("stopped")
    }

    /// Stops accepting; ``run()`` then returns.
    package func requestStop() {
        server.requestClose()
    }

    private static func serve(
        _ connection: UnixSocketServer.Connection, peer: UnixSocketServer.Peer, service: AgentService
    ) async {
        var stop = false
        try? await connection.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            guard let first = try await lines.next() else { return }
            let answer: AgentAnswer
            switch first {
            case .line(let bytes), .endOfInput(let bytes):
                if let request = AgentRequest(line: bytes) {
                    answer = await service.answer(
                        request, from: AgentService.Asker(processID: peer.processID, userID: peer.userID))
                    stop = request.operation == .stop && answer.ok
                } else if let version = AgentRequest.version(of: bytes), version != AgentProtocol.version {
                    answer = .failure(
                        .version, "the agent speaks protocol version \(AgentProtocol.version), not \(version)")
                } else {
                    answer = .failure(.badRequest, "the request is not one JSON line of the agent protocol")
                }
            case .tooLong:
                answer = .failure(
                    .badRequest, "the request is longer than \(AgentProtocol.maximumRequestLength / 1024) KiB")
            }
            try await outbound.write(ByteBuffer(bytes: answer.line()))
        }
        if stop { await service.stopRequested() }
    }
}
