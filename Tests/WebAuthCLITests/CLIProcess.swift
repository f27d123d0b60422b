import Foundation
import Synchronization

/// The built `webauth` executable, run as a person or a script would: real process, real pipes,
/// real signals.
final class CLIProcess: Sendable {
    private let process: Process
    private let stdinPipe = Pipe()
    private let output = OutputBuffer()
    private let exited: AsyncStream<Int32>
    private let stdoutDone: AsyncStream<Void>

    /// The executable next to the test bundle (SwiftPM builds both into the same directory).
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("webauth")
    }

    init(_ arguments: [String], environment: [String: String] = [:], keepStandardInputOpen: Bool = false) throws {
        process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var base = ProcessInfo.processInfo.environment
        for name in ["BROWSER", "DISPLAY", "WAYLAND_DISPLAY", "WEBAUTH_BROWSER"] { base[name] = nil }
        process.environment = base.merging(environment) { $1 }
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = keepStandardInputOpen ? stdinPipe : FileHandle.nullDevice
        let (exited, exitedContinuation) = AsyncStream.makeStream(of: Int32.self)
        let (stdoutDone, stdoutDoneContinuation) = AsyncStream.makeStream(of: Void.self)
        self.exited = exited
        self.stdoutDone = stdoutDone
        let output = self.output
        stdoutPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                stdoutDoneContinuation.finish()
            }
            output.append(stdout: data)
        }
        stderrPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            output.append(stderr: data)
        }
        process.terminationHandler = { process in
            exitedContinuation.yield(process.terminationStatus)
            exitedContinuation.finish()
        }
        try process.run()
    }

    var standardOutput: String { output.text.stdout }
    var standardError: String { output.text.stderr }

    /// Writes to the program's standard input.
    func type(_ text: String) { stdinPipe.fileHandleForWriting.write(Data(text.utf8)) }

    /// Sends a signal.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits until standard error contains `text`, for at most `timeout`; returns standard error.
    func waitForStandardError(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = standardError
            if current.contains(text) { return current }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CLITestError("timed out waiting for '\(text)' on stderr; got: \(standardError)")
    }

    /// Waits for the process to exit (killing it after `timeout`) and returns its status once
    /// standard output is complete.
    func waitForExit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let watchdog = Task { [process] in
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { watchdog.cancel() }
        var iterator = exited.makeAsyncIterator()
        guard let status = await iterator.next() else { throw CLITestError("no exit status") }
        var done = stdoutDone.makeAsyncIterator()
        _ = await done.next()
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

struct CLITestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a process wrote, collected from the pipes' handlers.
final class OutputBuffer: Sendable {
    private let data = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))

    func append(stdout: Data) { data.withLock { $0.stdout.append(stdout) } }
    func append(stderr: Data) { data.withLock { $0.stderr.append(stderr) } }

    var text: (stdout: String, stderr: String) {
        data.withLock { (String(decoding: $0.stdout, as: UTF8.self), String(decoding: $0.stderr, as: UTF8.self)) }
    }
}
