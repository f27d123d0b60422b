// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthPlatform
import WebAuthProcess
import WebAuthTestSupport

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
    import Logging
#endif

/// The lifecycle every controlled browser shares, driven with stand-in programs instead of a
/// browser: finding the executable, holding a shared profile, starting, watching and stopping.
@Suite("Controlled browser lifecycle")
struct LifecycleTests {
    static let lookup = BrowserExecutable(
        browser: "Testium", names: ["testium", "testium-stable"], installHint: "install Testium",
        option: "TestiumBrowser.Options.executable")

    /// A fresh private directory, removed by `body`'s end.
    private func withDirectory<Result>(_ body: (URL) async throws -> Result) async rethrows -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o700)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    private func makeExecutable(_ url: URL, mode: mode_t = 0o755) throws {
        try Data("#!/bin/sh\nexit 0\n".utf8).write(to: url)
        chmod(url.path, mode)
    }

    // MARK: - Finding the executable

    @Test func aConfiguredNameIsLookedUpInPATHAndAPathIsUsedAsItIs() async throws {
        try await withDirectory { directory in
            let program = directory.appendingPathComponent("my-testium")
            try makeExecutable(program)
            let searchPath = "relative/bin:\(directory.path)"
            #expect(try Self.lookup.resolve("my-testium", searchPath: searchPath) == program.path)
            #expect(try Self.lookup.resolve(program.path, searchPath: nil) == program.path)
            #expect(Self.lookup.find(searchPath: searchPath) == nil, "the usual names are not installed")
            try makeExecutable(directory.appendingPathComponent("testium-stable"))
            #expect(try Self.lookup.resolve(nil, searchPath: searchPath).hasSuffix("/testium-stable"))
        }
    }

    @Test func onlyExecutableFilesInAbsoluteDirectoriesCount() async throws {
        try await withDirectory { directory in
            try makeExecutable(directory.appendingPathComponent("testium"), mode: 0o644)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("testium-stable"), withIntermediateDirectories: true)
            #expect(Self.lookup.find(searchPath: directory.path) == nil)

            let missing = #expect(throws: WebAuthenticationSessionError.self) {
                try Self.lookup.resolve(nil, searchPath: directory.path)
            }
            #expect(missing?.code == .noBrowserAvailable)
            #expect(missing?.message.contains("looked for testium, testium-stable in PATH \(directory.path)") == true)
            #expect(missing?.message.contains("install Testium, or set TestiumBrowser.Options.executable") == true)

            let notExecutable = #expect(throws: WebAuthenticationSessionError.self) {
                try Self.lookup.resolve(directory.appendingPathComponent("testium").path, searchPath: nil)
            }
            #expect(notExecutable?.message.contains("does not exist or is not executable") == true)
        }
    }

    // MARK: - The shared profile

    @Test func aSharedProfileIsTakenByOneSessionAtATime() async throws {
        try await withDirectory { profile in
            let first = try SharedProfileLock.acquire(profile: profile, runningBrowser: { _ in nil })
            let taken = #expect(throws: WebAuthenticationSessionError.self) {
                try SharedProfileLock.acquire(profile: profile, runningBrowser: { _ in nil })
            }
            #expect(taken?.message.contains("in use by another sign-in") == true)
            first.release()
            try SharedProfileLock.acquire(profile: profile, runningBrowser: { _ in nil }).release()
        }
    }

    @Test func aBrowserRunningOnTheSharedProfileIsRefusedAndTheLockLetGo() async throws {
        try await withDirectory { profile in
            let running = #expect(throws: WebAuthenticationSessionError.self) {
                try SharedProfileLock.acquire(profile: profile, runningBrowser: { _ in "another Testium (process 42)" })
            }
            #expect(running?.code == .browserLaunchFailed)
            #expect(running?.message.contains("in use by another Testium (process 42)") == true)
            try SharedProfileLock.acquire(profile: profile, runningBrowser: { _ in nil }).release()
        }
    }

    @Test func aProfileWhoseSetUpFailsIsReleasedAgain() async throws {
        try await withDirectory { home in
            let environment = ["XDG_DATA_HOME": home.path, "XDG_RUNTIME_DIR": home.path]
            let failed = await #expect(throws: WebAuthenticationSessionError.self) {
                _ = try await BrowserProfile.claim(
                    browser: "testium", ephemeral: false, environment: environment, runningBrowser: { _ in nil },
                    setUp: { _ throws(WebAuthenticationSessionError) in throw .browserLaunchFailed("no preferences") })
            }
            #expect(failed?.message == "no preferences")
            // The lock was let go: the next claim gets the profile.
            let (profile, _) = try await BrowserProfile.claim(
                browser: "testium", ephemeral: false, environment: environment, runningBrowser: { _ in nil },
                setUp: { _ in })
            #expect(profile.directory.path.hasPrefix(home.path))
            #expect(await profile.release(), "a shared profile is kept")
            #expect(FileManager.default.fileExists(atPath: profile.directory.path))
        }
    }

    // MARK: - Starting, watching, stopping

    /// Starts `/bin/sh -c script` as a launched browser with an ephemeral profile under `home`.
    private func start(_ script: String, home: URL) async throws -> LaunchedBrowser {
        let environment = ["XDG_RUNTIME_DIR": home.path]
        let (profile, _) = try await BrowserProfile.claim(
            browser: "testium", ephemeral: true, environment: environment, runningBrowser: { _ in nil },
            setUp: { _ in })
        return try await LaunchedBrowser.start(
            name: "testium", executable: "/bin/sh", arguments: ["-c", script], environment: environment,
            profile: profile, watched: false, logger: .init(label: "test"))
    }

    @Test func aBrowserThatExitsCleanlyWasQuitByThePerson() async throws {
        try await withDirectory { home in
            let browser = try await start("echo starting; echo 'all windows closed' >&2; exit 0", home: home)
            #expect(await browser.wentAway(connectionEnded: nil) == .closedByUser)
            #expect(browser.outputTail() == ": starting / all windows closed")
            await browser.stop(connection: nil)
        }
    }

    @Test func aKilledBrowserFailsWithHowItEnded() async throws {
        try await withDirectory { home in
            let browser = try await start("kill -9 $$", home: home)
            #expect(await browser.wentAway(connectionEnded: nil) == .failed("testium exited unexpectedly (signal 9)"))
            await browser.stop(connection: nil)
        }
    }

    @Test func stoppingEndsTheWholeGroupAndLeavesNoFileBehind() async throws {
        try await withDirectory { home in
            // A "browser" with a helper that would outlive it.
            let browser = try await start("sleep 60 & sleep 60", home: home)
            let group = browser.process.pid
            #expect(
                await eventually { BrowserProcessGroup.liveMembers(of: group).count >= 2 }, "the browser and its helper"
            )
            #expect(FileManager.default.fileExists(atPath: browser.profile.directory.path))
            #expect(FileManager.default.fileExists(atPath: browser.outputFile.path))

            await browser.stop(connection: nil)
            #expect(BrowserProcessGroup.liveMembers(of: group).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: browser.profile.directory.path))
            #expect(!FileManager.default.fileExists(atPath: browser.outputFile.path))
        }
    }

    // MARK: - Reporting

    @Test func aFinalEventIsReportedOnceAndEndsTheStream() async {
        let reporter = PresentationEvents()
        let callback = URL(string: "com.example.app:/callback?code=1")!
        #expect(reporter.deliver(.callback(callback)))
        #expect(reporter.end(.closedByUser))
        #expect(!reporter.end(.failed("later")), "one final event")
        #expect(!reporter.deliver(.callback(callback)), "nothing after it")
        var received: [BrowserEvent] = []
        for await event in reporter.stream { received.append(event) }
        #expect(received == [.callback(callback), .closedByUser])
    }

    @Test func afterDismissalNothingIsReportedAndTheTeardownRunsOnce() async {
        let reporter = PresentationEvents()
        let teardowns = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await reporter.dismiss {
                        // Real time is the point: the teardown stays open while the others dismiss.
                        try? await Task.sleep(for: .milliseconds(20))
                        teardowns.increment()
                    }
                }
            }
        }
        #expect(teardowns.value == 1)
        #expect(!reporter.isOpen)
        #expect(!reporter.deliver(.callback(URL(string: "https://example.com/cb")!)))
        #expect(!reporter.end(.failed("the browser went away")), "going away during dismissal is not news")
        var received: [BrowserEvent] = []
        for await event in reporter.stream { received.append(event) }
        #expect(received.isEmpty)
    }
}

/// A thread-safe count.
private final class Counter: Sendable {
    private let count = Locked(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
