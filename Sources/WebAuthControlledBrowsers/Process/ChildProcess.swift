import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A browser process the session started: spawned directly (no shell) in a process group of its
/// own, so that ending it ends every helper process it started too.
///
/// Descriptors can be handed to the child at fixed numbers — Chromium's
/// `--remote-debugging-pipe` reads commands on descriptor 3 and writes replies on descriptor 4.
/// Signal dispositions are reset to their defaults in the child, so a parent that ignores
/// `SIGINT`/`SIGTERM` (as `webauth` does while it waits) does not pass that on.
package final class ChildProcess: Sendable {
    /// The process identifier, which is also its process group.
    package let pid: pid_t
    private let exit: Mutex<ExitState>

    private struct ExitState: Sendable {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: An absolute path.
    ///   - arguments: The arguments, not including the program name.
    ///   - environment: The child's environment.
    ///   - descriptors: Parent descriptors to install in the child, keyed by their number there.
    ///   - output: Where the child's standard output and error go (a file, or `/dev/null`).
    package init(
        executable: String,
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        descriptors: [Int32: Int32] = [:],
        output: String = "/dev/null"
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Each source is first copied above every target number, so that installing one
        // descriptor can never overwrite another's source (or be a no-op that keeps close-on-exec).
        let staged = descriptors.sorted(by: { $0.key < $1.key }).map { target, source in
            (target: target, source: fcntl(source, F_DUPFD_CLOEXEC, 64))
        }
        defer { for (_, source) in staged where source >= 0 { close(source) } }
        if staged.contains(where: { $0.source < 0 }) { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EBADF) }
        for (target, source) in staged {
            posix_spawn_file_actions_adddup2(&actions, source, target)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        self.pid = pid
        self.exit = Mutex(ExitState())
        // A thread of its own waits for the child, so no cooperative thread is ever blocked.
        let child = pid
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let waiters = exit.withLock { state in
                state.status = status
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
    }

    /// Whether the process has exited (and been reaped).
    package var hasExited: Bool { exit.withLock { $0.status != nil } }

    /// Waits for the process to exit and returns its raw wait status.
    package func waitForExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exit.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Ends the process group: `SIGTERM`, then `SIGKILL` if it has not exited within `grace`.
    /// Returns once the browser process has exited.
    package func terminate(grace: Duration = .seconds(3)) async {
        let pid = pid
        if !hasExited {
            kill(-pid, SIGTERM)
            let killer = Task {
                try? await Task.sleep(for: grace)
                if !Task.isCancelled { kill(-pid, SIGKILL) }
            }
            _ = await waitForExit()
            killer.cancel()
        }
        kill(-pid, SIGKILL)  // helpers the browser left behind in its group, if any
    }

    /// A readable form of a raw wait status: `exit status 1`, `signal 9`.
    package static func describe(status: Int32) -> String {
        let signal = status & 0x7F
        return signal == 0 ? "exit status \((status >> 8) & 0xFF)" : "signal \(signal)"
    }
}
