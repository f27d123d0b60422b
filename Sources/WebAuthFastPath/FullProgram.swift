#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The full `webauth` program — every command, the argument parser, refreshing, messages and
/// `--help` — installed beside `webauth` as `webauth-full`. `webauth` runs it in its own place
/// (`execv`: the same process, arguments, environment and descriptors) whenever the fast path
/// does not answer, so a person or a script never sees the difference.
package enum FullProgram {
    /// The full program's file name.
    package static let executableName = "webauth-full"
    /// The name people run, the file beside it.
    package static let frontName = "webauth"

    /// The full program beside the running executable (`/proc/self/exe`, links resolved).
    package static func path() -> String? {
        guard let executable = runningExecutable(), let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + executableName
    }

    /// The running executable's path, from `/proc/self/exe`; without `/proc`, the program name
    /// it was started with (found on `PATH` when it has no `/`), links resolved.
    package static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard let name = CommandLine.arguments.first, !name.isEmpty else { return nil }
        var candidates = [name]
        if !name.contains("/") {
            let search = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
            candidates = search.split(separator: ":").filter { $0.hasPrefix("/") }.map { "\($0)/\(name)" }
        }
        for candidate in candidates where access(candidate, X_OK) == 0 {
            guard let resolved = realpath(candidate, nil) else { continue }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        return nil
    }

    /// The path to hand to others (such as git's configuration) for the program people run:
    /// `webauth` beside the full program when this is the full program and it is there, else
    /// `executable` itself.
    package static func frontPath(for executable: String) -> String {
        guard executable.hasSuffix("/" + executableName) else { return executable }
        let front = String(executable.dropLast(executableName.count)) + frontName
        return access(front, X_OK) == 0 ? front : executable
    }

    /// Runs the full program in this process with this process's arguments (`argv`, including
    /// the program name as given), after putting `input` back on standard input when the fast
    /// path read it. Returns only if that fails, having said why on standard error, with status 1.
    package static func exec(
        argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, replaying input: [UInt8]?
    ) -> Never {
        if let input, !replay(input) {
            fail("cannot hand standard input on to \(executableName)", errno: errno)
        }
        guard let path = path() else { fail("cannot find the running program's directory", errno: errno) }
        execv(path, argv)
        fail("cannot run \(path) (`swift build` builds it; install it beside webauth)", errno: errno)
    }

    /// Makes standard input a fresh descriptor that reads `input` from its start and then its
    /// end, whatever its size: an anonymous memory file (`memfd_create`), else an unlinked
    /// private temporary file — never a pipe, whose buffer (8 KiB for a user over
    /// `pipe-user-pages-soft`; git's `wwwauth[]` lines come from the server) would block this
    /// process, the only reader to come, before it could start the full program.
    static func replay(_ input: [UInt8]) -> Bool {
        var descriptor = memoryFile()
        if descriptor < 0 {
            let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
            var template = Array(((directory ?? "/tmp") + "/webauth-input-XXXXXX").utf8CString)
            descriptor = mkstemp(&template)
            guard descriptor >= 0 else { return false }
            unlink(template)
        }
        guard StandardStreams.write(to: descriptor, input), lseek(descriptor, 0, SEEK_SET) == 0 else {
            close(descriptor)
            return false
        }
        guard descriptor != STDIN_FILENO else { return true }  // standard input was closed
        defer { close(descriptor) }
        return dup2(descriptor, STDIN_FILENO) == STDIN_FILENO
    }

    /// A new anonymous memory file (close-on-exec; `dup2` onto standard input keeps it open
    /// across `execv`), or -1 where the C library has no `memfd_create` (glibc before 2.27) or
    /// the kernel refuses it.
    static func memoryFile() -> Int32 {
        typealias MemoryFileCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(nil, "memfd_create") else { return -1 }
        let create = unsafeBitCast(symbol, to: MemoryFileCreate.self)
        return create("webauth-input", 1)  // MFD_CLOEXEC
    }

    private static func fail(_ message: String, errno number: Int32) -> Never {
        let reason = String(cString: strerror(number))
        StandardStreams.write(to: STDERR_FILENO, Array("webauth: \(message): \(reason)\n".utf8))
        exit(1)
    }
}
