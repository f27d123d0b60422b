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

/// The accept loop of one scheme's callback socket, on a thread of its own, with one short-lived
/// thread per connection.
///
/// It is `Sendable` because its stored properties are immutable `Sendable` values (descriptors
/// are plain integers) and its mutable state is in a `Mutex`. The descriptors are owned by the
/// accept thread, which alone closes them, after marking the state `stopping` under the lock;
/// the wake-up pipe is written only under that lock and only before `stopping`, so no descriptor
/// is used after it is closed. `exited` is set last, once the socket is removed and the lock
/// released, and is what ``stop()`` waits for.
final class SchemeSocketServer: Sendable {
    let callbacks: AsyncStream<URL>
    private let continuation: AsyncStream<URL>.Continuation
    private let descriptor: Int32
    private let lock: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let socketPath: String
    private let callback: Callback
    private let accepting: @Sendable (URL) -> Bool
    private let configuration: DesktopSchemeReceiver.Configuration
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var exited = false
        var delivered = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Takes ownership of the listening `descriptor` and the held `lock`.
    init(
        descriptor: Int32, lock: Int32, socketPath: String, callback: Callback,
        accepting: @escaping @Sendable (URL) -> Bool, configuration: DesktopSchemeReceiver.Configuration,
        logger: Logger
    ) throws(UnixSocket.Failure) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            let failure = UnixSocket.Failure("cannot create a pipe")
            close(descriptor)
            unlink(socketPath)
            throw failure
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        (callbacks, continuation) = AsyncStream.makeStream(of: URL.self, bufferingPolicy: .bufferingNewest(1))
        self.descriptor = descriptor
        self.lock = lock
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]
        self.socketPath = socketPath
        self.callback = callback
        self.accepting = accepting
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts the accept thread, which keeps the server alive until it stops.
    func start() {
        Thread.detachNewThread { self.acceptLoop() }
    }

    /// Asks the accept thread to stop, without waiting.
    func requestStop() {
        state.withLock { state in
            guard !state.exited, !state.stopping else { return }
            state.stopping = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// Stops the accept thread and waits until the socket is removed and the lock released.
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

    private func acceptLoop() {
        UnixSocket.acceptConnections(
            on: descriptor, wake: wakeRead, maximumConnections: configuration.maxConnections,
            isStopping: { state.withLock { $0.stopping } }, serve: { self.serve($0) })
        shutDown()
    }

    /// Removes the socket (while still holding the lock, so that a successor's socket is never
    /// removed), then releases the lock and closes everything.
    private func shutDown() {
        // Once stopping is set, nobody writes to the wake-up pipe any more (requestStop checks
        // it under the lock), so the pipe can be closed.
        state.withLock { $0.stopping = true }
        continuation.finish()
        close(descriptor)
        unlink(socketPath)
        close(lock)
        close(wakeRead)
        close(wakeWrite)
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
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        let deadline = ContinuousClock.now + configuration.readTimeout
        guard UnixSocket.peerUserID(connection) == geteuid() else {
            logger.debug("refused a connection from another user")
            return
        }
        let verdict: Verdict
        switch UnixSocket.readLine(connection, limit: CallbackSocketProtocol.maximumURLLength, deadline: deadline) {
        case .line(let bytes), .endOfInput(let bytes):
            verdict = offer(bytes)
        case .tooLong:
            verdict = .reply(
                CallbackSocketProtocol.rejectedPrefix
                    + "the URL is longer than \(CallbackSocketProtocol.maximumURLLength / 1024) KiB")
        case .timedOut:
            logger.debug("a connection sent no URL in time")
            return
        case .failed:
            return
        }
        switch verdict {
        case .reply(let reply):
            UnixSocket.writeAll(connection, Array((reply + "\n").utf8), deadline: ContinuousClock.now + .seconds(1))
        case .accepted(let url):
            // Answer first: once the session has the URL its program may exit at once.
            UnixSocket.writeAll(
                connection, Array((CallbackSocketProtocol.accepted + "\n").utf8),
                deadline: ContinuousClock.now + .seconds(1))
            logger.debug("received the callback", metadata: ["url": "\(url.redactedForLogs)"])
            continuation.yield(url)
            continuation.finish()
            // The first accepted callback ends the listening: later URLs find no session.
            requestStop()
        }
    }

    /// What to do with an offered URL.
    private enum Verdict {
        /// Answer with this line; the session keeps waiting (or has finished).
        case reply(String)
        /// The first accepted callback: answer, then hand it to the session.
        case accepted(URL)
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
        guard accepting(url) else {
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
        return first ? .accepted(url) : .reply(CallbackSocketProtocol.finished)
    }
}
