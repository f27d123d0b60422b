// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthProcess
import WebAuthTestSupport

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

/// The watchdog that ends a launched browser and removes its files when this process dies without
/// dismissing it, tested on a stand-in process group.
@Suite("Process group watchdog")
struct ProcessGroupWatchdogTests {
    @Test func whenItsSocketClosesItEndsTheGroupAndRemovesThePaths() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ff-watchdog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: directory.appendingPathComponent("cookies.sqlite").path, contents: Data())
        defer { try? FileManager.default.removeItem(at: directory) }

        let browser = try Subprocess(executable: "/bin/sleep", arguments: ["60"])
        let watchdog = try ProcessGroupWatchdog(group: browser.pid, removing: [directory.path])
        watchdog.closeWriteEnd()  // what the kernel does when this process dies

        let status = await browser.exitStatus()
        #expect(Subprocess.describe(status: status) == "signal \(SIGTERM)")
        #expect(await eventually(within: .seconds(10)) { !FileManager.default.fileExists(atPath: directory.path) })
        await watchdog.disarm()
    }

    @Test func aDisarmedWatchdogLeavesEverythingAlone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ff-watchdog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let browser = try Subprocess(executable: "/bin/sleep", arguments: ["60"])
        let watchdog = try ProcessGroupWatchdog(group: browser.pid, removing: [directory.path])
        await watchdog.disarm()
        // Disarming ends the watchdog's whole process group: with none of it left, nothing can
        // act later, so what holds now holds for good.
        #expect(kill(-watchdog.pid, 0) == -1 && errno == ESRCH, "no process of the watchdog remains")
        #expect(!browser.hasExited)
        #expect(FileManager.default.fileExists(atPath: directory.path))
        await browser.terminate(grace: .milliseconds(100))
    }
}
