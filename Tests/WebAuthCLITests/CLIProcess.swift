// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform
import WebAuthProcess
import WebAuthTestSupport

/// The built `webauth` executable, run as a person or a script would: real process, real pipes,
/// real signals.
final class CLIProcess: Sendable {
    private let process: Subprocess
    private let output = OutputBuffer()
    private let outputDone: Task<Void, Never>

    /// The executable next to the test bundle (SwiftPM builds both into the same directory).
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("webauth")
    }

    /// Starts `webauth` with `arguments` — or another program when `executable` is given (such
    /// as git, which runs `webauth` itself) — with `environment` over this process's own;
    /// standard input from `standardInput` when given (a terminal, say).
    init(
        _ arguments: [String], environment: [String: String] = [:], keepStandardInputOpen: Bool = false,
        standardInput: Subprocess.Stream? = nil, executable: String = CLIProcess.executable.path
    ) throws {
        var base = ProcessInfo.processInfo.environment
        for name in ["BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "WEBAUTH_BROWSER"] { base[name] = nil }
        let environment = base.merging(environment) { $1 }
        // Subprocess keeps secret-bearing variables from every child; `env` hands the ones a
        // test sets to webauth alone, as a person's shell would.
        let secrets = environment.filter { SecretEnvironment.names.contains($0.key) && !$0.value.isEmpty }
        let (executable, fullArguments) =
            secrets.isEmpty
            ? (executable, arguments)
            : (
                "/usr/bin/env",
                secrets.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [executable] + arguments
            )
        process = try Subprocess(
            executable: executable, arguments: fullArguments, environment: environment,
            standardInput: standardInput ?? (keepStandardInputOpen ? .pipe : .null), standardOutput: .pipe,
            standardError: .pipe,
            newProcessGroup: false)
        let output = self.output
        let (stdout, stderr) = (process.standardOutput!, process.standardError!)
        outputDone = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await bytes in stdout { output.append(stdout: Data(bytes)) } }
                group.addTask { for await bytes in stderr { output.append(stderr: Data(bytes)) } }
            }
        }
    }

    var standardOutput: String { output.text.stdout }
    var standardError: String { output.text.stderr }

    /// Writes to the program's standard input.
    func type(_ text: String) { process.standardInput?.write(Data(text.utf8)) }

    /// Writes `bytes` to the program's standard input and closes it.
    func finishInput(_ bytes: [UInt8]) {
        process.standardInput?.write(Data(bytes))
        try? process.standardInput?.close()
    }
    /// Closes the program's standard input: it reads end of file.
    func closeStandardInput() { try? process.standardInput?.close() }

    /// Sends a signal.
    func send(_ signal: Int32) { process.send(signal) }

    /// Waits until standard error contains `text`, for at most `timeout`; returns standard error.
    func waitForStandardError(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
        var current = ""
        let found = await eventually(within: timeout) {
            current = standardError
            return current.contains(text)
        }
        if found { return current }
        throw CLITestError("timed out waiting for '\(text)' on stderr; got: \(standardError)")
    }

    /// The process ID.
    var pid: pid_t { process.pid }

    /// Whether the process has exited.
    var hasExited: Bool { process.hasExited }

    /// Waits for the process to exit (killing it after `timeout`) and returns its exit status
    /// once its output has been read to the end.
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let status = try await waitForEnd(timeout: timeout)
        guard let code = Subprocess.exitCode(of: status) else {
            // Its standard error holds the Swift runtime's backtrace when it crashed.
            throw CLITestError(
                "webauth was killed: \(Subprocess.describe(status: status)); its standard error: \(standardError)")
        }
        return code
    }

    /// Waits for the process to end however it ends (killing it after `timeout`) and returns
    /// its wait status once its output has been read to the end.
    func waitForEnd(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let bound = watchdog(after: timeout) { [process] in await process.terminate() }
        defer { bound.cancel() }
        guard let status = await process.waitForExit() else { throw CLITestError("cancelled") }
        await outputDone.value
        return status
    }

    /// Runs to completion and returns (status, stdout, stderr).
    static func run(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try CLIProcess(arguments, environment: environment)
        let status = try await process.waitForExit()
        return (status, process.standardOutput, process.standardError)
    }
}

/// The loopback listener's port, from the line `webauth open` and `login` print on standard error.
func listeningPort(in stderr: String) throws -> Int {
    let marker = "Listening for the callback at http://127.0.0.1:"
    guard let range = stderr.range(of: marker), let port = Int(stderr[range.upperBound...].prefix { $0.isNumber })
    else { throw CLITestError("no listening port in: \(stderr)") }
    return port
}

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a process wrote, collected from the pipes' handlers.
final class OutputBuffer: Sendable {
    private let data = Locked<(stdout: Data, stderr: Data)>((Data(), Data()))

    func append(stdout: Data) { data.withLock { $0.stdout.append(stdout) } }
    func append(stderr: Data) { data.withLock { $0.stderr.append(stderr) } }

    var text: (stdout: String, stderr: String) {
        data.withLock { (String(decoding: $0.stdout, as: UTF8.self), String(decoding: $0.stderr, as: UTF8.self)) }
    }
}
