import Foundation

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
    public final class RunningProcess: Sendable {
        private let process: Process
        private let exited: AsyncStream<Int32>
        private let standardOutput: Task<String, Never>
        private let standardError: Task<String, Never>

        init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            let (exited, exitedContinuation) = AsyncStream.makeStream(
                of: Int32.self, bufferingPolicy: .bufferingNewest(1))
            self.exited = exited
            process.terminationHandler = { process in
                exitedContinuation.yield(process.terminationStatus)
                exitedContinuation.finish()
            }
            try process.run()
            let outputHandle = output.fileHandleForReading
            let errorHandle = errors.fileHandleForReading
            standardOutput = Task { await TemporaryDesktop.readAll(outputHandle) }
            standardError = Task { await TemporaryDesktop.readAll(errorHandle) }
        }

        /// The process ID.
        public var processIdentifier: Int32 { process.processIdentifier }

        /// Waits for the process to exit, killing it after `timeout`, and returns what it left.
        public func wait(timeout: Duration = .seconds(20)) async -> ProcessResult {
            let process = self.process
            let watchdog = Task {
                try await Task.sleep(for: timeout)
                process.terminate()
            }
            defer { watchdog.cancel() }
            var iterator = exited.makeAsyncIterator()
            let status = await iterator.next() ?? -1
            return ProcessResult(
                status: status, standardOutput: await standardOutput.value, standardError: await standardError.value)
        }

        /// Sends `SIGTERM`.
        public func terminate() {
            process.terminate()
        }
    }

    /// Reads `handle` to its end on a thread of its own.
    static func readAll(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: String(decoding: handle.readDataToEndOfFile(), as: UTF8.self))
            }
        }
    }
}
