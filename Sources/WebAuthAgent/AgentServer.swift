// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
package import Logging
import NIOCore
import NIOPosix
import Synchronization
package import WebAuthAgentProtocol
package import WebAuthDesktop
import WebAuthDesktopSocket
import WebAuthPlatform
import WebAuthTokenStore

/// The agent's two sockets: where they listen, how a stale or foreign socket there is treated,
/// and the serving of connections — one request line, one answer line — on a
/// ``UnixSocketServer`` each (same user and root only, bounded lines, a deadline on the
/// request).
///
/// The full socket is the one the environment names (``AgentSocketPath``); the forwarding
/// socket, meant for `ssh -R` and containers, is beside it (``AgentSocketPath/forwardingPath``)
/// and serves only tokens of forwarded profiles (``AgentDoor``). Under systemd socket
/// activation (`LISTEN_FDS`, `LISTEN_PID`) descriptor 3 is the full socket and descriptor 4,
/// when passed, the forwarding one. A socket file already at a path is replaced when it is this
/// user's and nothing answers on it (left by an agent that died), and refused — with a message
/// naming its owner — when another user owns it or an agent answers there. Each socket is made
/// under a name of its own, mode 0600, and renamed into place once it listens; both are removed
/// when the agent stops (unless systemd passed them).
package final class AgentServer: Sendable {
    /// Why the agent could not start.
    package struct StartFailure: Error, CustomStringConvertible {
        /// A sentence naming the path and what is wrong.
        package let description: String
    }

    /// The one event loop the connections of both sockets run on once they are channels. A
    /// held, fresh token is answered before that, by the socket's accepting thread
    /// (``UnixSocketServer``'s front door): an accept, a peer check, a read, a send and a close.
    static let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

    /// The bounds on the agent's connections.
    package static let limits = UnixSocketServer.Limits(
        maximumConnections: 256, maximumLineLength: AgentProtocol.maximumRequestLength,
        firstLineTimeout: AgentProtocol.requestTimeout, servesRoot: true)

    /// The full socket's path (for a passed descriptor, the path the environment names).
    package let path: String
    /// The forwarding socket's path; `nil` when systemd passed the full socket alone.
    package let forwardingPath: String?
    private let servers: [(door: AgentDoor, server: UnixSocketServer)]
    private let service: AgentService
    private let ownsPaths: Bool
    private let logger: Logger

    private init(
        path: String, forwardingPath: String?, servers: [(door: AgentDoor, server: UnixSocketServer)],
        service: AgentService, ownsPaths: Bool, logger: Logger
    ) {
        self.path = path
        self.forwardingPath = forwardingPath
        self.servers = servers
        self.service = service
        self.ownsPaths = ownsPaths
        self.logger = logger
    }

    /// Listens for `service`: on the descriptors systemd passed when `environment` says so, else
    /// at `socket`'s paths, prepared as the type describes.
    package static func start(
        service: AgentService, socket: AgentSocketPath, environment: [String: String], logger: Logger
    ) async throws -> AgentServer {
        if let passed = passedDescriptors(environment: environment) {
            var servers: [(door: AgentDoor, server: UnixSocketServer)] = []
            for (door, descriptor) in zip([AgentDoor.full, .forwarding], passed) {
                let server = try await UnixSocketServer.start(
                    descriptor: descriptor, limits: limits, logger: logger, immediate: immediateAnswer(service, door),
                    group: eventLoop
                ).get()
                servers.append((door, server))
            }
            let forwarding = passed.count > 1 ? socket.forwardingPath : nil
            if let forwarding { await service.servesForwarding(at: forwarding) }
            return AgentServer(
                path: socket.path, forwardingPath: forwarding, servers: servers, service: service, ownsPaths: false,
                logger: logger)
        }
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
                throw StartFailure(description: error.message)
            }
        }
        var servers: [(door: AgentDoor, server: UnixSocketServer)] = []
        var placed: [String] = []
        do {
            for (door, path) in [(AgentDoor.full, socket.path), (.forwarding, socket.forwardingPath)] {
                servers.append((door, try await listen(at: path, door: door, service: service, logger: logger)))
                placed.append(path)
            }
        } catch {
            for (_, server) in servers { await server.closeUnserved() }
            for path in placed { DesktopSocketCalls.removeFile(path) }
            throw error
        }
        await service.servesForwarding(at: socket.forwardingPath)
        return AgentServer(
            path: socket.path, forwardingPath: socket.forwardingPath, servers: servers, service: service,
            ownsPaths: true, logger: logger)
    }

    /// Listens at `path` for requests through `door`: a stale socket there replaced, the new
    /// one made as ``UnixSocketServer/listen(at:pendingPath:limits:logger:immediate:group:)``
    /// makes it.
    private static func listen(
        at path: String, door: AgentDoor, service: AgentService, logger: Logger
    ) async throws -> UnixSocketServer {
        try replaceStaleSocket(at: path)
        do {
            return try await UnixSocketServer.listen(
                at: path, pendingPath: path + ".\(CurrentProcess.id).new", limits: limits, logger: logger,
                immediate: immediateAnswer(service, door), group: eventLoop
            ).get()
        } catch {
            throw StartFailure(description: "\(error)")
        }
    }

    /// What a server answers at once, on its accepting thread or its event loop: a token the
    /// service holds ready for requests through `door` (see
    /// ``AgentService/immediateAnswer(to:through:)``).
    static func immediateAnswer(_ service: AgentService, _ door: AgentDoor) -> UnixSocketServer.ImmediateAnswer {
        { first, _ in
            guard case .line(let bytes) = first else { return nil }
            return service.immediateAnswer(to: bytes, through: door)
        }
    }

    /// The descriptors systemd passed — 3, and 4 when `LISTEN_FDS` is at least 2 — when
    /// `LISTEN_PID` is this process and `LISTEN_FDS` is at least 1.
    static func passedDescriptors(environment: [String: String]) -> [Int32]? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == CurrentProcess.id,
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return nil }
        return count >= 2 ? [3, 4] : [3]
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

    /// Serves until ``requestStop()`` (or a `stop` request); then removes the sockets (when it
    /// made them) and returns.
    package func run() async {
        let service = service
        let servers = servers
        await service.onStop { for (_, server) in servers { server.requestClose() } }
        let ticker = Task { await service.keepTime() }
        await withDiscardingTaskGroup { group in
            for (door, server) in servers {
                group.addTask {
                    await server.run(cancellingConnectionsAtClose: true) { connection, peer in
                        await Self.serve(
                            connection, asker: AgentService.Asker(processID: peer.processID, userID: peer.userID),
                            door: door, service: service)
                    }
                    // One socket closing (a stop, a signal) closes the other.
                    for (_, other) in servers { other.requestClose() }
                }
            }
        }
        ticker.cancel()
        if ownsPaths {
            DesktopSocketCalls.removeFile(path)
            if let forwardingPath { DesktopSocketCalls.removeFile(forwardingPath) }
        }
        logger.info("stopped")
    }

    /// Stops accepting; ``run()`` then returns.
    package func requestStop() {
        for (_, server) in servers { server.requestClose() }
    }

    /// Serves one connection handed over by its server, from `asker`: has
    /// ``reply(to:from:door:service:)`` answer its first line and writes the answer, made into
    /// bytes there and only there (``AgentReply/line``); then, after a `stop`, stops the agent.
    package static func serve(
        _ connection: UnixSocketServer.Connection, asker: AgentService.Asker, door: AgentDoor, service: AgentService
    ) async {
        var stop = false
        try? await connection.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            guard let first = try await lines.next() else { return }
            let (reply, stops) = await reply(to: first, from: asker, door: door, service: service)
            stop = stops
            try await outbound.write(ByteBuffer(bytes: reply.line))
        }
        if stop { await service.stopRequested() }
    }

    /// The reply to a connection's first line from `asker`, come in through `door`: the line
    /// read once (``AgentRequest/read(_:)``), which also checks its version, and answered by
    /// `service`; and whether it was a `stop` the agent now does.
    package static func reply(
        to first: SocketLine, from asker: AgentService.Asker, door: AgentDoor, service: AgentService
    ) async -> (reply: AgentReply, stops: Bool) {
        switch first {
        case .line(let bytes), .endOfInput(let bytes):
            switch AgentRequest.read(bytes) {
            case .request(let request):
                let reply = await service.reply(to: request, line: bytes, from: asker, through: door)
                return (reply, request.operation == .stop && reply.ok)
            case .otherVersion(let version):
                return (
                    .answer(
                        .failure(.version, "the agent speaks protocol version \(AgentProtocol.version), not \(version)")
                    ), false
                )
            case .unreadable:
                return (.answer(.failure(.badRequest, "the request is not one JSON line of the agent protocol")), false)
            }
        case .tooLong:
            return (
                .answer(
                    .failure(
                        .badRequest, "the request is longer than \(AgentProtocol.maximumRequestLength / 1024) KiB")),
                false
            )
        }
    }
}
