// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// The full `webauth` program — every command, the argument parser, refreshing, messages and
/// `--help` — installed beside `webauth` as `webauth-full`. `webauth` runs it in its own place
/// (`execv`: the same process, arguments, environment and descriptors) whenever the fast path
/// does not answer, so a person or a script never sees the difference.
package enum FullProgram {
    /// The full program's file name.
    package static let executableName = "webauth-full"
    /// The file name of the program that runs `webauth demo`, beside the full program.
    package static let demoExecutableName = "webauth-demo"
    /// The name people run, the file beside it.
    package static let frontName = "webauth"

    /// The full program beside the running executable (`/proc/self/exe`, links resolved).
    package static func path() -> String? {
        besideRunningExecutable(executableName)
    }

    /// The path of the file `name` in the running executable's directory.
    static func besideRunningExecutable(_ name: String) -> String? {
        guard let executable = runningExecutable(), let slash = executable.lastIndex(of: "/") else { return nil }
        return String(executable[...slash]) + name
    }

    /// The running executable's path, from `/proc/self/exe`; without `/proc`, the program name
    /// it was started with (found on `PATH` when it has no `/`), links resolved.
    package static func runningExecutable() -> String? {
        if let executable = FileSystem.linkDestination("/proc/self/exe") { return executable }
        guard let name = CommandLine.arguments.first, !name.isEmpty else { return nil }
        var candidates = [name]
        if !name.contains("/") {
            let search = CurrentProcess.environmentValue("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
            candidates = search.split(separator: ":").filter { $0.hasPrefix("/") }.map { "\($0)/\(name)" }
        }
        for candidate in candidates where FileSystem.isExecutable(candidate) {
            if let resolved = FileSystem.resolved(candidate) { return resolved }
        }
        return nil
    }

    /// The path to hand to others (such as git's configuration) for the program people run:
    /// `webauth` beside the full program when this is the full program and it is there, else
    /// `executable` itself.
    package static func frontPath(for executable: String) -> String {
        guard executable.hasSuffix("/" + executableName) else { return executable }
        let front = String(executable.dropLast(executableName.count)) + frontName
        return FileSystem.isExecutable(front) ? front : executable
    }

    /// Runs the full program in this process with this process's arguments (`argv`, including
    /// the program name as given), after putting `input` back on standard input when the fast
    /// path read it. Returns only if that fails, having said why on standard error, with status 1.
    package static func exec(
        argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, replaying input: [UInt8]?
    ) -> Never {
        if let input {
            do throws(SystemError) {
                try replay(input)
            } catch {
                fail("cannot hand standard input on to \(executableName)", error)
            }
        }
        guard let path = path() else { fail("cannot find the running program's directory", .last) }
        let error = CurrentProcess.replace(with: path, arguments: argv)
        fail("cannot run \(path) (`swift build` builds it; install it beside webauth)", error)
    }

    /// Runs `webauth-demo ARGUMENTS` in this process for `webauth demo ARGUMENTS`, when it is
    /// beside the running executable: the full program would only start, and read the command
    /// line, to run it. Returns when it is not there, or cannot be run: the full program then
    /// runs it, or says what is missing.
    static func execDemoProgram(arguments: ArraySlice<String>) {
        guard let path = besideRunningExecutable(demoExecutableName), FileSystem.isExecutable(path) else { return }
        _ = CurrentProcess.replace(with: path, arguments: [demoExecutableName] + arguments)
    }

    /// Makes standard input a fresh descriptor that reads `input` from its start and then its
    /// end, whatever its size: an anonymous memory file (`memfd_create`), else an unlinked
    /// private temporary file — never a pipe, whose buffer (8 KiB for a user over
    /// `pipe-user-pages-soft`; git's `wwwauth[]` lines come from the server) would block this
    /// process, the only reader to come, before it could start the full program.
    static func replay(_ input: [UInt8]) throws(SystemError) {
        let directory = CurrentProcess.environmentValue("TMPDIR").flatMap { $0.hasPrefix("/") ? $0 : nil }
        let descriptor = try FileSystem.anonymousFile(name: "webauth-input", directory: directory ?? "/tmp")
        do {
            try Descriptor.writeAll(descriptor, input)
            try Descriptor.rewind(descriptor)
        } catch {
            Descriptor.close(descriptor)
            throw error
        }
        guard descriptor != Descriptor.standardInput else { return }  // standard input was closed
        defer { Descriptor.close(descriptor) }
        try Descriptor.duplicate(descriptor, onto: Descriptor.standardInput)
    }

    private static func fail(_ message: String, _ error: SystemError) -> Never {
        StandardStreams.write(to: Descriptor.standardError, Array("webauth: \(message): \(error)\n".utf8))
        CurrentProcess.exit(1)
    }
}
