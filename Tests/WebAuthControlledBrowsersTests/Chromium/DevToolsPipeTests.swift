// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform
import WebAuthProcess
import WebAuthTestSupport

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

extension ChromiumTests {
    /// The DevTools pipe against a real Chromium, without a session around it.
    @Suite("DevTools pipe", .timeLimit(.minutes(1)))
    struct DevToolsPipeTests {
        /// A Chromium started the way ``ChromiumBrowser`` starts it, in a temporary profile.
        final class BareChromium: Sendable {
            let process: Subprocess
            let connection: DevToolsConnection
            let profile: URL
            let record = Record()

            /// What the connection reported.
            final class Record: Sendable {
                let events = Locked<[String]>([])
                let closedReason = Locked<String?>(nil)
            }

            init() throws {
                let executable = try #require(TestBrowsers.chromiumPath(), "Chromium is installed")
                profile = FileManager.default.temporaryDirectory.appendingPathComponent("devtools-pipe-\(UUID())")
                try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
                let pipe = try DevToolsPipe.make()
                process = try Subprocess(
                    executable: executable,
                    arguments: ChromiumLauncher.arguments(
                        profile: profile, headless: true, runningAsRoot: geteuid() == 0,
                        extra: TestBrowsers.chromiumOfflineArguments),
                    descriptors: pipe.childDescriptors)
                let record = record
                connection = DevToolsConnection(
                    pipe: pipe, onEvent: { event in record.events.withLock { $0.append(event.method) } },
                    onClose: { reason in record.closedReason.withLock { $0 = reason } })
            }

            func stop() async {
                connection.close()
                await process.terminate(grace: .seconds(2))
                await BrowserProcessGroup.waitUntilGone(process.pid, within: .seconds(3))
                try? FileManager.default.removeItem(at: profile)
            }
        }

        @Test func commandsAreAnsweredAndEventsArrive() async throws {
            let chromium = try BareChromium()
            let version = try await chromium.connection.send("Browser.getVersion", timeout: .seconds(30))
            #expect(version["product"]?.stringValue?.hasPrefix("Chrome/") == true)
            try await chromium.connection.send("Target.setDiscoverTargets", ["discover": true], timeout: .seconds(10))
            #expect(
                await eventually(within: .seconds(10)) {
                    chromium.record.events.withLock { $0.contains("Target.targetCreated") }
                })

            // A protocol error comes back as one, not as a hang.
            await #expect(throws: DevToolsError.self) {
                try await chromium.connection.send("No.suchMethod", timeout: .seconds(10))
            }
            await chromium.stop()
            #expect(!chromium.connection.isOpen)
            await #expect(throws: DevToolsError.self) { try await chromium.connection.send("Browser.getVersion") }
        }

        @Test func chromiumExitsOnItsOwnWhenOurEndOfThePipeCloses() async throws {
            // What happens if this process dies: the kernel closes our ends, and the browser quits.
            let chromium = try BareChromium()
            _ = try await chromium.connection.send("Browser.getVersion", timeout: .seconds(30))
            chromium.connection.close()
            #expect(
                await eventually(within: .seconds(10)) { chromium.process.hasExited },
                "no signal was sent; the browser left by itself")
            await chromium.stop()
            #expect(BrowserProcessGroup.liveMembers(of: chromium.process.pid).isEmpty)
        }

        @Test func theBrowserGoingAwayEndsTheStreamAndFailsWaitingCommands() async throws {
            let chromium = try BareChromium()
            _ = try await chromium.connection.send("Browser.getVersion", timeout: .seconds(30))
            kill(chromium.process.pid, SIGKILL)
            _ = await eventually(within: .seconds(10)) { chromium.record.closedReason.withLock { $0 } != nil }
            #expect(chromium.record.closedReason.withLock { $0 } == "the browser closed its end")
            await #expect(throws: DevToolsError.self) { try await chromium.connection.send("Browser.getVersion") }
            await chromium.stop()
        }
    }
}
