// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTesting

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

/// Timings of the controlled Chromium, each next to its physical floor in the same run:
///
/// - **bare start**: Chromium with the same flags (`--headless=new`, offline flags, pipe,
///   `about:blank`), from spawn to the first `Browser.getVersion` reply — the least any
///   controlled launch can cost;
/// - **launch → answer**: the same moment inside a session (profile, pipe, spawn);
/// - **launch → first navigation committed**: `present` called → the authorization page committed
///   (interception set up, the page loaded from a loopback server);
/// - **callback → completion delivered**: the callback caught → `authenticate()` returned, which
///   includes closing the browser and waiting for its processes (a session delivers its result
///   after tearing down).
///
/// `swift test --filter ChromiumTests.BenchmarkTests` prints the figures.
enum ChromiumBenchmark {
    /// One round's figures.
    struct Sample: Sendable {
        var bareStart: Duration
        var launchToAnswer: Duration
        var launchToCommit: Duration
        var callbackToCompletion: Duration
    }

    /// Runs `iterations` rounds, each a bare start then a session.
    static func run(iterations: Int) async throws -> [Sample] {
        var samples: [Sample] = []
        for _ in 0..<iterations {
            let bare = try await bareStart()
            samples.append(try await session(bareStart: bare))
        }
        return samples
    }

    /// The figures as a table: median, minimum and maximum of each.
    static func report(_ samples: [Sample]) -> String {
        func milliseconds(_ value: Duration) -> String {
            let seconds = Double(value.components.seconds) + Double(value.components.attoseconds) / 1e18
            return String(format: "%7.1f", seconds * 1000)
        }
        func line(_ name: String, _ values: [Duration]) -> String {
            let sorted = values.sorted()
            let median = sorted[sorted.count / 2]
            return "\(name.padding(toLength: 48, withPad: " ", startingAt: 0)) \(milliseconds(median)) ms"
                + "  (min \(milliseconds(sorted.first!)), max \(milliseconds(sorted.last!)))"
        }
        return [
            "Chromium benchmark, \(samples.count) rounds (median, min, max):",
            line("bare start → Browser.getVersion", samples.map(\.bareStart)),
            line("session: launch → Browser.getVersion", samples.map(\.launchToAnswer)),
            line("session: launch → first navigation committed", samples.map(\.launchToCommit)),
            line("session: callback caught → completion delivered", samples.map(\.callbackToCompletion)),
        ].joined(separator: "\n")
    }

    /// Spawns Chromium with the session's flags and times the first `Browser.getVersion` reply.
    static func bareStart() async throws -> Duration {
        let executable = try #require(TestBrowsers.chromiumPath())
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-bare-\(UUID())")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let started = ContinuousClock.now
        let pipe = try DevToolsPipe.make()
        let process = try Subprocess(
            executable: executable,
            arguments: ChromiumLauncher.arguments(
                profile: profile, headless: true, runningAsRoot: geteuid() == 0,
                extra: TestBrowsers.chromiumOfflineArguments),
            descriptors: pipe.childDescriptors)
        let connection = DevToolsConnection(pipe: pipe, onEvent: { _ in }, onClose: { _ in })
        _ = try await connection.send("Browser.getVersion", timeout: .seconds(60))
        let elapsed = ContinuousClock.now - started
        connection.close()
        await process.terminate(grace: .seconds(2))
        await BrowserProcessGroup.waitUntilGone(process.pid, within: .seconds(3))
        return elapsed
    }

    /// One ephemeral session whose page commits, then moves on to a custom-scheme callback.
    static func session(bareStart: Duration) async throws -> Sample {
        let testbed = try ChromiumTestbed()
        defer { testbed.tearDown() }
        return try await AuthorizationPageServer.withServer { server in
            let session = WebAuthSession(
                url: server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: "b", mode: .page),
                callback: .customScheme("com.example.app"), environment: testbed.environment())
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(60)
            _ = try await session.authenticate().url
            let delivered = ContinuousClock.now
            let instance = try #require(testbed.instances.first)
            let launch = try #require(instance.time(of: .launchStarted))
            let answered = try #require(instance.time(of: .browserAnswered))
            let committed = try #require(instance.time(of: .navigationCommitted))
            let caught = try #require(instance.time(of: .callbackCaught))
            return Sample(
                bareStart: bareStart, launchToAnswer: answered - launch, launchToCommit: committed - launch,
                callbackToCompletion: delivered - caught)
        }
    }
}

extension ChromiumTests {
    @Suite("Chromium benchmark", .timeLimit(.minutes(3)))
    struct BenchmarkTests {
        @Test func printTheFigures() async throws {
            let samples = try await ChromiumBenchmark.run(iterations: 3)
            print(ChromiumBenchmark.report(samples))
            for sample in samples {
                // Not a timing assertion: the milestones come in their order.
                #expect(sample.launchToAnswer < sample.launchToCommit)
                #expect(sample.callbackToCompletion > .zero)
            }
        }
    }
}
