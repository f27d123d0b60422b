// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Synchronization
import WebAuthSystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process: who it runs as, its environment, and leaving it.
package enum CurrentProcess {
    /// The process ID (`getpid`).
    package static var id: Int32 { getpid() }

    /// The real user ID (`getuid`): whom the process runs for.
    package static var realUserID: UInt32 { getuid() }

    /// The effective user ID (`geteuid`): whose files the process may touch.
    package static var effectiveUserID: UInt32 { geteuid() }

    /// The effective user's home directory from the user database (`getpwuid`), for when `HOME`
    /// is not set to an absolute path.
    package static var userDatabaseHomeDirectory: String? {
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// The machine's host name (`gethostname`).
    package static var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The environment variable `name` (`getenv`), read without loading the whole environment.
    package static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Blocks the calling thread for `duration` (`nanosleep`): for a plain thread that polls.
    package static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
    }

    /// Ends the process with `status` (`exit`: buffered C streams are flushed).
    package static func exit(_ status: Int32) -> Never {
        exitProcess(status)
    }

    /// Replaces this process with the program at `path` (`execv`), with `arguments` as its
    /// `argv` and this process's environment and descriptors; returns only on failure, why.
    package static func replace(
        with path: String, arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    ) -> SystemError {
        execv(path, arguments)
        return .last
    }

    /// Replaces this process with the program at `path` (`execv`), with `arguments` (the
    /// program's name first) as its `argv`; returns only on failure, why.
    package static func replace(with path: String, arguments: [String]) -> SystemError {
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        return argv.withUnsafeBufferPointer { buffer in
            replace(with: path, arguments: UnsafeMutablePointer(mutating: buffer.baseAddress!))
        }
    }

    /// Blocks `SIGPIPE` on the calling thread only: a write to a pipe whose reader has gone then
    /// fails with `EPIPE` on this thread (the signal stays pending here and is discarded with the
    /// thread) instead of ending the whole process.
    package static func blockBrokenPipeSignalOnThisThread() {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
    }
}

/// Signal numbers the package sends or traps.
package enum SignalNumber {
    /// `SIGINT`: Ctrl-C.
    package static let interrupt: Int32 = SIGINT
    /// `SIGTERM`: asked to end.
    package static let terminate: Int32 = SIGTERM
    /// `SIGKILL`: ended at once.
    package static let kill: Int32 = SIGKILL
}

/// Other processes and process groups, by ID.
package enum OtherProcess {
    /// Whether process `pid` exists (`kill(pid, 0)` succeeds, or fails only for want of
    /// permission: it is another user's).
    package static func exists(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// Whether process group `group` has a member (`kill(-group, 0)`, as ``exists(_:)``).
    package static func groupExists(_ group: Int32) -> Bool {
        group > 1 && (kill(-group, 0) == 0 || errno == EPERM)
    }

    /// Whether process `pid` is known to be gone (`kill(pid, 0)` fails with `ESRCH`); `false`
    /// when it exists or nothing can be told.
    package static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) == -1 && errno == ESRCH
    }

    /// Sends `signal` to process `pid`.
    package static func signal(_ pid: Int32, _ signal: Int32) {
        _ = kill(pid, signal)
    }

    /// Sends `signal` to every process in group `group`.
    package static func signalGroup(_ group: Int32, _ signal: Int32) {
        guard group > 1 else { return }
        _ = kill(-group, signal)
    }
}

/// Turns signals into bytes on a pipe (the self-pipe trick): the handler only writes the
/// signal's number, which is all a handler may safely do; a thread reading the pipe acts on it.
///
/// ```swift
/// let ends = try Pipe.make()
/// SignalForwarding.install([SignalNumber.interrupt], writingTo: ends.write)
/// defer { SignalForwarding.remove([SignalNumber.interrupt]) }
/// ```
package enum SignalForwarding {
    /// Makes `signals` write their number (one byte) to `descriptor`, which is made non-blocking
    /// (a full pipe drops a signal rather than blocking the handler). One destination at a time
    /// for the whole process.
    package static func install(_ signals: [Int32], writingTo descriptor: Int32) {
        Descriptor.setNonBlocking(descriptor)
        forwardingDescriptor.store(descriptor, ordering: .sequentiallyConsistent)
        for number in signals {
            _ = signal(number) { caught in
                var number = UInt8(truncatingIfNeeded: caught)
                let end = forwardingDescriptor.load(ordering: .sequentiallyConsistent)
                if end >= 0 { _ = write(end, &number, 1) }
            }
        }
    }

    /// Restores the default action of `signals` and stops forwarding.
    package static func remove(_ signals: [Int32]) {
        for number in signals { _ = signal(number, SIG_DFL) }
        forwardingDescriptor.store(-1, ordering: .sequentiallyConsistent)
    }
}

