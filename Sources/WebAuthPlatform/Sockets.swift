// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unix domain stream sockets on the client side: connecting within a deadline, who listens,
/// and whole sends and receives within a deadline. Every socket is close-on-exec and
/// non-blocking, and no send raises `SIGPIPE` (a peer that hung up is a failed send).
///
/// ```swift
/// let socket = try LocalSocket.connect(.path("/run/user/1000/bus"), deadline: .now + .seconds(2))
/// guard LocalSocket.peerUserID(socket) == CurrentProcess.effectiveUserID else { … }
/// ```
package enum LocalSocket {
    /// Where a Unix socket listens.
    package enum Address: Sendable, Hashable {
        /// A path in the file system.
        case path(String)
        /// A name in Linux's abstract namespace (no file; the leading NUL is added here).
        case abstract(String)
    }

    /// The longest path a socket address holds, in bytes, without the terminating NUL (107 on
    /// Linux, 103 on macOS).
    package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Why a connection was not made.
    package enum ConnectFailure: Error, Sendable, Hashable {
        /// No socket could be made, the address is too long, or the connection was refused;
        /// with the system's reason.
        case unreachable(SystemError)
        /// The deadline passed first.
        case timedOut

        /// Whether nothing listens at the address: no socket file, or nobody accepting on it.
        package var isNothingListening: Bool {
            guard case .unreachable(let reason) = self else { return false }
            return reason == .noSuchEntry || reason == .connectionRefused
        }
    }

    /// Connects to `address` before `deadline`: a non-blocking connect, retried while the
    /// listener's queue is full (it may be slow, or never accept), given up at the deadline.
    /// The connected socket, close-on-exec and non-blocking.
    package static func connect(
        _ address: Address, deadline: ContinuousClock.Instant
    ) throws(ConnectFailure) -> Int32 {
        guard case (var endpoint, let length)? = socketAddress(address) else { throw .unreachable(.nameTooLong) }
        let descriptor = makeStreamSocket(nonBlocking: true)
        guard descriptor >= 0 else { throw .unreachable(.last) }
        while true {
            let result = withUnsafePointer(to: &endpoint) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectSocket(descriptor, $0, length) }
            }
            if result == 0 { return descriptor }
            switch errno {
            case EINTR:
                continue
            case EINPROGRESS:
                // Not what a Unix socket says on Linux, but should it: wait for the result.
                guard Descriptor.wait(descriptor, forWriting: true, deadline: deadline) else {
                    Descriptor.close(descriptor)
                    throw .timedOut
                }
                var error: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0, error == 0 else {
                    let reason = error == 0 ? SystemError.last : SystemError(number: error)
                    Descriptor.close(descriptor)
                    throw .unreachable(reason)
                }
                return descriptor
            case EAGAIN:
                // The listener's queue is full: try again shortly, until the deadline.
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else {
                    Descriptor.close(descriptor)
                    throw .timedOut
                }
                let nap = min(left, .milliseconds(5))
                var pause = timespec(tv_sec: 0, tv_nsec: Int(nap.components.attoseconds / 1_000_000_000))
                _ = nanosleep(&pause, nil)
            default:
                let reason = SystemError.last
                Descriptor.close(descriptor)
                throw .unreachable(reason)
            }
        }
    }

    /// A stream socket bound at the file-system `path` with permission bits `mode`, close-on-exec,
    /// not yet listening: a server hands it to its event loop, which listens on it.
    ///
    /// The mode is set between `bind` and `listen`: nothing can connect before `listen`, so the
    /// socket is never reachable with a wider mode (and the process-wide `umask` is left alone).
    /// On failure nothing is left behind: no descriptor, no socket file.
    package static func bindForListening(at path: String, mode: UInt32) throws(SystemError) -> Int32 {
        guard case (var address, let length)? = socketAddress(.path(path)) else { throw .nameTooLong }
        let descriptor = makeStreamSocket(nonBlocking: false)
        guard descriptor >= 0 else { throw .last }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let reason = SystemError.last
            Descriptor.close(descriptor)
            throw reason
        }
        guard chmod(path, mode_t(mode)) == 0 else {
            let reason = SystemError.last
            Descriptor.close(descriptor)
            unlink(path)
            throw reason
        }
        return descriptor
    }

    /// The socket option that reads a connected Unix socket's peer credentials, as (`level`,
    /// `name`) for an event loop's socket-option call, whose value is a ``PeerCredentials``:
    /// `SO_PEERCRED` on Linux. `nil` where the system has no such option (macOS has
    /// `LOCAL_PEERCRED` with another layout; ``peerUserID(_:)`` asks `getpeereid` there).
    package static var peerCredentialsOption: (level: Int32, name: Int32)? {
        #if os(Linux)
            (SOL_SOCKET, SO_PEERCRED)
        #else
            nil
        #endif
    }

    /// The value ``peerCredentialsOption`` reads: Linux's `struct ucred { pid_t; uid_t; gid_t }`,
    /// three 32-bit fields.
    package typealias PeerCredentials = (processID: Int32, userID: UInt32, groupID: UInt32)

    /// The user ID of the process that listens on the other end of the connected `descriptor`
    /// (`SO_PEERCRED` on Linux, `getpeereid` elsewhere), taken when it started listening;
    /// `nil` when the system does not tell.
    package static func peerUserID(_ descriptor: Int32) -> UInt32? {
        #if os(Linux)
            var credentials: PeerCredentials = (0, 0, 0)
            var size = socklen_t(MemoryLayout<PeerCredentials>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
                Int(size) == MemoryLayout<PeerCredentials>.size
            else { return nil }
            return credentials.userID
        #else
            var user: uid_t = 0
            var group: gid_t = 0
            return getpeereid(descriptor, &user, &group) == 0 ? user : nil
        #endif
    }

    /// Sends all of `bytes` on the non-blocking `descriptor`, waiting only while the socket is
    /// full (a send is tried first: a new connection's buffer nearly always takes a request at
    /// once); `false` on an error or when `deadline` passes.
    package static func sendAll(_ descriptor: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
        var written = 0
        while written < bytes.count {
            let (count, error) = bytes[written...].withUnsafeBytes { bytes in
                let count = sendBytes(descriptor, bytes.baseAddress, bytes.count)
                return (count, count < 0 ? errno : 0)
            }
            if count > 0 {
                written += count
            } else if count < 0, error != EINTR, error != EAGAIN {
                return false
            } else if error != EINTR {
                guard Descriptor.wait(descriptor, forWriting: true, deadline: deadline) else { return false }
            }
        }
        return true
    }

    /// Reads what has arrived on the non-blocking `descriptor`, at most `maximum` bytes,
    /// waiting for it when nothing has yet; `nil` at the end of the stream, on an error or when
    /// `deadline` passes. The buffer is not cleared first: only the pages the read fills are
    /// touched.
    package static func receive(
        _ descriptor: Int32, maximum: Int, deadline: ContinuousClock.Instant
    ) -> [UInt8]? {
        while true {
            var error: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, initialized in
                let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
                initialized = max(count, 0)
                error = count < 0 ? errno : (count == 0 ? -1 : 0)
            }
            if !bytes.isEmpty { return bytes }
            if error == -1 || (error != EINTR && error != EAGAIN) { return nil }
            // Nothing yet (or a signal): wait, then read again. An answer that came before the
            // first read was taken without a wait.
            if error == EAGAIN {
                guard Descriptor.wait(descriptor, forWriting: false, deadline: deadline) else { return nil }
            }
        }
    }
    /// The socket address of `address` and its length; `nil` when the name does not fit.
    private static func socketAddress(_ address: Address) -> (sockaddr_un, socklen_t)? {
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch address {
        case .path(let path):
            name = Array(path.utf8)
            guard !name.isEmpty, !name.contains(0) else { return nil }
        case .abstract(let abstract):
            name = [0] + Array(abstract.utf8)
        }
        guard name.count <= maximumPathLength else { return nil }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (name.first == 0 ? 0 : 1))
        return (socketAddress, length)
    }

    /// A new Unix stream socket, close-on-exec from the start, on which no send raises `SIGPIPE`
    /// (`MSG_NOSIGNAL` per send on Linux, `SO_NOSIGPIPE` on the socket elsewhere); -1 on failure.
    private static func makeStreamSocket(nonBlocking: Bool) -> Int32 {
        #if os(Linux)
            var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
            return socket(AF_UNIX, type, 0)
        #else
            let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
            guard descriptor >= 0 else { return descriptor }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            if nonBlocking { Descriptor.setNonBlocking(descriptor) }
            var one: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            return descriptor
        #endif
    }
}

