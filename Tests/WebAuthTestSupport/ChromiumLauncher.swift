import Foundation

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
            groups.contains { Self.groupIsAlive($0) } || browsers.contains { Self.processIsAlive($0) }
        }
        func waitUntilGone(within limit: Duration) -> Bool {
            let deadline = ContinuousClock.now + limit
            while anyAlive() {
                if ContinuousClock.now >= deadline { return false }
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

    /// Whether a process of group `group` is still running. A process that has exited but not
    /// been waited for by its parent (a zombie) does not count: it holds no resources, and the
    /// launching test may never wait for it.
    private static func groupIsAlive(_ group: pid_t) -> Bool {
        guard kill(-group, 0) == 0 else { return false }
        #if os(Linux)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.contains { entry in
                guard let pid = pid_t(entry), let (state, processGroup) = processStatus(pid) else { return false }
                return processGroup == group && state != "Z"
            }
        #else
            return true
        #endif
    }

    /// Whether process `pid` is still running (not a zombie; see ``groupIsAlive(_:)``).
    private static func processIsAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        #if os(Linux)
            guard let (state, _) = processStatus(pid) else { return false }
            return state != "Z"
        #else
            return true
        #endif
    }

    #if os(Linux)
        /// The state letter and process group of `pid`, from `/proc/{pid}/stat`
        /// (`pid (comm) state ppid pgrp …`; the command name may itself contain spaces and `)`).
        private static func processStatus(_ pid: pid_t) -> (state: Character, processGroup: pid_t)? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let commandEnd = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: commandEnd)...].split(separator: " ")
            guard fields.count > 2, let state = fields[0].first, let group = pid_t(fields[2]) else { return nil }
            return (state, group)
        }
    #endif

    /// The process IDs listed in `file`, one per line.
    private static func processIDs(in file: String) -> [pid_t] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
    }
}