/// The write end the handlers of ``SignalForwarding`` use (a C handler cannot capture), or -1.
private let forwardingDescriptor = Atomic<Int32>(-1)

// The C library's `exit`, under a name the method does not shadow.
private func exitProcess(_ status: Int32) -> Never { exit(status) }

/// The system's table of processes, as far as the package asks it: which processes are still
/// running (not zombies waiting for a parent, nor exiting). Linux reads `/proc`; elsewhere any
/// process that exists counts as running.
package enum ProcessTable {
    /// The running processes of group `group`; none when the group is gone. Without `/proc`,
    /// `[group]` while the group exists.
    package static func liveMembers(ofGroup group: Int32) -> [Int32] {
        guard OtherProcess.groupExists(group) else { return [] }
        #if os(Linux)
            return processIDs().filter { pid in
                guard let (state, processGroup) = status(of: pid) else { return false }
                return processGroup == group && state != "Z" && state != "X"
            }
        #else
            return [group]
        #endif
    }

    /// Whether process `pid` is still running: it exists and is not dead (a zombie, or exiting).
    package static func isLive(_ pid: Int32) -> Bool {
        guard OtherProcess.exists(pid) else { return false }
        #if os(Linux)
            guard let (state, _) = status(of: pid) else { return false }
            return state != "Z" && state != "X"
        #else
            return true
        #endif
    }

    #if os(Linux)
        /// The IDs of every process, from the numeric entries of `/proc`.
        private static func processIDs() -> [Int32] {
            guard let directory = opendir("/proc") else { return [] }
            defer { closedir(directory) }
            var pids: [Int32] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if let pid = Int32(name) { pids.append(pid) }
            }
            return pids
        }

        /// The state letter and process group of `pid`, from `/proc/{pid}/stat`
        /// (`pid (comm) state ppid pgrp …`; the command name may itself contain spaces and `)`).
        private static func status(of pid: Int32) -> (state: Character, processGroup: Int32)? {
            guard let descriptor = try? Descriptor.open("/proc/\(pid)/stat", .read) else { return nil }
            defer { Descriptor.close(descriptor) }
            guard let bytes = try? Descriptor.readAll(descriptor, limit: 64 * 1024) else { return nil }
            let stat = String(decoding: bytes, as: UTF8.self)
            guard let commandEnd = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: commandEnd)...].split(separator: " ")
            guard fields.count > 2, let state = fields[0].first, let group = Int32(fields[2]) else { return nil }
            return (state, group)
        }
    #endif
}

/// Keeping a process's secrets in memory: out of core dumps and `/proc`, and out of swap.
package enum SecretMemory {
    /// Makes this process not dumpable (`prctl(PR_SET_DUMPABLE, 0)` on Linux): no core dump, and
    /// other processes of the same user can neither attach to it nor read its memory through
    /// `/proc`. Whether it took effect; `false` elsewhere.
    @discardableResult
    package static func forbidDumps() -> Bool {
        #if os(Linux)
            webauth_set_dumpable(0) == 0
        #else
            false
        #endif
    }

    /// Whether this process is dumpable (`prctl(PR_GET_DUMPABLE)`); `nil` where it cannot say.
    package static var isDumpable: Bool? {
        #if os(Linux)
            let value = webauth_get_dumpable()
            guard value >= 0 else { return nil }
            return value != 0
        #else
            return nil
        #endif
    }

    /// Locks the pages of `buffer` in memory (`mlock`) so that they are not swapped out, best
    /// effort: whether it worked (the system may limit locked memory).
    @discardableResult
    package static func lock(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return false }
        return mlock(base, buffer.count) == 0
    }

    /// Undoes ``lock(_:)``.
    package static func unlock(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        munlock(base, buffer.count)
    }
}
