#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The session bus's socket, opened only as far as the stores trust it: the one check both the
/// fast path (before it reads the keyring over D-Bus) and the keyring store (before it runs
/// `secret-tool`, which goes wherever `DBUS_SESSION_BUS_ADDRESS` points) make.
///
/// 1. A non-blocking connect, retried while the listener's queue is full, given up at the
///    deadline: a listener that never accepts cannot hold a call.
/// 2. The listener's credentials (`SO_PEERCRED`, taken when it started listening): this user's
///    or root's. Another user who binds a stale `unix:abstract=` or `/tmp` bus address would
///    otherwise choose the tokens handed to git, kubectl or the terminal.
/// 3. The `EXTERNAL` authentication up to the bus's `OK <guid>`, which must equal the
///    address's `guid=` when it names one.
///
/// After ``open(_:deadline:)`` the socket is non-blocking and waits for `BEGIN`: the caller
/// goes on with the D-Bus protocol, or closes it.
///
/// ```swift
/// switch SessionBusSocket.open(address, deadline: .now + .seconds(2)) {
/// case .success(let descriptor): …  // send "BEGIN\r\n", then messages
/// case .failure(let refusal): print(refusal.description)
/// }
/// ```
package enum SessionBusSocket {
    /// Why a bus is not used.
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// No socket could be made, or the connection failed or was refused.
        case unreachable
        /// The deadline passed before the bus accepted the connection or answered.
        case timedOut
        /// The bus is run by another user.
        case otherUser(uid_t)
        /// The bus's `OK` named another GUID than the address.
        case otherGUID
        /// The bus did not accept this user's `EXTERNAL` authentication, or answered garbage.
        case rejected

        /// The reason, in words; nothing the bus sent is quoted.
        package var description: String {
            switch self {
            case .unreachable: "the session bus cannot be reached"
            case .timedOut: "the session bus did not answer in time"
            case .otherUser(let uid): "the session bus is run by user \(uid), not by this user (\(geteuid()))"
            case .otherGUID: "the session bus is not the one DBUS_SESSION_BUS_ADDRESS names (its guid differs)"
            case .rejected: "the session bus refused this user's authentication"
            }
        }
    }

    /// Connects to `address`, checks who listens and authenticates, all before `deadline`; the
    /// socket (close-on-exec, non-blocking) waiting for `BEGIN`, or why not.
    package static func open(
        _ address: DBusAddress, deadline: ContinuousClock.Instant
    ) -> Result<Int32, Refusal> {
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.unreachable) }
        let result = connect(descriptor, address, deadline: deadline).flatMap {
            peerIsTrusted(descriptor)
        }.flatMap {
            authenticate(descriptor, guid: address.guid, deadline: deadline)
        }
        if case .failure = result { close(descriptor) }
        return result.map { descriptor }
    }

    /// Whether `uid` may run the buses the stores use: this user, or root.
    package static func isTrustedOwner(_ uid: uid_t) -> Bool {
        uid == geteuid() || uid == 0
    }

    // MARK: -

    private static func connect(
        _ descriptor: Int32, _ address: DBusAddress, deadline: ContinuousClock.Instant
    ) -> Result<Void, Refusal> {
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch address.socket {
        case .path(let path): name = Array(path.utf8)
        case .abstract(let abstract): name = [0] + Array(abstract.utf8)  // a leading NUL: abstract
        }
        guard name.count < MemoryLayout.size(ofValue: socketAddress.sun_path) else { return .failure(.unreachable) }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (name.first == 0 ? 0 : 1))
        while true {
            let result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectSocket(descriptor, $0, length) }
            }
            if result == 0 { return .success(()) }
            switch errno {
            case EINTR:
                continue
            case EINPROGRESS:
                // Not what a Unix socket says, but should it: wait for the result.
                guard wait(descriptor, for: Int16(POLLOUT), deadline: deadline) else { return .failure(.timedOut) }
                var error: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0 else {
                    return .failure(.unreachable)
                }
                return .success(())
            case EAGAIN:
                // The listener's queue is full: it may be slow, or never accept. Try again
                // shortly, until the deadline.
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return .failure(.timedOut) }
                let nap = min(left, .milliseconds(5))
                var pause = timespec(tv_sec: 0, tv_nsec: Int(nap.components.attoseconds / 1_000_000_000))
                _ = nanosleep(&pause, nil)
            default:
                return .failure(.unreachable)
            }
        }
    }

    private static func peerIsTrusted(_ descriptor: Int32) -> Result<Void, Refusal> {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — three 32-bit fields on Linux.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
            Int(size) == MemoryLayout.size(ofValue: credentials)
        else { return .failure(.unreachable) }
        return isTrustedOwner(credentials.1) ? .success(()) : .failure(.otherUser(credentials.1))
    }

    /// A NUL, `AUTH EXTERNAL <uid in hex>`, and the bus's `OK <guid>` line — with nothing after
    /// it: a bus says nothing more before `BEGIN`.
    private static func authenticate(
        _ descriptor: Int32, guid expected: String?, deadline: ContinuousClock.Instant
    ) -> Result<Void, Refusal> {
        let uid = Array(String(geteuid()).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        let request = [0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8)
        var written = 0
        while written < request.count {
            guard wait(descriptor, for: Int16(POLLOUT), deadline: deadline) else { return .failure(.timedOut) }
            let count = request[written...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                written += count
            } else if count < 0, errno != EINTR, errno != EAGAIN {
                return .failure(.unreachable)
            }
        }
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !line.contains(UInt8(ascii: "\n")) {
            guard line.count < 512 else { return .failure(.rejected) }
            guard wait(descriptor, for: Int16(POLLIN), deadline: deadline) else { return .failure(.timedOut) }
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                line += buffer[..<count]
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                return .failure(.unreachable)
            }
        }
        guard line.last == UInt8(ascii: "\n"), line.starts(with: Array("OK ".utf8)) else { return .failure(.rejected) }
        let said = String(decoding: line.dropFirst(3).dropLast().filter { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        if let expected, said != expected { return .failure(.otherGUID) }
        return .success(())
    }

    /// Waits until `descriptor` is ready for `events`; `false` when the deadline passes first or
    /// the socket fails.
    package static func wait(_ descriptor: Int32, for events: Int16, deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32((left / .milliseconds(1)).rounded(.up)))
            if ready > 0 { return entry.revents & (events | Int16(POLLHUP)) != 0 }
            if ready < 0, errno != EINTR { return false }
        }
    }
}

// The C library's `connect`, under a name the method does not shadow.
private func connectSocket(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}
