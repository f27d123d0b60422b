import WebAuthTokenFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a profile's item from the desktop keyring the way the keyring store does —
/// `secret-tool lookup service webauth profile <name>`, the same program found the same way
/// (``KeyringItem``) — but answers only a plain success: exit status 0, nothing on standard
/// error, at most ``KeyringItem/maximumEntrySize`` bytes, within ``timeLimit``. Everything else
/// (no item, no D-Bus session, no `secret-tool`, a locked keyring nobody unlocks, a keyring that
/// does not answer in time) is `nil`, and the full program asks again and reports.
///
/// The program is started with `posix_spawn`, never through a shell; its standard input is
/// `/dev/null`; no descriptor of this process but the two pipes reaches it, and of the
/// environment only ``passedVariables`` — what reaching the session bus takes, never a secret.
/// (A success depends on nothing else; any failure is the full program's, which runs
/// `secret-tool` with the whole environment but its secrets.)
///
/// ```swift
/// let bytes = SecretToolLookup.secret(profile: "work", environment: environment)
/// ```
package enum SecretToolLookup {
    /// How long the fast path waits for `secret-tool`: as long as the keyring store waits
    /// (``KeyringItem/timeLimit``), so that an unlock prompt it causes gets the same time to be
    /// answered. (When it is not, the full program asks again, within its own limit, and reports.)
    package static let timeLimit = KeyringItem.timeLimit

    /// The environment variables `secret-tool` is given: the search path, who and where the
    /// user is, the language of its messages, and the session bus.
    package static let passedVariables: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "DBUS_SESSION_BUS_ADDRESS",
        "XDG_RUNTIME_DIR",
    ]

    /// The secret of `profile`'s item, or `nil`.
    ///
    /// - Parameters:
    ///   - profile: A valid profile name.
    ///   - environment: The process's environment. Its `PATH` is where `secret-tool` is looked
    ///     for; without a `DBUS_SESSION_BUS_ADDRESS`, `nil` at once (the keyring store refuses to
    ///     start). Only ``passedVariables`` reach `secret-tool`.
    package static func secret(profile: String, environment: [String: String]) -> [UInt8]? {
        guard let busAddress = environment["DBUS_SESSION_BUS_ADDRESS"], !busAddress.isEmpty,
            let executable = KeyringItem.secretTool(searchPath: environment["PATH"])
        else { return nil }
        return run(
            executable, ["lookup"] + KeyringItem.attributes(profile: profile),
            environment: environment.filter { passedVariables.contains($0.key) })
    }

    /// Runs `executable` with `arguments`; its standard output when it exits 0 within
    /// ``timeLimit`` with nothing on standard error and at most ``KeyringItem/maximumEntrySize``
    /// bytes on standard output.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) -> [UInt8]? {
        guard var output = Pipe(), var errors = Pipe() else { return nil }
        defer {
            output.closeBoth()
            errors.closeBoth()
        }
        guard
            let process = spawn(
                executable, arguments, environment: environment, output: output.writeEnd, errors: errors.writeEnd)
        else {
            return nil
        }
        output.closeWriteEnd()
        errors.closeWriteEnd()

        let deadline = monotonicNow() + timeLimit
        var outputBytes: [UInt8] = []
        var errorBytes = 0
        var open = [output.readEnd, errors.readEnd]
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !open.isEmpty, outputBytes.count <= KeyringItem.maximumEntrySize {
            let left = deadline - monotonicNow()
            guard left > .zero else { break }
            var polled = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&polled, nfds_t(polled.count), Int32((left / .milliseconds(1)).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else { break }
            for entry in polled where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == output.readEnd { outputBytes += buffer[..<count] } else { errorBytes += count }
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        // Too slow, too much output, or its output closed but not ended: stopped, and the full
        // program decides.
        guard open.isEmpty, let status = exitStatus(of: process, before: deadline) else {
            kill(process, SIGKILL)
            while waitpid(process, nil, 0) < 0, errno == EINTR {}
            return nil
        }
        guard status == 0, errorBytes == 0, outputBytes.count <= KeyringItem.maximumEntrySize else { return nil }
        return outputBytes
    }

    /// The wait status of `process` once it has ended, if it ends before `deadline`.
    private static func exitStatus(of process: pid_t, before deadline: Duration) -> Int32? {
        var status: Int32 = 0
        while monotonicNow() < deadline {
            let ended = waitpid(process, &status, WNOHANG)
            if ended == process { return status }
            if ended < 0, errno != EINTR { return nil }
            if ended == 0 { usleep(500) }
        }
        return nil
    }

    /// Starts `executable` with `environment`, `/dev/null` as standard input and the given
    /// descriptors as standard output and error; its process ID, or `nil`.
    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], output: Int32, errors: Int32
    ) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { return nil }
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        guard posix_spawnattr_init(&attributes) == 0 else { return nil }
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with no signal blocked and SIGPIPE at its default, whatever this
        // process inherited.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        guard posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0) == 0,
            posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO) == 0,
            posix_spawn_file_actions_adddup2(&actions, errors, STDERR_FILENO) == 0
        else { return nil }

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { for pointer in argv + envp { free(pointer) } }
        var process = pid_t()
        let status = (argv + [nil]).withUnsafeBufferPointer { arguments in
            (envp + [nil]).withUnsafeBufferPointer { environment in
                posix_spawn(
                    &process, executable, &actions, &attributes, arguments.baseAddress!, environment.baseAddress!)
            }
        }
        return status == 0 ? process : nil
    }

    private static func monotonicNow() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }

    /// A pipe whose ends close on `exec` (the child gets copies as its standard output or error).
    private struct Pipe {
        var readEnd: Int32
        var writeEnd: Int32

        init?() {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return nil }
            (readEnd, writeEnd) = (ends[0], ends[1])
            // The fast path runs on one thread: nothing can start a program between these calls.
            _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        }

        mutating func closeWriteEnd() {
            if writeEnd >= 0 { close(writeEnd) }
            writeEnd = -1
        }

        mutating func closeBoth() {
            closeWriteEnd()
            if readEnd >= 0 { close(readEnd) }
            readEnd = -1
        }
    }
}
