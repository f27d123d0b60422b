// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A headless-Chromium launcher script for tests, made by
/// ``TestBrowsers/makeChromiumLauncherScript(in:)``, and the browsers it started.
///
/// Put ``scriptPath`` in `$BROWSER` (or run it with a URL); call ``terminate()`` when the test
/// ends, which stops every browser the script started and deletes ``directory``.
public struct ChromiumLauncher: Sendable, Hashable {
    static let pidFileName = "chromium.pid"
    static let processGroupFileName = "process-groups"

    /// The launcher's own directory: the script, PID files, and a profile and log per run.
    public let directory: URL
    /// The Chromium executable the script runs.
    public let chromiumPath: String

    /// The executable launcher script (mode 0700); its arguments are passed on to Chromium.
    public var scriptPath: String { directory.appendingPathComponent("chromium-headless").path }
    /// A file the script appends each browser's process ID to, one per line.
    public var pidFile: String { directory.appendingPathComponent(Self.pidFileName).path }
    /// A file the script appends each run's process group to (led by its `timeout` process).
    var processGroupFile: String { directory.appendingPathComponent(Self.processGroupFileName).path }

    init(directory: URL, chromiumPath: String) {
        self.directory = directory
        self.chromiumPath = chromiumPath
    }

    /// The process IDs of the browsers started so far, oldest first (running or not).
    public var browserProcessIDs: [pid_t] { Self.processIDs(in: pidFile) }

    /// Stops every browser the script started, with its helper processes — `SIGTERM`, then
    /// `SIGKILL` to what is left after two seconds — and deletes ``directory``.
    ///
    /// Blocks for as long as that takes (usually well under a second). Safe to call more than
    /// once, and when nothing was started.
    public func terminate() {
        let ownGroup = getpgrp()
        let groups = Self.processIDs(in: processGroupFile).filter { $0 > 1 && $0 != ownGroup }
        let browsers = browserProcessIDs.filter { $0 > 1 }

        func signalAll(_ signal: Int32) {
            for group in groups { _ = kill(-group, signal) }
            for browser in browsers { _ = kill(browser, signal) }
        }
        func anyAlive() -> Bool {
            groups.contains { !BrowserProcessGroup.liveMembers(of: $0).isEmpty }
                || browsers.contains { BrowserProcessGroup.isLive($0) }
        }
        func waitUntilGone(within limit: Duration) -> Bool {
            let deadline = ContinuousClock.now + limit
            while anyAlive() {
                if ContinuousClock.now >= deadline { return false }
                // Real time is the point: a synchronous teardown that waits for the browsers' exit.
                usleep(20_000)
            }
            return true
        }

        if !groups.isEmpty || !browsers.isEmpty {
            signalAll(SIGTERM)
            if !waitUntilGone(within: .seconds(2)) {
                signalAll(SIGKILL)
                _ = waitUntilGone(within: .seconds(1))
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The process IDs listed in `file`, one per line.
    private static func processIDs(in file: String) -> [pid_t] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }
}
