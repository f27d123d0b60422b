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

/// What `fstat` or `lstat` says of a file, as far as the package judges files by it.
///
/// ```swift
/// let status = try Descriptor.status(descriptor)
/// status.kind == .regular && status.owner == CurrentProcess.effectiveUserID && status.permissions & 0o077 == 0
/// ```
package struct FileStatus: Sendable, Hashable {
    /// The kinds of file the package tells apart.
    package enum Kind: Sendable, Hashable {
        /// A regular file.
        case regular
        /// A directory.
        case directory
        /// A symbolic link (only `lstat` sees one).
        case symbolicLink
        /// A FIFO, a socket or a device.
        case other
    }

    /// The file's kind.
    package var kind: Kind
    /// The owner's user ID.
    package var owner: UInt32
    /// The permission bits, with set-user-ID, set-group-ID and sticky (`mode & 0o7777`).
    package var permissions: UInt32

    /// A status with these values (tests build them; the system calls below read them).
    package init(kind: Kind, owner: UInt32, permissions: UInt32) {
        self.kind = kind
        self.owner = owner
        self.permissions = permissions
    }

    fileprivate init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        owner = UInt32(info.st_uid)
        permissions = UInt32(info.st_mode & 0o7777)
    }
}

/// Open file descriptors: opening (always close-on-exec), whole reads and writes retried after
/// `EINTR`, status, flushing, waiting. A descriptor is the C library's `Int32`.
package enum Descriptor {
    /// Standard input (0).
    package static let standardInput: Int32 = 0
    /// Standard output (1).
    package static let standardOutput: Int32 = 1
    /// Standard error (2).
    package static let standardError: Int32 = 2

    /// How a file is opened for access.
    package enum Access: Sendable {
        /// `O_RDONLY`.
        case read
        /// `O_WRONLY`.
        case write
        /// `O_RDWR`.
        case readWrite
    }

    /// Flags besides the access mode and `O_CLOEXEC`, which every open has.
    package struct Options: OptionSet, Sendable {
        /// The flags' bits.
        package let rawValue: Int32
        /// Options with these bits.
        package init(rawValue: Int32) { self.rawValue = rawValue }
        /// Options with the bits of all of `elements` (`[.noFollow, .nonBlocking]`). Written out
        /// because `OptionSet`'s own, generic over any sequence, costs a runtime lookup of
        /// `Sequence.Element` on first use: a fifth of a cached token's instructions.
        package init(arrayLiteral elements: Options...) {
            var bits: Int32 = 0
            for element in elements { bits |= element.rawValue }
            self.init(rawValue: bits)
        }
        /// `O_CREAT`: create the file if missing, with the given mode.
        package static let create = Options(rawValue: O_CREAT)
        /// `O_EXCL`: with ``create``, fail when the file exists.
        package static let exclusive = Options(rawValue: O_EXCL)
        /// `O_NOFOLLOW`: fail when the last component is a symbolic link.
        package static let noFollow = Options(rawValue: O_NOFOLLOW)
        /// `O_NONBLOCK`: never wait (a FIFO at the path cannot hang the open or a read).
        package static let nonBlocking = Options(rawValue: O_NONBLOCK)
        /// `O_DIRECTORY`: fail unless the path is a directory.
        package static let directory = Options(rawValue: O_DIRECTORY)
        /// `O_NOCTTY`: a terminal opened does not become the controlling one.
        package static let noControllingTerminal = Options(rawValue: O_NOCTTY)
    }

    /// Opens `path` close-on-exec; a new file gets `mode`.
    package static func open(
        _ path: String, _ access: Access, _ options: Options = [], mode: UInt32 = 0o600
    ) throws(SystemError) -> Int32 {
        let accessFlags =
            switch access {
            case .read: O_RDONLY
            case .write: O_WRONLY
            case .readWrite: O_RDWR
            }
        while true {
            let descriptor = openFile(path, accessFlags | options.rawValue | O_CLOEXEC, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw .last }
        }
    }

    /// Closes `descriptor` (errors ignored: the descriptor is gone either way on Linux).
    package static func close(_ descriptor: Int32) {
        _ = closeFile(descriptor)
    }

    /// One `read` of at most `buffer.count` bytes into `buffer`, retried after `EINTR`: the
    /// number read, 0 at the end of the file.
    package static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { readFile(descriptor, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno != EINTR { throw .last }
        }
    }

    /// Reads until the end of the file or `limit` bytes, whichever comes first; what was read.
    /// Ask for one byte more than allowed to learn whether a file is too large.
    package static func readAll(_ descriptor: Int32, limit: Int) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        // A small file (most of what is read: an entry, the index, a /proc file) in one 4 KiB
        // read; the buffer doubles, up to 64 KiB, while reads fill it.
        var buffer = [UInt8](repeating: 0, count: min(4 * 1024, max(limit, 1)))
        while bytes.count < limit {
            let count = try read(descriptor, into: &buffer)
            if count == 0 { break }
            bytes += buffer[..<min(count, limit - bytes.count)]
            if count == buffer.count, buffer.count < 64 * 1024 {
                buffer = [UInt8](repeating: 0, count: min(buffer.count * 2, 64 * 1024))
            }
        }
        return bytes
    }

    /// Writes all of `bytes`, retrying after `EINTR`. On a non-blocking descriptor that is full
    /// it throws ``SystemError/wouldBlock``.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let count = writeFile(descriptor, base + offset, bytes.count - offset)
            if count > 0 {
                offset += count
            } else if count < 0, errno != EINTR {
                throw .last
            } else if count == 0 {
                throw .inputOutput
            }
        }
    }

    /// Writes all of `bytes`, retrying after `EINTR`.
    package static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try writeAll(descriptor, buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The open file's status (`fstat`).
    package static func status(_ descriptor: Int32) throws(SystemError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .last }
        return FileStatus(info)
    }

    /// Sets the open file's permission bits (`fchmod`).
    package static func setPermissions(_ descriptor: Int32, _ mode: UInt32) throws(SystemError) {
        guard fchmod(descriptor, mode_t(mode)) == 0 else { throw .last }
    }

    /// Flushes the file, or a directory's entries, to the disk (`fsync`).
    package static func synchronize(_ descriptor: Int32) throws(SystemError) {
        guard fsync(descriptor) == 0 else { throw .last }
    }

    /// Sets the file's size (`ftruncate`).
    package static func truncate(_ descriptor: Int32, to size: Int) throws(SystemError) {
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw .last }
    }

    /// Sets aside `bytes` bytes of disk for the file from its start (`posix_fallocate`), so that
    /// a later write of that size cannot fail for want of space. (Linux only; elsewhere nothing is
    /// set aside yet and a full disk shows at the write.)
    package static func reserve(_ descriptor: Int32, bytes: Int) throws(SystemError) {
        #if os(Linux)
            let number = posix_fallocate(descriptor, 0, off_t(bytes))
            guard number == 0 else { throw SystemError(number: number) }
        #endif
    }

    /// Moves the file's offset back to its start.
    package static func rewind(_ descriptor: Int32) throws(SystemError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw .last }
    }

    /// Makes the descriptor non-blocking.
    package static func setNonBlocking(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// A close-on-exec copy of `descriptor` numbered 3 or more (`F_DUPFD_CLOEXEC`): out of the
    /// way of the standard descriptors.
    package static func duplicate(_ descriptor: Int32) throws(SystemError) -> Int32 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { throw .last }
        return copy
    }

    /// Makes `target` refer to what `descriptor` refers to (`dup2`); `target` is not
    /// close-on-exec.
    package static func duplicate(_ descriptor: Int32, onto target: Int32) throws(SystemError) {
        while dup2(descriptor, target) < 0 {
            guard errno == EINTR else { throw .last }
        }
    }

    /// What `poll` said of one descriptor.
    package struct Readiness: Sendable, Hashable {
        /// Something can be read, or the other end hung up (a read then returns the end).
        package var readable: Bool
        /// Something can be written.
        package var writable: Bool
    }

    /// Waits until one of `descriptors` can be read or has hung up, or `timeout` passes (`nil`:
    /// no limit); which can. A signal ends the wait early with none ready.
    package static func waitUntilReadable(_ descriptors: [Int32], timeout: Duration?) throws(SystemError) -> [Bool] {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = timeout.map { Int32(($0 / .milliseconds(1)).rounded(.up)) } ?? -1
        let ready = poll(&entries, nfds_t(entries.count), milliseconds)
        if ready < 0 {
            if errno == EINTR { return descriptors.map { _ in false } }
            throw .last
        }
        return entries.map { $0.revents != 0 }
    }

    /// Waits until `descriptor` is ready to be read (`forWriting` false) or written, retrying
    /// after signals; `false` when `deadline` passes first or the descriptor fails.
    package static func wait(_ descriptor: Int32, forWriting: Bool, deadline: ContinuousClock.Instant) -> Bool {
        let events = Int16(forWriting ? POLLOUT : POLLIN)
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

/// Paths: status, directories with modes, renames and removals, links, executables.
package enum FileSystem {
    /// The status of the file at `path`; of a symbolic link itself unless `followingLinks`.
    package static func status(_ path: String, followingLinks: Bool = false) throws(SystemError) -> FileStatus {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { throw .last }
        return FileStatus(info)
    }

    /// Makes the directory `path` with `mode` (less the process's umask).
    package static func makeDirectory(_ path: String, mode: UInt32) throws(SystemError) {
        guard mkdir(path, mode_t(mode)) == 0 else { throw .last }
    }

    /// Sets the permission bits of `path` (following links).
    package static func setPermissions(_ path: String, _ mode: UInt32) throws(SystemError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw .last }
    }

    /// Renames `source` to `destination`, replacing it, atomically.
    package static func rename(_ source: String, to destination: String) throws(SystemError) {
        guard renameFile(source, destination) == 0 else { throw .last }
    }

    /// Removes the file (or link) at `path`.
    package static func removeFile(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw .last }
    }

    /// Removes the empty directory at `path`.
    package static func removeDirectory(_ path: String) throws(SystemError) {
        guard rmdir(path) == 0 else { throw .last }
    }

    /// Whether `path` names something (`access(F_OK)`).
    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Whether this process may run `path` (`access(X_OK)`).
    package static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0
    }

    /// What the symbolic link at `path` points to; `nil` when it is not one.
    package static func linkDestination(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute with every link resolved (`realpath`); `nil` when it does not exist.
    package static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens the directory `path` and flushes its entries to the disk, so that a rename into it
    /// survives a crash.
    package static func synchronizeDirectory(_ path: String) throws(SystemError) {
        let descriptor = try Descriptor.open(path, .read, .directory)
        defer { Descriptor.close(descriptor) }
        try Descriptor.synchronize(descriptor)
    }

    /// A new private file with no name: an anonymous memory file (`memfd_create`) where the
    /// system has one, else a file made in `directory` with `mkstemp` and unlinked at once.
    /// Close-on-exec either way; `dup2` onto a standard descriptor keeps it across `exec`.
    package static func anonymousFile(name: String, directory: String) throws(SystemError) -> Int32 {
        let memoryFile = webauth_memfd_create_cloexec(name)
        if memoryFile >= 0 { return memoryFile }
        var template = Array((directory + "/\(name)-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw .last }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        unlink(template)
        return descriptor
    }
}

/// Advisory locks on open files.
package enum FileLock {
    /// Takes the whole-file exclusive `flock` on `descriptor` without waiting: `true` when
    /// taken, `false` when another open file holds it (or a signal interrupted the attempt).
    package static func tryLock(_ descriptor: Int32) throws(SystemError) -> Bool {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK || errno == EINTR { return false }
        throw .last
    }

    /// Takes the whole-file exclusive `flock` on `descriptor`, blocking the calling thread until
    /// it is free (a signal's interruption is retried). Costs no CPU while it waits: call it on
    /// a thread of its own, never on one of Swift's cooperative pool.
    package static func lock(_ descriptor: Int32) throws(SystemError) {
        while flock(descriptor, LOCK_EX) != 0 {
            if errno != EINTR { throw .last }
        }
    }

    /// Releases the `flock` on `descriptor`.
    package static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }

    /// The process holding a POSIX record lock (`fcntl`) that conflicts with a write lock on the
    /// whole of `descriptor`'s file; `nil` when none does.
    package static func recordLockHolder(_ descriptor: Int32) -> Int32? {
        var query = flock()
        query.l_type = Int16(F_WRLCK)
        query.l_whence = Int16(SEEK_SET)
        guard fcntl(descriptor, F_GETLK, &query) == 0, query.l_type != Int16(F_UNLCK) else { return nil }
        return query.l_pid
    }
}

/// Pipes and socket pairs made close-on-exec from the start, so that a child another thread
/// spawns at the same moment cannot inherit them.
package enum Pipe {
    /// A pipe: `(read, write)`. `pipe2(O_CLOEXEC)` where the system has it (Linux), else
    /// `pipe` then `FD_CLOEXEC`.
    package static func make() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        if webauth_pipe_cloexec(&ends) != 0 {
            guard errno == ENOSYS else { throw .last }
            guard pipe(&ends) == 0 else { throw .last }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        return (ends[0], ends[1])
    }

    /// A connected pair of Unix stream sockets, both close-on-exec.
    package static func socketPair() throws(SystemError) -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        #if os(Linux)
            let type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw .last }
        #if !os(Linux)
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        #endif
        return (ends[0], ends[1])
    }
}

// The C library's functions, under names the methods above do not shadow.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func closeFile(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func writeFile(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
private func renameFile(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
