// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthPlatform

/// The desktop code's system calls, in the words it uses them in: the private socket
/// directory's checks, the scheme lock, binding a socket for a server (which SwiftNIO then
/// listens on), and the client side of a Unix socket (connect, peer check, read a line, write).
/// Each is a call into the platform layer (`WebAuthPlatform`), with the failure told as a
/// sentence that names what was being done. The servers themselves run on SwiftNIO and call
/// nothing here but these functions.
package enum DesktopSocketCalls {
    /// A failed call, with a sentence that names what was being done.
    package struct Failure: Error, CustomStringConvertible {
        /// The sentence, with the system's reason.
        package var description: String
        /// The system's reason.
        package var reason: SystemError

        init(_ what: String, _ reason: SystemError) {
            self.description = "\(what): \(reason)"
            self.reason = reason
        }

        /// Whether the path does not exist.
        package var isMissing: Bool { reason == .noSuchEntry }

        /// Whether nothing listens at the path (no socket file, or nobody accepting on it).
        package var isNothingListening: Bool { reason == .noSuchEntry || reason == .connectionRefused }
    }

    // MARK: - Identity

    /// This process's effective user ID: the only user whose connections are served.
    package static var effectiveUserID: UInt32 { CurrentProcess.effectiveUserID }

    /// This process's ID, for names only this process uses.
    package static var processID: Int32 { CurrentProcess.id }

    /// The socket option that reads a connected Unix socket's peer credentials, as
    /// (`level`, `name`), whose value is a ``PeerCredentials``; `nil` where the system has none.
    package static var peerCredentialsOption: (level: Int32, name: Int32)? { LocalSocket.peerCredentialsOption }

    /// The value ``peerCredentialsOption`` reads.
    package typealias PeerCredentials = LocalSocket.PeerCredentials

    /// The user ID of the process at the other end of a connected Unix socket.
    package static func peerUserID(_ descriptor: Int32) -> UInt32? { LocalSocket.peerUserID(descriptor) }

    // MARK: - Files

    /// The status of `path` (of a symbolic link itself unless `followingLinks`), or the failure.
    package static func status(_ path: String, followingLinks: Bool) -> Result<FileStatus, Failure> {
        do {
            return .success(try FileSystem.status(path, followingLinks: followingLinks))
        } catch {
            return .failure(Failure("cannot read \(path)", error))
        }
    }

    /// Creates the directory `path` with mode 0700; an existing one is not an error.
    package static func makePrivateDirectory(_ path: String) throws(Failure) {
        do {
            try FileSystem.makeDirectory(path, mode: 0o700)
        } catch  where error == .alreadyExists {
            return
        } catch {
            throw Failure("cannot create \(path)", error)
        }
    }

    /// Removes the file `path`; returns whether there was one.
    @discardableResult
    package static func removeFile(_ path: String) -> Bool { (try? FileSystem.removeFile(path)) != nil }

    /// Renames `source` to `destination`, replacing it.
    package static func rename(_ source: String, to destination: String) throws(Failure) {
        do {
            try FileSystem.rename(source, to: destination)
        } catch {
            throw Failure("cannot move \(source) into place at \(destination)", error)
        }
    }

    /// Closes a descriptor this code owns.
    package static func close(_ descriptor: Int32) { Descriptor.close(descriptor) }

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
        let descriptor: Int32
        do {
            descriptor = try Descriptor.open(path, .readWrite, [.create, .noFollow], mode: 0o600)
        } catch {
            return .failure(.failed(Failure("cannot open \(path)", error)))
        }
        do {
            if try FileLock.tryLock(descriptor) { return .success(descriptor) }
            Descriptor.close(descriptor)
            return .failure(.busy)
        } catch {
            Descriptor.close(descriptor)
            return .failure(.failed(Failure("cannot lock \(path)", error)))
        }
    }

    // MARK: - Sockets

    /// The longest socket path a socket address holds (107 bytes on Linux).
    package static let maximumPathLength = LocalSocket.maximumPathLength

    /// A stream socket bound at `path` with mode 0600, not yet listening: a server hands it to
    /// SwiftNIO, which listens on it. The socket is never reachable with a wider mode.
    package static func makeBoundSocket(at path: String) throws(Failure) -> Int32 {
        do {
            return try LocalSocket.bindForListening(at: path, mode: 0o600)
        } catch  where error == .nameTooLong {
            throw Failure("the socket path \(path) is longer than \(maximumPathLength) bytes", error)
        } catch {
            throw Failure("cannot bind \(path)", error)
        }
    }

    /// Connects to the socket at `path` before `deadline`; the connected socket is non-blocking
    /// (the functions below wait for it). Blocks until then.
    package static func makeConnection(
        to path: String, deadline: ContinuousClock.Instant = .now + .seconds(5)
    ) throws(Failure) -> Int32 {
        do {
            return try LocalSocket.connect(.path(path), deadline: deadline)
        } catch .unreachable(let reason) where reason == .nameTooLong {
            throw Failure("the socket path \(path) is longer than \(maximumPathLength) bytes", reason)
        } catch .unreachable(let reason) {
            throw Failure("cannot connect to \(path)", reason)
        } catch {
            throw Failure("cannot connect to \(path) in time", .wouldBlock)
        }
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
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                return newline <= limit ? .line(Array(received[..<newline])) : .tooLong
            }
            if received.count > limit { return .tooLong }
            guard Descriptor.wait(descriptor, forWriting: false, deadline: deadline) else { return .timedOut }
            // At most one byte past the limit (and its newline): enough to tell "too long".
            var buffer = [UInt8](repeating: 0, count: min(16 * 1024, limit + 2 - received.count))
            let count: Int
            do {
                count = try Descriptor.read(descriptor, into: &buffer)
            } catch  where error == .wouldBlock {
                continue
            } catch {
                return .failed
            }
            if count == 0 { return .endOfInput(received) }
            received += buffer[..<count]
        }
    }

    /// Writes all of `bytes` on the non-blocking `descriptor`, giving up at `deadline`. Never
    /// raises `SIGPIPE`. Blocks.
    @discardableResult
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
        LocalSocket.sendAll(descriptor, bytes, deadline: deadline)
    }
}
