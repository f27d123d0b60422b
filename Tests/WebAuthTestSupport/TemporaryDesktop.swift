// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A throw-away Linux desktop for tests: its own XDG data, config and runtime directories (and
/// empty system ones, so that nothing installed on the machine interferes), and the variables
/// that point child processes at them — `xdg-mime`, `xdg-open`, a browser, the scheme handler.
///
/// `DISPLAY` is set to a dummy value: `xdg-open` dispatches `x-scheme-handler/…` only when it
/// believes there is a display (TESTING.md), and nothing here draws on it.
///
/// ```swift
/// let desktop = try TemporaryDesktop()
/// defer { desktop.remove() }
/// let result = try await desktop.run("/usr/bin/xdg-open", ["com.example.app:/cb?x=1"])
/// ```
public struct TemporaryDesktop: Sendable {
    /// The directory holding everything.
    public let root: URL
    /// The environment variables of a process "on" this desktop: the test process's own (minus
    /// `BROWSER` and display variables), with `HOME`, the XDG directories and `DISPLAY` replaced.
    public let variables: [String: String]

    /// `$XDG_DATA_HOME`.
    public var dataHome: String { root.appendingPathComponent("data").path }
    /// `$XDG_CONFIG_HOME`.
    public var configHome: String { root.appendingPathComponent("config").path }
    /// `$XDG_RUNTIME_DIR` (mode 0700).
    public var runtimeDirectory: String { root.appendingPathComponent("run").path }

    /// Creates the directories under a new directory in the system's temporary directory. The
    /// path has no spaces or colons, so it can appear in `$BROWSER` and `.desktop` files.
    public init() throws {
        root = URL(fileURLWithPath: "/tmp").appendingPathComponent("webauth-desktop-\(UUID().uuidString.prefix(8))")
        let manager = FileManager.default
        for name in ["home", "data", "config", "run", "system-data", "system-config"] {
            try manager.createDirectory(
                at: root.appendingPathComponent(name), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        var variables = ProcessInfo.processInfo.environment
        for name in ["BROWSER", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP", "DESKTOP_SESSION", "KDE_FULL_SESSION"] {
            variables[name] = nil
        }
        variables["HOME"] = root.appendingPathComponent("home").path
        variables["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        variables["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        variables["XDG_RUNTIME_DIR"] = root.appendingPathComponent("run").path
        variables["XDG_DATA_DIRS"] = root.appendingPathComponent("system-data").path
        variables["XDG_CONFIG_DIRS"] = root.appendingPathComponent("system-config").path
        variables["DISPLAY"] = ":97"
        self.variables = variables
    }

    /// Deletes everything. A browser that is still exiting may write into the directory while it
    /// goes, so a failed removal is tried again a few times.
    public func remove() {
        for _ in 0..<5 {
            if (try? FileManager.default.removeItem(at: root)) != nil
                || !FileManager.default.fileExists(atPath: root.path)
            {
                return
            }
            // Real time is the point: a browser still exiting writes into the directory a while.
            usleep(100_000)
        }
    }

    /// The directory SwiftPM built this test bundle into, where the package's executables
    /// (`webauth`, `webauth-scheme-handler`) are too.
    public static var builtProductsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The built `webauth-scheme-handler`.
    public static var schemeHandlerPath: String {
        builtProductsDirectory.appendingPathComponent("webauth-scheme-handler").path
    }

    /// What a finished child process left.
    public struct ProcessResult: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output.
        public var standardOutput: String
        /// Standard error.
        public var standardError: String
    }

    /// Runs `executable` with `arguments` on this desktop (with ``variables`` plus `extra`),
    /// waits for it for at most `timeout` (then kills it), and returns what it left.
    public func run(
        _ executable: String, _ arguments: [String], extra: [String: String] = [:], timeout: Duration = .seconds(20)
    ) async throws -> ProcessResult {
        try await Self.run(executable, arguments, environment: variables.merging(extra) { $1 }, timeout: timeout)
    }

    /// Runs `executable` with `arguments` and exactly `environment` (see ``run(_:_:extra:timeout:)``).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(20)
    ) async throws -> ProcessResult {
        let process = try RunningProcess(executable, arguments, environment: environment)
        return await process.wait(timeout: timeout)
    }

    /// Starts `executable` with `arguments` on this desktop and returns at once.
    public func start(_ executable: String, _ arguments: [String], extra: [String: String] = [:]) throws
        -> RunningProcess
    {
        try RunningProcess(executable, arguments, environment: variables.merging(extra) { $1 })
    }

    /// A child process started by ``start(_:_:extra:)``.
    ///
    /// Started with the package's own `Subprocess` (`posix_spawn`, no inherited descriptors),
    /// not `Foundation.Process`: on Linux a `Process` and its run-loop source hold each other
    /// until someone calls `waitUntilExit()`, so every child a test started and awaited by its
    /// termination handler stayed in memory for good (LeakSanitizer reported them).
    public final class RunningProcess: Sendable {
        private let process: Subprocess
        private let standardOutput: Task<String, Never>
        private let standardError: Task<String, Never>

        init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
            process = try Subprocess(
                executable: executable, arguments: arguments, environment: environment, standardInput: .null,
                standardOutput: .pipe, standardError: .pipe, newProcessGroup: false)
            let output = process.standardOutput
            let errors = process.standardError
            standardOutput = Task { await TemporaryDesktop.collect(output) }
            standardError = Task { await TemporaryDesktop.collect(errors) }
        }

        /// The process ID.
        public var processIdentifier: Int32 { process.pid }

        /// Waits for the process to exit, killing it after `timeout`, and returns what it left.
        /// The status is the exit status, or the signal's number when a signal ended it.
        public func wait(timeout: Duration = .seconds(20)) async -> ProcessResult {
            let process = self.process
            let bound = watchdog(after: timeout) { process.send(SIGTERM) }
            defer { bound.cancel() }
            let status = await process.exitStatus()
            return ProcessResult(
                status: Subprocess.exitCode(of: status) ?? status & 0x7F,
                standardOutput: await standardOutput.value, standardError: await standardError.value)
        }

        /// Sends `SIGTERM`.
        public func terminate() {
            process.send(SIGTERM)
        }
    }

    /// Everything `stream` (a child's output) delivers, as text.
    static func collect(_ stream: AsyncStream<[UInt8]>?) async -> String {
        guard let stream else { return "" }
        var bytes: [UInt8] = []
        for await chunk in stream {
            bytes += chunk
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
