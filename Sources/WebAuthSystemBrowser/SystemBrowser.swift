// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore
import WebAuthPlatform
import WebAuthProcess

/// The person's own browser, opened the way the desktop opens links: `$BROWSER`, else
/// `xdg-open` on Linux, else `open` on macOS.
///
/// Using it keeps the person's existing sign-ins (single sign-on), but the session cannot see
/// inside it: it cannot run ephemerally, send extra headers, catch callbacks or close the tab.
/// Callbacks therefore come back through a receiver, such as the loopback listener.
///
/// Opening is safe by construction: only `https` URLs and `http` URLs to a loopback address are
/// opened; the program is started directly with an argument vector, never through a shell; and
/// the URL, which starts with its scheme, can never be read as a command-line flag.
///
/// ```swift
/// let browser = SystemBrowser(command: BrowserCommand(executable: "firefox", arguments: ["--new-window"]))
/// ```
public struct SystemBrowser: Browser {
    /// The commands tried in order; the first whose executable exists is run.
    public var commands: [BrowserCommand]
    /// How long a launcher is watched after starting: if it exits with a failure status within
    /// this time, the session fails with ``WebAuthenticationSessionError/Code/browserLaunchFailed``.
    /// A launcher still running after it (a browser that stays in the foreground) is left alone.
    public var launchCheckInterval: Duration
    /// The `PATH` used to find the executables.
    public var searchPath: String?
    /// Where the browser logs what it starts (never the URL's query).
    public var logger: Logger

    /// Creates a system browser that runs `commands`, trying each in order.
    public init(
        commands: [BrowserCommand],
        searchPath: String? = ProcessInfo.processInfo.environment["PATH"],
        launchCheckInterval: Duration = .seconds(5),
        logger: Logger = .webAuthSilent
    ) {
        self.commands = commands
        self.searchPath = searchPath
        self.launchCheckInterval = launchCheckInterval
        self.logger = logger
    }

    /// Creates a system browser that runs one command.
    public init(command: BrowserCommand) {
        self.init(commands: [command])
    }

    /// The desktop's default: the commands in `$BROWSER` if it is set, else `xdg-open` (Linux)
    /// or `open` (macOS).
    public static func desktopDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SystemBrowser {
        if let variable = environment["BROWSER"], !variable.isEmpty {
            return SystemBrowser(
                commands: BrowserCommand.parseBrowserVariable(variable), searchPath: environment["PATH"])
        }
        return SystemBrowser(commands: [BrowserCommand(executable: Desktop.urlOpener)], searchPath: environment["PATH"])
    }

    /// The Windows default browser, from Windows Subsystem for Linux: `wslview` (wslu) when
    /// installed, else `explorer.exe` through WSL's interop.
    public static func windowsDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> SystemBrowser {
        SystemBrowser(
            commands: [
                BrowserCommand(executable: "wslview"),
                BrowserCommand(executable: "explorer.exe", exitStatusIsMeaningful: false),
            ], searchPath: environment["PATH"])
    }

    /// The first command whose executable exists, with its resolved path.
    public var availableCommand: (command: BrowserCommand, path: String)? {
        for command in commands {
            if let path = command.resolvedExecutable(searchPath: searchPath) { return (command, path) }
        }
        return nil
    }

    /// The first command's program name, such as `xdg-open`.
    public var name: String {
        let command = availableCommand?.command ?? commands.first
        return command.map { URL(fileURLWithPath: $0.executable).lastPathComponent } ?? "system browser"
    }

    /// None: the session cannot see or steer the person's own browser.
    public var capabilities: BrowserCapabilities { [] }

    /// Starts the browser command with the URL.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        let url = try AuthorizationURLPolicy.validate(request.url)
        guard let (command, path) = availableCommand else {
            let tried = commands.map(\.executable).joined(separator: ", ")
            throw .noBrowserAvailable(
                "no browser command found (tried \(tried.isEmpty ? "nothing" : tried)); "
                    + "set BROWSER, install xdg-utils, or use --no-browser to open the URL yourself")
        }
        // Its own process group: a Ctrl-C meant for us must not close the person's browser.
        let process: Subprocess
        do {
            process = try Subprocess(executable: path, arguments: command.arguments(opening: url))
        } catch {
            throw .browserLaunchFailed("could not start \(path): \(error.localizedDescription)")
        }
        logger.debug("browser started", metadata: ["command": "\(path)", "pid": "\(process.pid)"])

        let (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        let name = URL(fileURLWithPath: command.executable).lastPathComponent
        let watcher = Task { [launchCheckInterval] in
            // A launcher that fails soon after starting did not open the page; one that is still
            // running after the interval (a browser in the foreground) is left to the person.
            let exited = await withTaskGroup(of: Int32?.self) { group in
                group.addTask { await process.waitForExit() }  // nil once cancelled
                group.addTask {
                    try? await Task.sleep(for: launchCheckInterval)
                    return nil
                }
                defer { group.cancelAll() }
                return await group.next() ?? nil
            }
            if command.exitStatusIsMeaningful, let status = exited, Subprocess.exitCode(of: status) != 0 {
                continuation.yield(
                    .failed("\(name) ended with \(Subprocess.describe(status: status)) without opening the page"))
            }
            continuation.finish()
        }
        return LaunchedProcess(events: events, watcher: watcher)
    }
}

/// A browser launched and left to the person; dismissing stops watching it, not the browser.
private struct LaunchedProcess: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    let watcher: Task<Void, Never>

    func dismiss() async {
        watcher.cancel()
    }
}
