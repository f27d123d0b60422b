// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import NIOCore
import WebAuthCore
import WebAuthDesktopSocket
import WebAuthPlatform

/// One scheme's callback socket, on a ``UnixSocketServer``: each connection sends one URL and
/// gets one answer line (see `CallbackSocketProtocol`).
///
/// It is `Sendable` because its stored properties are immutable `Sendable` values (the lock's
/// descriptor is a plain integer) and its mutable state is behind a lock (`Locked`). The lock is closed only
/// by the serving task, once the listener is closed, its connections have ended and the socket
/// file is removed; `exited` is set after that and is what ``stop()`` waits for.
final class SchemeSocketServer: Sendable {
    let callbacks: AsyncStream<ReceivedCallback>
    private let continuation: AsyncStream<ReceivedCallback>.Continuation
    private let server: UnixSocketServer
    private let lock: Int32
    private let socketPath: String
    private let callback: Callback
    /// The session's verdict on a URL, asked once per URL.
    private let deciding: @Sendable (URL) -> CallbackVerdict
    private let logger: Logger
    private let state = Locked(State())

    private struct State {
        var stopping = false
        var exited = false
        var delivered = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The bounds a scheme socket's connections get from `configuration`.
    static func limits(_ configuration: DesktopSchemeReceiver.Configuration) -> UnixSocketServer.Limits {
        UnixSocketServer.Limits(
            maximumConnections: configuration.maxConnections,
            maximumLineLength: CallbackSocketProtocol.maximumURLLength, firstLineTimeout: configuration.readTimeout)
    }

    /// Takes ownership of the listening `server` and the held `lock`; ``start()`` serves.
    init(
        server: UnixSocketServer, lock: Int32, socketPath: String, callback: Callback,
        deciding: @escaping @Sendable (URL) -> CallbackVerdict, logger: Logger
    ) {
        (callbacks, continuation) = AsyncStream.makeStream(
            of: ReceivedCallback.self, bufferingPolicy: .bufferingNewest(1))
        self.server = server
        self.lock = lock
        self.socketPath = socketPath
        self.callback = callback
        self.deciding = deciding
        self.logger = logger
    }

    /// Starts serving connections, in a task that keeps the server alive until it stops.
    func start() {
        Task {
            await server.run(cancellingConnectionsAtClose: true) { connection in await self.serve(connection) }
            shutDown()
        }
    }

    /// Stops accepting, without waiting.
    func requestStop() {
        let first = state.withLock { state in
            guard !state.exited, !state.stopping else { return false }
            state.stopping = true
            return true
        }
        if first { server.requestClose() }
    }

    /// Stops accepting and waits until the socket is removed and the lock released.
    func stop() async {
        requestStop()
        await withCheckedContinuation { continuation in
            let exited = state.withLock { state in
                if state.exited { return true }
                state.exitWaiters.append(continuation)
                return false
            }
            if exited { continuation.resume() }
        }
    }

    /// Removes the socket (while still holding the lock, so that a successor's socket is never
    /// removed), then releases the lock. The listener is closed and every connection has ended.
    private func shutDown() {
        state.withLock { $0.stopping = true }
        continuation.finish()
        DesktopSocketCalls.removeFile(socketPath)
        DesktopSocketCalls.close(lock)
        logger.debug("stopped waiting for callbacks", metadata: ["socket": "\(socketPath)"])
        // Only now is the server exited, and `stop()` returns: the socket is gone and the lock
        // released, so a new session for the scheme can start at once.
        let waiters = state.withLock { state in
            state.exited = true
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Reads one URL from `connection`, answers, and closes it.
    private func serve(_ connection: UnixSocketServer.Connection) async {
        try? await connection.executeThenClose { inbound, outbound in
            var lines = inbound.makeAsyncIterator()
            guard let first = try await lines.next() else {
                logger.debug("a connection sent no URL in time")
                return
            }
            let verdict: Verdict
            switch first {
            case .line(let bytes), .endOfInput(let bytes):
                verdict = offer(bytes)
            case .tooLong:
                verdict = .reply(
                    CallbackSocketProtocol.rejectedPrefix
                        + "the URL is longer than \(CallbackSocketProtocol.maximumURLLength / 1024) KiB")
            }
            switch verdict {
            case .reply(let reply):
                try await outbound.write(ByteBuffer(string: reply + "\n"))
            case .accepted(let received):
                // Answer first: once the session has the URL its program may exit at once.
                try? await outbound.write(ByteBuffer(string: CallbackSocketProtocol.accepted + "\n"))
                logger.debug("received the callback", metadata: ["url": "\(received.url.redactedForLogs)"])
                continuation.yield(received)
                continuation.finish()
                // The first accepted callback ends the listening: later URLs find no session.
                requestStop()
            }
        }
    }

    /// What to do with an offered URL.
    private enum Verdict {
        /// Answer with this line; the session keeps waiting (or has finished).
        case reply(String)
        /// The first accepted callback, as the session's verdict carried it: answer, then hand
        /// it to the session.
        case accepted(ReceivedCallback)
    }

    /// Checks an offered URL; the first accepted one is claimed for the session.
    private func offer(_ bytes: [UInt8]) -> Verdict {
        let url: URL
        switch CallbackSocketProtocol.parseURL(bytes) {
        case .success(let parsed): url = parsed
        case .failure(let rejection):
            logger.debug("refused a malformed callback", metadata: ["reason": "\(rejection)"])
            return .reply(CallbackSocketProtocol.rejectedPrefix + rejection.description)
        }
        guard callback.matchesURL(url) else {
            logger.debug("refused a URL for another callback", metadata: ["url": "\(url.redactedForLogs)"])
            return .reply(
                CallbackSocketProtocol.rejectedPrefix + "\(url.redactedForLogs) is not the callback \(callback)")
        }
        guard let received = deciding(url).accepted else {
            logger.debug("refused a callback the session did not accept", metadata: ["url": "\(url.redactedForLogs)"])
            return .reply(
                CallbackSocketProtocol.rejectedPrefix
                    + "the session did not accept this callback (unexpected state or parameters)")
        }
        let first = state.withLock { state in
            guard !state.delivered, !state.stopping else { return false }
            state.delivered = true
            return true
        }
        return first ? .accepted(received) : .reply(CallbackSocketProtocol.finished)
    }
}