/// A Linux netlink socket for one request-and-reply exchange at a time with the kernel (such as
/// `NETLINK_SOCK_DIAG`'s exact socket lookup). Elsewhere there is none: ``open(protocol:)``
/// returns `nil`.
package struct NetlinkSocket: ~Copyable {
    /// `NETLINK_SOCK_DIAG`: the kernel's socket table.
    package static let socketDiagnostics: Int32 = 4
    /// `AF_INET`, as the kernel's messages name IPv4.
    package static let internetFamily = UInt8(AF_INET)
    /// `AF_INET6`, as the kernel's messages name IPv6.
    package static let internet6Family = UInt8(AF_INET6)
    /// `IPPROTO_TCP`.
    package static let tcpProtocol = UInt8(IPPROTO_TCP)

    private let descriptor: Int32

    /// A datagram netlink socket of `netlinkProtocol`, close-on-exec; `nil` where there is none.
    package static func open(protocol netlinkProtocol: Int32) -> NetlinkSocket? {
        #if os(Linux)
            let descriptor = socket(
                AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), netlinkProtocol)
            return descriptor >= 0 ? NetlinkSocket(descriptor: descriptor) : nil
        #else
            return nil
        #endif
    }

    /// Sends `request` and takes the kernel's reply, which it gives within the send (nothing is
    /// waited for), at most `maximum` bytes; `nil` when either fails.
    package func exchange(_ request: [UInt8], maximum: Int) -> [UInt8]? {
        let sent = request.withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count) }
        guard sent == request.count else { return nil }
        var reply = [UInt8](repeating: 0, count: maximum)
        let received = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard received >= 0 else { return nil }
        return Array(reply[..<received])
    }

    deinit { Descriptor.close(descriptor) }
}

/// What a listening TCP socket can ask of the kernel beyond what SwiftNIO's options name.
package enum ListeningTCPSocket {
    /// The option that keeps a new connection in the kernel until its first byte arrives, as
    /// (`level`, `name`) for an event loop's socket-option call, whose value is the longest such
    /// wait in seconds: `TCP_DEFER_ACCEPT` on Linux. A connection still silent then is accepted
    /// as any other. `nil` where there is no such option (macOS; FreeBSD's nearest is an accept
    /// filter, Windows has none).
    package static var deferAcceptOption: (level: Int32, name: Int32)? {
        #if os(Linux)
            (Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT)
        #else
            nil
        #endif
    }
}

/// `send` without `SIGPIPE` where the flag exists (elsewhere the socket has `SO_NOSIGPIPE`).
private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if os(Linux)
        send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
        send(descriptor, bytes, count, 0)
    #endif
}

// The C library's `connect`, under a name the method does not shadow.
private func connectSocket(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}
