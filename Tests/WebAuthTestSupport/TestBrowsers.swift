// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Real browsers for tests, set up so that they stay on the machine.
///
/// ```swift
/// // A test that needs it carries TestFixture.chromium.required.
/// let launcher = try TestBrowsers.makeChromiumLauncherScript()
/// defer { launcher.terminate() }
/// let browser = SystemBrowser(command: BrowserCommand(executable: launcher.scriptPath))  // or $BROWSER
/// ```
public enum TestBrowsers {
    /// The executable names looked for, in order.
    public static let chromiumNames = ["chromium", "chromium-browser", "google-chrome"]

    /// The flags that keep a test Chromium headless and offline (docs: TESTING.md), besides
    /// `--no-sandbox` (added by the script when it runs as root) and `--user-data-dir`.
    public static let chromiumOfflineArguments = [
        "--headless=new",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--proxy-server=http://127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
        "--disable-gpu",
    ]

    /// How long a browser started by a launcher script may live at most, in seconds.
    public static let chromiumLifetimeLimit = 60

    /// The path of the first of ``chromiumNames`` found in `searchPath`, or `nil` when none is
    /// installed (tests that need a real browser then skip).
    public static func chromiumPath(
        searchPath: String? = ProcessInfo.processInfo.environment["PATH"]
    ) -> String? {
        chromiumNames.lazy.compactMap { executablePath(named: $0, searchPath: searchPath) }.first
    }

    /// Writes a launcher script usable as `$BROWSER` into a new directory inside `directory`.
    ///
    /// Each run of the script starts Chromium headless with ``chromiumOfflineArguments``, a fresh
    /// profile (`--user-data-dir`) and `--no-sandbox` when run as root, then the script's own
    /// arguments (the URL) as given. It blocks while the browser runs, which is at most
    /// ``chromiumLifetimeLimit`` seconds (`timeout` enforces it). Chromium's output goes to a log
    /// file next to the profile. Call ``ChromiumLauncher/terminate()`` when done.
    ///
    /// - Parameter directory: Where to put the launcher's directory. Its path must not contain
    ///   spaces or colons, which `$BROWSER` cannot express. Default: the temporary directory.
    /// - Throws: ``TestBrowserError`` when Chromium or `timeout` is not installed or the files
    ///   cannot be written.
    public static func makeChromiumLauncherScript(
        in directory: URL = FileManager.default.temporaryDirectory
    ) throws -> ChromiumLauncher {
        try writeChromiumLauncher(in: directory)
    }

    /// Writes a launcher script: the offline flags, a fresh profile per run, `prelude` (shell lines
    /// run first, such as environment exports) and `profileSetup` (shell lines run once the fresh
    /// profile exists in `$profile`, such as seeding its preferences).
    static func writeChromiumLauncher(
        in directory: URL, prelude: String = "", profileSetup: String = ""
    ) throws -> ChromiumLauncher {
        guard let chromium = chromiumPath() else {
            throw TestBrowserError(
                description: "no Chromium found (looked for \(chromiumNames.joined(separator: ", ")))")
        }
        guard let timeout = executablePath(named: "timeout", searchPath: ProcessInfo.processInfo.environment["PATH"])
        else { throw TestBrowserError(description: "timeout(1) not found; install coreutils") }

        let launcherDirectory = directory.appendingPathComponent("chromium-launcher-\(UUID().uuidString.prefix(8))")
        guard !launcherDirectory.path.contains(" "), !launcherDirectory.path.contains(":") else {
            throw TestBrowserError(
                description: "\(launcherDirectory.path) has a space or colon; $BROWSER cannot name it")
        }
        let launcher = ChromiumLauncher(directory: launcherDirectory, chromiumPath: chromium)
        do {
            try FileManager.default.createDirectory(
                at: launcherDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data().write(to: URL(fileURLWithPath: launcher.pidFile))
            try Data().write(to: URL(fileURLWithPath: launcher.processGroupFile))
            let script = chromiumScript(
                launcher: launcher, timeoutPath: timeout, prelude: prelude, profileSetup: profileSetup)
            try Data(script.utf8).write(to: URL(fileURLWithPath: launcher.scriptPath))
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: launcher.scriptPath)
        } catch {
            try? FileManager.default.removeItem(at: launcherDirectory)
            throw TestBrowserError(description: "cannot write the Chromium launcher: \(error)")
        }
        return launcher
    }

    /// The text of the launcher script.
    static func chromiumScript(
        launcher: ChromiumLauncher, timeoutPath: String, prelude: String = "", profileSetup: String = ""
    ) -> String {
        let flags = chromiumOfflineArguments.map { "    \(shellQuoted($0)) \\\n" }.joined()
        return """
            #!/bin/sh
            # Headless, offline Chromium for webauth's tests (written by WebAuthTestSupport.TestBrowsers).
            # Usage: \(launcher.scriptPath) URL   (usable as $BROWSER; flags from TESTING.md)
            set -eu
            launcher_dir=\(shellQuoted(launcher.directory.path))
            \(prelude)
            # A fresh profile for every run.
            profile=$(mktemp -d "$launcher_dir/profile.XXXXXX")
            \(profileSetup)
            set -- \\
            \(flags)    "--user-data-dir=$profile" \\
                "$@"

            # Chromium's sandbox cannot start as root.
            if [ "$(id -u)" -eq 0 ]; then
                set -- --no-sandbox "$@"
            fi

            # timeout(1) leads a new process group holding the browser and its helpers (terminate()
            # signals the group) and stops the browser after \(chromiumLifetimeLimit) s in any case.
            # The inner shell records its PID, then becomes Chromium: the PID file names the browser.
            echo "$$" >>"$launcher_dir/\(ChromiumLauncher.processGroupFileName)"
            # shellcheck disable=SC2016 # the inner shell expands $$, $0 and $@
            exec \(shellQuoted(timeoutPath)) -k 5 \(chromiumLifetimeLimit) \\
                /bin/sh -c 'echo "$$" >>"$0"; exec "$@"' "$launcher_dir/\(ChromiumLauncher.pidFileName)" \\
                \(shellQuoted(launcher.chromiumPath)) "$@" \\
                </dev/null >>"$profile.log" 2>&1

            """
    }

    /// `value` in single quotes for a POSIX shell.
    static func shellQuoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The first executable file `name` in the directories of `searchPath`.
    static func executablePath(named name: String, searchPath: String?) -> String? {
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A test browser could not be set up.
public struct TestBrowserError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}
