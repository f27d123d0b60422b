// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform
import WebAuthProcess

/// Ends a launched browser's process group and removes its files if this process dies without
/// dismissing it.
///
/// A tiny `/bin/sh` runs in a process group of its own, reading from a socket whose other end only
/// this process holds (close-on-exec, so no other child inherits it). However this process ends —
/// even `SIGKILL` or a crash — the kernel closes that end; the shell then reads end-of-file,
/// sends `SIGTERM` and, two seconds later, `SIGKILL` to the browser's process group, and removes
/// the paths it was given (the ephemeral profile and the output file). ``disarm()`` stops the
/// shell first when the session ends normally.
final class ProcessGroupWatchdog: Sendable {
    private let process: Subprocess
    private let writeEnd: Locked<Int32?>

    /// The shell script: `$1` is the process group, the other arguments are paths to remove.
    static let script = """
        read -r line <&3
        kill -TERM "-$1" 2>/dev/null
        sleep 2
        kill -KILL "-$1" 2>/dev/null
        shift
        if [ "$#" -gt 0 ]; then rm -rf -- "$@"; fi
        """

    /// Starts watching process group `group`; `paths` are removed if this process dies.
    init(group: Int32, removing paths: [String]) throws {
        // A socket pair rather than a pipe: it can be created close-on-exec atomically, so no
        // child another thread spawns meanwhile inherits the end that must close with us.
        let descriptors = try Pipe.socketPair()
        defer { Descriptor.close(descriptors.0) }
        do {
            process = try Subprocess(
                executable: "/bin/sh",
                arguments: ["-c", Self.script, "webauth-browser-watchdog", String(group)] + paths,
                environment: ["PATH": "/usr/bin:/bin"],
                descriptors: [3: descriptors.0])
        } catch {
            Descriptor.close(descriptors.1)
            throw error
        }
        writeEnd = Locked(descriptors.1)
    }

    /// The watchdog's process identifier.
    var pid: Int32 { process.pid }

    /// Stops the watchdog without letting it act. Safe to call more than once.
    func disarm() async {
        OtherProcess.signalGroup(process.pid, SignalNumber.kill)
        _ = await process.exitStatus()
        closeWriteEnd()
    }

    /// Closes this process's end of the pipe, as the kernel does when this process dies: a
    /// watchdog still armed then acts. Safe to call more than once.
    func closeWriteEnd() {
        if let descriptor = writeEnd.withLock({ end -> Int32? in
            defer { end = nil }
            return end
        }) {
            Descriptor.close(descriptor)
        }
    }
}
