// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthSystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The accepting side of a Unix stream socket, for a server that accepts on a thread of its own
/// and answers what it can before the connection goes anywhere else: listening, accepting
/// without waiting, who connected, and one read and one send that never wait (the thread waits
/// with ``Descriptor/waitUntilReadable(_:timeout:)``). Every accepted socket is close-on-exec and non-blocking, and no send raises
/// `SIGPIPE`.
package enum AcceptingSocket {
    /// What one ``accept(_:)`` gave.
    package enum Accepted: Sendable, Hashable {
        /// A connection: its descriptor, close-on-exec and non-blocking.
        case connection(Int32)
        /// No connection is waiting.
        case noneWaiting
        /// Accepting failed (out of descriptors, say): the connection, if any, stays queued.
        case failed(SystemError)
    }

    /// What one ``receiveWithoutWaiting(_:into:)`` gave.
    package enum Received: Sendable, Hashable {
        /// This many bytes, at the buffer's start.
        case bytes(Int)
        /// The peer stopped sending, and nothing was left to read.
        case end
        /// Nothing has arrived yet.
        case nothingYet
        /// The read failed (the peer reset the connection, say).
        case failed
    }

    /// Starts listening on the bound `descriptor` with room for `backlog` connections not yet
    /// accepted, and makes it non-blocking (a passed socket that listens already is left
    /// listening).
    package static func listen(_ descriptor: Int32, backlog: Int32) throws(SystemError) {
        guard listenSocket(descriptor, backlog) == 0 else { throw .last }
        Descriptor.setNonBlocking(descriptor)
    }

    /// Accepts one waiting connection on the non-blocking listening `descriptor`, retrying after
    /// signals and past connections the peer abandoned in the queue.
    package static func accept(_ descriptor: Int32) -> Accepted {
        while true {
            var accepted = webauth_accept_cloexec_nonblocking(descriptor)
            if accepted < 0, errno == ENOSYS {
                accepted = acceptSocket(descriptor)
                if accepted >= 0 {
                    _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                    Descriptor.setNonBlocking(accepted)
                    #if !os(Linux)
                        var one: Int32 = 1
                        _ = setsockopt(
                            accepted, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
                    #endif
                }
            }
            if accepted >= 0 { return .connection(accepted) }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN: return .noneWaiting
            default: return .failed(.last)
            }
        }
    }

    /// The process ID and user ID of the process at the other end of the connected `descriptor`
    /// (`SO_PEERCRED`), as they were when it connected; `nil` where the system does not tell,
    /// so that an unknown peer can be refused.
    package static func peer(_ descriptor: Int32) -> (processID: Int32, userID: UInt32)? {
        #if os(Linux)
            var credentials: LocalSocket.PeerCredentials = (0, 0, 0)
            var size = socklen_t(MemoryLayout<LocalSocket.PeerCredentials>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) == 0,
                Int(size) == MemoryLayout<LocalSocket.PeerCredentials>.size
            else { return nil }
            return (credentials.processID, credentials.userID)
        #else
            return nil
        #endif
    }

    /// One read of what has already arrived on `descriptor`, at most `buffer.count` bytes into
    /// `buffer`, never waiting.
    package static func receiveWithoutWaiting(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) -> Received {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return .bytes(count) }
            if count == 0 { return buffer.isEmpty ? .nothingYet : .end }
            if errno == EAGAIN { return .nothingYet }
            if errno != EINTR { return .failed }
        }
    }

    /// One send of as much of `bytes` as fits into `descriptor`'s buffer now, never waiting:
    /// how many bytes went (0 when none fit); `nil` when the send failed (the peer hung up, say).
    package static func sendWithoutWaiting(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int? {
        #if os(Linux)
            let flags = Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)
        #else
            let flags = Int32(MSG_DONTWAIT)
        #endif
        while true {
            let count = send(descriptor, bytes.baseAddress, bytes.count, flags)
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN: return 0
            default: return nil
            }
        }
    }
}

// The C library's `listen` and `accept`, under names the methods do not shadow.
private func listenSocket(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
    listen(descriptor, backlog)
}

private func acceptSocket(_ descriptor: Int32) -> Int32 {
    accept(descriptor, nil, nil)
}
