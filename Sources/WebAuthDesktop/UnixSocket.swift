import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX calls the callback socket needs, on plain file descriptors.
package enum UnixSocket {
    /// A failed call, with a sentence that names what was being done.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        var errorNumber: Int32

        init(_ what: String, errorNumber: Int32 = errno) {
            self.description = "\(what): \(String(cString: strerror(errorNumber)))"
            self.errorNumber = errorNumber
        }
    }

    /// The longest socket path `sockaddr_un` holds (108 bytes with the terminating NUL on Linux).
    static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Creates a listening stream socket at `path` with mode 0600.
    ///
    /// The mode is set between `bind` and `listen`: nothing can connect before `listen`, so the
    /// socket is never reachable with a wider mode. (`umask` is process-wide and is left alone.)
    static func makeListeningSocket(at path: String, backlog: Int32 = 16) throws(Failure) -> Int32 {
        var address = try socketAddress(path)
        let descriptor = try makeSocket()
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let failure = Failure("cannot bind \(path)")
            close(descriptor)
            throw failure
        }
        guard chmod(path, 0o600) == 0 else {
            let failure = Failure("cannot set the mode of \(path)")
            close(descriptor)
            unlink(path)
            throw failure
        }
        guard listen(descriptor, backlog) == 0 else {
            let failure = Failure("cannot listen on \(path)")
            close(descriptor)
            unlink(path)
            throw failure
        }
        return descriptor
    }

    /// Connects to the socket at `path`.
    static func makeConnection(to path: String) throws(Failure) -> Int32 {
        var address = try socketAddress(path)
        let descriptor = try makeSocket()
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let failure = Failure("cannot connect to \(path)")
            close(descriptor)
            throw failure
        }
        return descriptor
    }

    /// A new Unix stream socket that is closed on `exec` and never raises `SIGPIPE`.
    private static func makeSocket() throws(Failure) -> Int32 {
        #if os(Linux)
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw Failure("cannot create a Unix socket") }
        #else
            let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
            guard descriptor >= 0 else { throw Failure("cannot create a Unix socket") }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return descriptor
    }

    /// The user ID of the process at the other end of a connected Unix socket (`SO_PEERCRED`).
    static func peerUserID(_ descriptor: Int32) -> uid_t? {
        #if os(Linux)
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — three 32-bit fields on Linux.
            var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
            var length = socklen_t(MemoryLayout.size(ofValue: credentials))
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
                Int(length) == MemoryLayout.size(ofValue: credentials)
            else { return nil }
            return credentials.1
        #else
            var user: uid_t = 0
            var group: gid_t = 0
            guard getpeereid(descriptor, &user, &group) == 0 else { return nil }
            return user
        #endif
    }

    /// How reading a line ended.
    package enum LineResult: Equatable {
        /// The bytes before the first `\n`.
        case line([UInt8])
        /// The peer closed (or sent nothing more) before a `\n`; the bytes received.
        case endOfInput([UInt8])
        /// More than the limit arrived without a `\n`.
        case tooLong
        /// The deadline passed first.
        case timedOut
        /// Reading failed.
        case failed
    }

    /// Reads up to the first `\n`, at most `limit` bytes before it, until `deadline`.
    package static func readLine(_ descriptor: Int32, limit: Int, deadline: ContinuousClock.Instant) -> LineResult {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                return newline <= limit ? .line(Array(received[..<newline])) : .tooLong
            }
            if received.count > limit { return .tooLong }
            guard waitUntilReadable(descriptor, deadline: deadline) else { return .timedOut }
            let count = read(descriptor, &buffer, min(buffer.count, limit + 1 - received.count + 1))
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return .failed
            }
            if count == 0 { return .endOfInput(received) }
            received += buffer[..<count]
        }
    }

    /// Writes all of `bytes`, giving up at `deadline`. Never raises `SIGPIPE`.
    @discardableResult
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            var state = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&state, 1, remainingMilliseconds(until: deadline)) > 0 else { return false }
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, noSignalFlag)
            }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Waits until `descriptor` has something to read (or is closed), or `deadline` passes.
    static func waitUntilReadable(_ descriptor: Int32, deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = remainingMilliseconds(until: deadline)
            guard remaining > 0 else { return false }
            var state = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&state, 1, remaining)
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { return true }  // let the read report the error
        }
    }

    #if os(Linux)
        private static let noSignalFlag = Int32(MSG_NOSIGNAL)
    #else
        private static let noSignalFlag: Int32 = 0  // SO_NOSIGPIPE is set on the socket instead
    #endif

    static func remainingMilliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return 0 }
        let milliseconds =
            remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, milliseconds))
    }

    private static func socketAddress(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else {
            throw Failure(
                "the socket path \(path) is longer than \(maximumPathLength) bytes", errorNumber: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Accepts connections on the listening socket `listening` until `wake` becomes readable
    /// and `isStopping()` says so (or `poll` fails), giving each connection a thread of its own
    /// for `serve`, which owns the descriptor. A connection beyond `maximumConnections` served
    /// at once is closed at once. Blocks the calling thread, the server's accept thread.
    static func acceptConnections(
        on listening: Int32, wake: Int32, maximumConnections: Int, isStopping: () -> Bool,
        serve: @escaping @Sendable (Int32) -> Void
    ) {
        let serving = ServingCount()
        while true {
            var descriptors = [
                pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, -1)
            if isStopping() { return }
            if ready < 0 && errno != EINTR { return }
            guard ready > 0, descriptors[0].revents & Int16(POLLIN) != 0 else { continue }
            let connection = accept(listening, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            guard serving.enter(limit: maximumConnections) else {
                close(connection)
                continue
            }
            Thread.detachNewThread {
                serve(connection)
                serving.leave()
            }
        }
    }

    /// How many connections an accept loop is serving.
    private final class ServingCount: Sendable {
        private let count = Mutex(0)

        /// Counts one more, unless `limit` are served already.
        func enter(limit: Int) -> Bool {
            count.withLock { count in
                guard count < limit else { return false }
                count += 1
                return true
            }
        }

        /// Counts one fewer.
        func leave() { count.withLock { $0 -= 1 } }
    }
}
