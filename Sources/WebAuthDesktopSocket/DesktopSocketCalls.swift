import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every system call of the desktop code, each in a small function: the private socket
/// directory's checks, the scheme lock, binding a socket for a server (which SwiftNIO then
/// listens on), and the blocking client side of a Unix socket (connect, peer check, read a line,
/// write). The servers themselves run on SwiftNIO and call nothing here but these functions.
package enum DesktopSocketCalls {
    /// A failed call, with a sentence that names what was being done.
    package struct Failure: Error, CustomStringConvertible {
        /// The sentence, with the system's reason.
        package var description: String
        /// The `errno` the call failed with.
        package var errorNumber: Int32

        init(_ what: String, errorNumber: Int32 = errno) {
            self.description = "\(what): \(String(cString: strerror(errorNumber)))"
            self.errorNumber = errorNumber
        }

        /// Whether nothing listens at the path (no socket file, or nobody accepting on it).
        package var isNothingListening: Bool { [ENOENT, ECONNREFUSED].contains(errorNumber) }
    }

    // MARK: - Identity

    /// This process's effective user ID: the only user whose connections are served.
    package static var effectiveUserID: UInt32 { geteuid() }

    /// This process's ID, for names only this process uses.
    package static var processID: Int32 { getpid() }

    /// The socket option that reads a connected Unix socket's peer credentials, as
    /// (`level`, `name`), and the layout of its value: `struct ucred { pid_t; uid_t; gid_t }`,
    /// three 32-bit fields on Linux, of which the second is the user ID. `nil` where the system
    /// has no such option.
    package static var peerCredentialsOption: (level: Int32, name: Int32)? {
        #if os(Linux)
            (SOL_SOCKET, SO_PEERCRED)
        #else
            nil
        #endif
    }

    /// The value `peerCredentialsOption` reads.
    package typealias PeerCredentials = (processID: Int32, userID: UInt32, groupID: UInt32)

    /// The user ID of the process at the other end of a connected Unix socket (`SO_PEERCRED`).
    package static func peerUserID(_ descriptor: Int32) -> UInt32? {
        #if os(Linux)
            var credentials: PeerCredentials = (0, 0, 0)
            var length = socklen_t(MemoryLayout<PeerCredentials>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
                Int(length) == MemoryLayout<PeerCredentials>.size
            else { return nil }
            return credentials.userID
        #else
            var user: uid_t = 0
            var group: gid_t = 0
            guard getpeereid(descriptor, &user, &group) == 0 else { return nil }
            return user
        #endif
    }

    // MARK: - Files

    /// What ``status(_:followingLinks:)`` reports about a path.
    package struct FileStatus: Sendable {
        /// Whether it is a directory (never true for a symbolic link that is not followed).
        package var isDirectory: Bool
        /// Its owner.
        package var ownerID: UInt32
        /// Its permission bits (`0o7777` at most).
        package var permissions: UInt32
    }

    /// `stat` (or `lstat`, when not `followingLinks`) of `path`, or the failure.
    package static func status(_ path: String, followingLinks: Bool) -> Result<FileStatus, Failure> {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { return .failure(Failure("cannot read \(path)")) }
        return .success(
            FileStatus(
                isDirectory: info.st_mode & S_IFMT == S_IFDIR, ownerID: info.st_uid,
                permissions: UInt32(info.st_mode & 0o7777)))
    }

    /// Whether a failure says that the path does not exist.
    package static func isMissing(_ failure: Failure) -> Bool { failure.errorNumber == ENOENT }

    /// Creates the directory `path` with mode 0700; an existing one is not an error.
    package static func makePrivateDirectory(_ path: String) throws(Failure) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw Failure("cannot create \(path)") }
    }

    /// Removes the file `path`; returns whether there was one.
    @discardableResult
    package static func removeFile(_ path: String) -> Bool { unlink(path) == 0 }

    /// Renames `source` to `destination`, replacing it.
    package static func rename(_ source: String, to destination: String) throws(Failure) {
        #if canImport(Glibc)
            let renamed = Glibc.rename(source, destination)
        #elseif canImport(Musl)
            let renamed = Musl.rename(source, destination)
        #else
            let renamed = Darwin.rename(source, destination)
        #endif
        guard renamed == 0 else {
            throw Failure("cannot move \(source) into place at \(destination)")
        }
    }

    /// Closes a descriptor this code owns.
    package static func close(_ descriptor: Int32) {
        _ = closeDescriptor(descriptor)
    }

    /// Why ``lockExclusively(_:)`` did not get the lock.
    package enum LockFailure: Error {
        /// Another holder has it.
        case busy
        /// The file could not be opened or locked.
        case failed(Failure)
    }

    /// Opens (creating, mode 0600, never through a symbolic link) and `flock`s `path`
    /// exclusively without waiting; returns the descriptor that holds the lock until closed.
    package static func lockExclusively(_ path: String) -> Result<Int32, LockFailure> {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return .failure(.failed(Failure("cannot open \(path)"))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = Failure("cannot lock \(path)")
            _ = closeDescriptor(descriptor)
            return .failure(failure.errorNumber == EWOULDBLOCK ? .busy : .failed(failure))
        }
        return .success(descriptor)
    }

    // MARK: - Sockets

    /// The longest socket path `sockaddr_un` holds (108 bytes with the terminating NUL on Linux).
    package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// A stream socket bound at `path` with mode 0600, not yet listening: a server hands it to
    /// SwiftNIO, which listens on it.
    ///
    /// The mode is set between `bind` and `listen`: nothing can connect before `listen`, so the
    /// socket is never reachable with a wider mode. (`umask` is process-wide and is left alone.)
    package static func makeBoundSocket(at path: String) throws(Failure) -> Int32 {
        var address = try socketAddress(path)
        let descriptor = try makeSocket()
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let failure = Failure("cannot bind \(path)")
            _ = closeDescriptor(descriptor)
            throw failure
        }
        guard chmod(path, 0o600) == 0 else {
            let failure = Failure("cannot set the mode of \(path)")
            _ = closeDescriptor(descriptor)
            unlink(path)
            throw failure
        }
        return descriptor
    }

    /// Connects to the socket at `path`. Blocks.
    package static func makeConnection(to path: String) throws(Failure) -> Int32 {
        var address = try socketAddress(path)
        let descriptor = try makeSocket()
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let failure = Failure("cannot connect to \(path)")
            _ = closeDescriptor(descriptor)
            throw failure
        }
        return descriptor
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

    /// Reads up to the first `\n`, at most `limit` bytes before it, until `deadline`. Blocks.
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

    /// Writes all of `bytes`, giving up at `deadline`. Never raises `SIGPIPE`. Blocks.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
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
    private static func waitUntilReadable(_ descriptor: Int32, deadline: ContinuousClock.Instant) -> Bool {
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

    private static func remainingMilliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return 0 }
        let milliseconds =
            remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(1, milliseconds))
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

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #elseif canImport(Musl)
            Musl.close(descriptor)
        #else
            Darwin.close(descriptor)
        #endif
    }
}
