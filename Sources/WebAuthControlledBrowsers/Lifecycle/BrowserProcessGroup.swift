import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The processes of a launched browser's process group: the browser and the helpers it started.
///
/// Every controlled browser leads a process group of its own, so that ending the group ends every
/// helper too (``LaunchedBrowser/stop(connection:)``).
package enum BrowserProcessGroup {
    /// The processes of group `group` that are still running. Dead members (zombies waiting for a
    /// parent to collect them, orphans waiting for the system's init) hold nothing and are not
    /// counted.
    ///
    /// On systems without `/proc`, any process of the group counts.
    package static func liveMembers(of group: pid_t) -> [pid_t] {
        guard group > 1, kill(-group, 0) == 0 || errno == EPERM else { return [] }
        #if os(Linux)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { entry -> pid_t? in
                guard let pid = pid_t(entry), let (state, processGroup) = status(of: pid) else { return nil }
                return processGroup == group && state != "Z" && state != "X" ? pid : nil
            }
        #else
            return [group]
        #endif
    }

    /// Whether process `pid` is still running: it exists and is not dead (a zombie, or exiting).
    package static func isLive(_ pid: pid_t) -> Bool {
        guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
            guard let (state, _) = status(of: pid) else { return false }
            return state != "Z" && state != "X"
        #else
            return true
        #endif
    }

    /// Waits (without blocking a thread) until group `group` has no live process or `limit` has
    /// passed. Returns whether the group is gone.
    @discardableResult
    package static func waitUntilGone(_ group: pid_t, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !liveMembers(of: group).isEmpty {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    #if os(Linux)
        /// The state letter and process group of `pid`, from `/proc/{pid}/stat`
        /// (`pid (comm) state ppid pgrp …`; the command name may itself contain spaces and `)`).
        private static func status(of pid: pid_t) -> (state: Character, processGroup: pid_t)? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let commandEnd = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: commandEnd)...].split(separator: " ")
            guard fields.count > 2, let state = fields[0].first, let group = pid_t(fields[2]) else { return nil }
            return (state, group)
        }
    #endif
}
