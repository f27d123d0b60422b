// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A private D-Bus session bus with an unlocked gnome-keyring-daemon on it, for one test.
///
/// `dbus-run-session` starts the bus and runs a shell that starts
/// `gnome-keyring-daemon --foreground --unlock --components=secrets` with a password on its
/// standard input (with no login keyring yet, the daemon creates one with that password,
/// unlocked — an empty password would ask a prompter, which needs a display), waits until the
/// daemon owns `org.freedesktop.secrets`, and writes the bus address to a file. Everything runs
/// in one process group, ended by ``stop()``.
///
/// ```swift
/// let keyring = try await PrivateKeyring.start(in: temporaryHome)
/// // run secret-tool (or webauth) with keyring.busEnvironment added to its environment
/// await keyring.stop()
/// ```
package struct PrivateKeyring: Sendable {
    /// The keyring's home: its data, runtime directory and logs live below it.
    package let home: String
    /// Everything a program needs to use this keyring, home included: `HOME`,
    /// `XDG_RUNTIME_DIR`, `XDG_DATA_HOME`, `XDG_STATE_HOME`, `PATH`, `LANG`,
    /// `DBUS_SESSION_BUS_ADDRESS`.
    package let environment: [String: String]
    private let process: Subprocess

    /// Only what points a program at this keyring's bus (`DBUS_SESSION_BUS_ADDRESS`,
    /// `XDG_RUNTIME_DIR`), to add to an environment of the test's own.
    package var busEnvironment: [String: String] {
        environment.filter { ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"].contains($0.key) }
    }

    /// Starts a keyring whose home is `home` (an existing directory the caller removes).
    package static func start(in home: String, within limit: Duration = .seconds(60)) async throws
        -> PrivateKeyring
    {
        let runtime = home + "/run"
        mkdir(runtime, 0o700)
        let script = """
            printf 'webauth-test' | gnome-keyring-daemon --foreground --unlock --components=secrets \
                >"$HOME/keyring.log" 2>&1 &
            echo "$!" >"$HOME/daemon.pid"
            until dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true; do
                sleep 0.05
            done
            printf '%s' "$DBUS_SESSION_BUS_ADDRESS" >"$HOME/bus.partial" && mv "$HOME/bus.partial" "$HOME/bus"
            wait
            """
        var environment = [
            "HOME": home, "XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": home + "/data",
            "XDG_STATE_HOME": home + "/state", "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
        ]
        let process = try Subprocess(
            executable: "/usr/bin/dbus-run-session", arguments: ["--", "/bin/sh", "-c", script],
            environment: environment, output: home + "/session.log")
        _ = await eventually(within: limit) { process.hasExited || access(home + "/bus", F_OK) == 0 }
        guard !process.hasExited, let bus = try? String(contentsOfFile: home + "/bus", encoding: .utf8) else {
            await process.terminate(grace: .milliseconds(200))
            throw PrivateKeyringError(
                description: "the keyring did not start within \(limit): \(logs(in: home))")
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus
        return PrivateKeyring(home: home, environment: environment, process: process)
    }

    /// Kills the keyring daemon with `SIGKILL`, as a crash would, leaving the bus running (with
    /// nobody owning `org.freedesktop.secrets` on it any more); returns once it is gone.
    package func killDaemon(within limit: Duration = .seconds(10)) async throws {
        guard let text = try? String(contentsOfFile: home + "/daemon.pid", encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw PrivateKeyringError(description: "the keyring daemon's PID is unknown") }
        kill(pid, SIGKILL)
        let gone = await eventually(within: limit) {
            if kill(pid, 0) != 0 && errno == ESRCH { return true }
            // A killed child of the session's shell stays a zombie until the shell reaps it.
            let state = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            return state?.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") == true
        }
        guard gone else { throw PrivateKeyringError(description: "the keyring daemon \(pid) outlived SIGKILL") }
    }

    /// What the bus and the daemon have said so far, to report when something went wrong.
    package var logs: String { Self.logs(in: home) }

    private static func logs(in home: String) -> String {
        ["session.log", "keyring.log"].map { name in
            "\(name): " + ((try? String(contentsOfFile: home + "/" + name, encoding: .utf8)) ?? "(none)")
        }.joined(separator: "\n")
    }

    /// Ends the bus, the daemon and everything else of the session.
    package func stop() async { await process.terminate(grace: .seconds(2)) }
}

/// A ``PrivateKeyring`` that did not start.
package struct PrivateKeyringError: Error, CustomStringConvertible {
    package var description: String
}
