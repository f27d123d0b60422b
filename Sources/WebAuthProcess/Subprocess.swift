// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program the package starts: a browser, `xdg-open`, `xdg-mime`.
///
/// Started with `posix_spawn` — never through a shell — and, unlike `Foundation.Process` on
/// Linux, without handing the child any descriptor it was not given explicitly: a long-lived
/// browser must not hold our sockets or pipes open (which is how `Foundation.Process` tracks
/// its own children, so an inherited descriptor keeps another child "running" for as long as
/// the browser lives). The child also gets default signal handling and an empty signal mask,
/// so a parent that ignores `SIGINT`/`SIGTERM` while it waits does not pass that on, and it can
/// run in a process group of its own, so ending it ends every helper it started.
package final class Subprocess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file, created 0600 if missing, appended to.
        case file(String)
        /// A pipe the parent reads (for output) or writes (for input); see
        /// ``Subprocess/standardOutput`` and friends.
        case pipe
        /// A descriptor of the parent's, such as one end of a pipe it made.
        case descriptor(Int32)
    }

    /// The process identifier.
    package let pid: pid_t
    /// Whether the child leads a process group of its own (see ``terminate(grace:)``).
    package let ownsProcessGroup: Bool
    /// The parent's end of the child's standard input, when it is ``Stream/pipe``.
    package let standardInput: FileHandle?
    /// The child's standard output as it arrives, when it is ``Stream/pipe``.
    package let standardOutput: AsyncStream<[UInt8]>?
    /// The child's standard error as it arrives, when it is ``Stream/pipe``.
    package let standardError: AsyncStream<[UInt8]>?
    private let exit: Locked<ExitState>

    /// Someone waiting for the exit: cancellable waits take an optional status.
    private enum Waiter: Sendable {
        case cancellable(CheckedContinuation<Int32?, Never>)
        case uncancellable(CheckedContinuation<Int32, Never>)
        case signal(DispatchSemaphore)

        func resume(returning status: Int32) {
            switch self {
            case .cancellable(let continuation): continuation.resume(returning: status)
            case .uncancellable(let continuation): continuation.resume(returning: status)
            case .signal(let semaphore): semaphore.signal()
            }
        }
    }

    private struct ExitState: Sendable {
        var status: Int32?
        var waiters: [UUID: Waiter] = [:]
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: An absolute path.
    ///   - arguments: The arguments, not including the program name.
    ///   - environment: The child's environment, less the variables ``SecretEnvironment``
    ///     lists, which are always removed.
    ///   - standardInput: Where standard input comes from. Default `/dev/null`.
    ///   - standardOutput: Where standard output goes. Default `/dev/null`.
    ///   - standardError: Where standard error goes. Default `/dev/null`.
    ///   - descriptors: More parent descriptors to install in the child, keyed by their number
    ///     there (3 and up).
    ///   - newProcessGroup: Whether the child leads a process group of its own.
    package init(
        executable: String,
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        standardInput: Stream = .null,
        standardOutput: Stream = .null,
        standardError: Stream = .null,
        descriptors: [Int32: Int32] = [:],
        newProcessGroup: Bool = true
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var parentEnds: [Int32: Int32] = [:]  // child stream number → parent's end of its pipe
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        for (number, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, number, "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, number, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor, number)
            case .pipe:
                let ends = try Pipe.make()
                let (parent, child) = number == 0 ? (ends.write, ends.read) : (ends.read, ends.write)
                parentEnds[number] = parent
                childEnds.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, number)
            }
        }
        // Each extra source is first copied above every target number, so that installing one
        // descriptor never overwrites another's source (nor is a no-op that keeps close-on-exec).
        let staged = descriptors.sorted(by: { $0.key < $1.key }).map { target, source in
            (target: target, source: fcntl(source, F_DUPFD_CLOEXEC, 64))
        }
        defer { for (_, source) in staged where source >= 0 { close(source) } }
        if staged.contains(where: { $0.source < 0 }) { throw POSIXError(.init(rawValue: errno) ?? .EBADF) }
        for (target, source) in staged { posix_spawn_file_actions_adddup2(&actions, source, target) }
        Self.closeEverythingElse(&actions, from: (staged.map(\.target).max() ?? 2) + 1)

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
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        // No child ever sees a secret-bearing variable (see SecretEnvironment).
        let envp = SecretEnvironment.removingSecrets(from: environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        var result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        // ETXTBSY: a script written a moment ago is still open for writing in a child another
        // thread forked and has not yet exec'd; that clears within milliseconds.
        for _ in 0..<20 where result == ETXTBSY {
            usleep(5_000)
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard result == 0 else {
            for descriptor in parentEnds.values { close(descriptor) }
            throw POSIXError(.init(rawValue: result) ?? .EIO)
        }
        self.pid = pid
        self.ownsProcessGroup = newProcessGroup
        self.exit = Locked(ExitState())
        self.standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.standardOutput = parentEnds[1].map(Self.readUntilEndOfFile)
        self.standardError = parentEnds[2].map(Self.readUntilEndOfFile)
        // A thread of its own waits for the child, so no cooperative thread is ever blocked.
        let child = pid
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let waiters = exit.withLock { state in
                state.status = status
                defer { state.waiters = [:] }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
    }

    /// Starts `executable` in a process group of its own with standard input from `/dev/null`
    /// and standard output and error appended to `output`.
    package convenience init(
        executable: String,
        arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        descriptors: [Int32: Int32] = [:],
        output: String
    ) throws {
        let stream: Stream = output == "/dev/null" ? .null : .file(output)
        try self.init(
            executable: executable, arguments: arguments, environment: environment, standardOutput: stream,
            standardError: stream, descriptors: descriptors)
    }

    /// What a program that ran to completion left: its raw wait status and its output.
    package struct Completion: Sendable {
        /// The raw wait status (see ``Subprocess/exitCode(of:)``).
        package var status: Int32
        /// Everything written to standard output.
        package var standardOutput: String
        /// Everything written to standard error.
        package var standardError: String
    }

    /// Runs a short-lived program (`xdg-mime`, say) to completion and returns what it wrote.
    /// Blocks the calling thread until the program exits; the output is read on threads of its
    /// own, so neither pipe can fill up and stall the program. Standard input is `/dev/null`
    /// unless `standardInput` says otherwise.
    package static func runToCompletion(
        _ executable: String, _ arguments: [String], environment: [String: String], standardInput: Stream = .null
    ) throws -> Completion {
        let outputPipe = try Pipe.make()
        let errorPipe = try Pipe.make()
        let process: Subprocess
        do {
            defer {
                close(outputPipe.write)
                close(errorPipe.write)
            }
            process = try Subprocess(
                executable: executable, arguments: arguments, environment: environment, standardInput: standardInput,
                standardOutput: .descriptor(outputPipe.write), standardError: .descriptor(errorPipe.write),
                newProcessGroup: false)
        } catch {
            close(outputPipe.read)
            close(errorPipe.read)
            throw error
        }
        let collected = Locked<[Int32: [UInt8]]>([:])
        let done = DispatchSemaphore(value: 0)
        for descriptor in [outputPipe.read, errorPipe.read] {
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count > 0 {
                        bytes += buffer[..<count]
                    } else if count == 0 || errno != EINTR {
                        break
                    }
                }
                close(descriptor)
                collected.withLock { $0[descriptor] = bytes }
                done.signal()
            }
        }
        done.wait()
        done.wait()
        let exited = DispatchSemaphore(value: 0)
        let registered = process.exit.withLock { state -> Bool in
            guard state.status == nil else { return false }
            state.waiters[UUID()] = .signal(exited)
            return true
        }
        if registered { exited.wait() }  // the status is recorded before waiters are signalled
        let output = collected.withLock { $0 }
        return Completion(
            status: process.exit.withLock { $0.status ?? -1 },
            standardOutput: String(decoding: output[outputPipe.read] ?? [], as: UTF8.self),
            standardError: String(decoding: output[errorPipe.read] ?? [], as: UTF8.self))
    }

    /// Whether the process has exited (and been reaped).
    package var hasExited: Bool { exit.withLock { $0.status != nil } }

    /// Waits for the process to exit and returns its raw wait status; `nil` if the waiting
    /// task is cancelled first (the process is not affected).
    @discardableResult
    package func waitForExit() async -> Int32? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let status = exit.withLock { state -> Int32?? in
                    if let status = state.status { return .some(status) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = .cancellable(continuation)
                    return nil
                }
                if let status { continuation.resume(returning: status) }
            }
        } onCancel: {
            if case .cancellable(let continuation) = exit.withLock({ $0.waiters.removeValue(forKey: id) }) {
                continuation.resume(returning: nil)
            }
        }
    }

    /// Waits for the process to exit and returns its raw wait status, whether or not the
    /// waiting task is cancelled.
    package func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exit.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters[UUID()] = .uncancellable(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Sends `signal` to the process (and its group, when it has one of its own).
    package func send(_ signal: Int32) {
        guard !hasExited else { return }
        kill(ownsProcessGroup ? -pid : pid, signal)
    }

    /// Ends the process: `SIGTERM`, then `SIGKILL` if it has not exited within `grace`. With a
    /// process group of its own, every process left in the group is killed too. Returns once
    /// the process has exited.
    package func terminate(grace: Duration = .seconds(3)) async {
        let target = ownsProcessGroup ? -pid : pid
        if !hasExited {
            kill(target, SIGTERM)
            let killer = Task {
                try? await Task.sleep(for: grace)
                if !Task.isCancelled { kill(target, SIGKILL) }
            }
            await waitForExit()
            killer.cancel()
        }
        if ownsProcessGroup { kill(target, SIGKILL) }  // helpers left behind in the group
    }

    /// The exit status (0–255), or `nil` when the process was killed by a signal.
    package static func exitCode(of status: Int32) -> Int32? {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// A readable form of a raw wait status: `exit status 1`, `signal 9`.
    package static func describe(status: Int32) -> String {
        exitCode(of: status).map { "exit status \($0)" } ?? "signal \(status & 0x7F)"
    }

    // MARK: - Descriptors

    /// Reads `descriptor` on a thread of its own until end of file, then closes it.
    private static func readUntilEndOfFile(_ descriptor: Int32) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    continuation.yield(Array(buffer[..<count]))
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            close(descriptor)
            continuation.finish()
        }
        return stream
    }

    /// Adds actions that close every descriptor from `lowest` up in the child: glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` where it exists (2.34+), else one close per
    /// descriptor open in this process now.
    private static func closeEverythingElse(_ actions: inout posix_spawn_file_actions_t, from lowest: Int32) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, lowest) == 0 { return }
        }
        let open =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for descriptor in open where descriptor >= lowest {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }
}
