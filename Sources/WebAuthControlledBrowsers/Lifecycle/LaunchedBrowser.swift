// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore
import WebAuthPlatform
import WebAuthProcess

/// A browser process the session launched: the leader of a process group of its own, running on
/// a ``BrowserProfile`` this session holds, writing its output to a private file — and the one
/// way such a browser is ended and cleaned up after.
///
/// Chromium and Firefox differ only in the protocol client plugged in on top
/// (``BrowserControlConnection``); launching, watching for the process going away, and
/// ``stop(connection:)`` are the same for both.
final class LaunchedBrowser: Sendable {
    /// The browser's short name, such as `chromium`, for logs and messages.
    let name: String
    /// The browser's process, which leads a process group of its own.
    let process: Subprocess
    /// The profile the browser runs with.
    let profile: BrowserProfile
    /// Where the browser's standard output and error go: a private file (mode 0600) named like
    /// ephemeral profiles, so the stale-profile sweep removes it if this process dies.
    let outputFile: URL
    private let watchdog: ProcessGroupWatchdog?
    private let logger: Logger

    private init(
        name: String, process: Subprocess, profile: BrowserProfile, outputFile: URL, watchdog: ProcessGroupWatchdog?,
        logger: Logger
    ) {
        self.name = name
        self.process = process
        self.profile = profile
        self.outputFile = outputFile
        self.watchdog = watchdog
        self.logger = logger
    }

    /// Starts `executable` on `profile`. If it cannot be started, the profile is released.
    ///
    /// - Parameters:
    ///   - name: The browser's short name, such as `chromium`.
    ///   - executable: The program.
    ///   - arguments: Its arguments.
    ///   - environment: Its environment.
    ///   - descriptors: Descriptors to hand it, by number in the child (a DevTools pipe).
    ///   - profile: The profile it runs on, now owned by the launched browser.
    ///   - watched: Whether a ``ProcessGroupWatchdog`` ends the browser and removes its files should
    ///     this process die without stopping it.
    ///   - logger: Where to log.
    static func start(
        name: String, executable: String, arguments: [String], environment: [String: String],
        descriptors: [Int32: Int32] = [:], profile: BrowserProfile, watched: Bool, logger: Logger
    ) async throws(WebAuthenticationSessionError) -> LaunchedBrowser {
        let outputFile: URL
        let process: Subprocess
        do throws(WebAuthenticationSessionError) {
            outputFile = try makeOutputFile(name: name, environment: environment)
            do {
                process = try Subprocess(
                    executable: executable, arguments: arguments, environment: environment, descriptors: descriptors,
                    output: outputFile.path)
            } catch {
                try? FileManager.default.removeItem(at: outputFile)
                throw .browserLaunchFailed("cannot start \(executable): \(error)")
            }
        } catch {
            await profile.release()
            throw error
        }
        let removable = (profile.isEphemeral ? [profile.directory.path] : []) + [outputFile.path]
        let watchdog = watched ? (try? ProcessGroupWatchdog(group: process.pid, removing: removable)) : nil
        logger.debug(
            "\(name) started",
            metadata: [
                "pid": "\(process.pid)", "executable": "\(executable)",
                "profile": "\(profile.isEphemeral ? "ephemeral" : "shared")",
            ])
        return LaunchedBrowser(
            name: name, process: process, profile: profile, outputFile: outputFile, watchdog: watchdog, logger: logger)
    }

    // MARK: - Watching

    /// The exit status once the process has exited, or `nil` if it is still running after
    /// `limit`. Polls, because waiting for the exit cannot be cancelled.
    func waitForExit(within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while !process.hasExited {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await process.exitStatus()
    }

    /// What the session hears when the browser went away without being asked: its connection
    /// closed (`connectionEnded` says how) or its process exited. The person quitting the browser
    /// ends it with exit status 0, which is ``BrowserEvent/closedByUser``; a crash, a kill or an
    /// error is ``BrowserEvent/failed(_:)``.
    func wentAway(connectionEnded: String?) async -> BrowserEvent {
        // The connection usually closes a moment before the process is reaped; wait for the status.
        guard let status = await waitForExit(within: .seconds(3)) else {
            return .failed("\(name) \(connectionEnded ?? "went away") unexpectedly")
        }
        guard status != 0 else {
            logger.debug("\(name) was quit")
            return .closedByUser
        }
        return .failed("\(name) exited unexpectedly (\(Subprocess.describe(status: status)))")
    }

    /// The last lines the browser wrote, as `: …` for an error message, or nothing.
    func outputTail() -> String {
        guard let handle = FileHandle(forReadingAtPath: outputFile.path) else { return "" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        let data = (try? handle.readToEnd()) ?? nil
        let lines = String(decoding: data ?? Data(), as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.suffix(3)
        guard !lines.isEmpty else { return "" }
        return ": " + lines.map { String($0.prefix(200)) }.joined(separator: " / ")
    }

    // MARK: - Stopping

    /// Ends the browser and leaves nothing behind; for a dismissed presentation and a launch that
    /// failed half-way alike.
    ///
    /// A browser on the shared profile is first asked to quit over `connection` and given a few
    /// seconds, so that it writes the cookies the person will want next time; an ephemeral
    /// profile holds nothing worth a clean shutdown, so its browser is ended at once. Either way
    /// the whole process group is then ended and waited for, the connection closed, the ephemeral
    /// profile removed (a shared one's lock released) and the output file removed.
    func stop(connection: (any BrowserControlConnection)?) async {
        let started = ContinuousClock.now
        if !profile.isEphemeral, !process.hasExited, let connection, connection.isOpen {
            await connection.requestBrowserClose(timeout: .seconds(3))
            _ = await waitForExit(within: .seconds(5))
        }
        await watchdog?.disarm()
        await process.terminate(grace: profile.isEphemeral ? .zero : .seconds(2))  // the group, helpers included
        let gone = await BrowserProcessGroup.waitUntilGone(process.pid, within: .seconds(3))
        if !gone {
            logger.warning(
                "\(name) helpers still running after the browser exited", metadata: ["group": "\(process.pid)"])
        }
        await connection?.close()
        let removed = await profile.release()
        if !removed {
            logger.warning("could not remove the ephemeral profile", metadata: ["path": "\(profile.directory.path)"])
        }
        try? FileManager.default.removeItem(at: outputFile)
        logger.debug(
            "\(name) stopped", metadata: ["pid": "\(process.pid)", "after": "\(ContinuousClock.now - started)"])
    }

    /// Creates an empty private output file (mode 0600) named like ephemeral profiles
    /// (`<name>_output-<pid>-<random>`).
    private static func makeOutputFile(
        name: String, environment: [String: String]
    ) throws(WebAuthenticationSessionError) -> URL {
        let base = try BrowserProfile.ephemeralBase(environment: environment)
        let file = base.appendingPathComponent(
            "\(name)_output-\(CurrentProcess.id)-\(UUID().uuidString.prefix(8).lowercased())")
        do {
            let descriptor = try Descriptor.open(file.path, .write, [.create, .exclusive, .noFollow], mode: 0o600)
            Descriptor.close(descriptor)
        } catch {
            throw .browserLaunchFailed("cannot create \(file.path): \(error)")
        }
        return file
    }
}
