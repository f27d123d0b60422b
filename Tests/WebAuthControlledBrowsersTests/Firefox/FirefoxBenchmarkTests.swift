// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTesting

@testable import WebAuthControlledBrowsers

/// Timings of a controlled Firefox, printed (not asserted: these machines are noisy).
///
/// - *bare start*: Firefox alone, with a fresh profile holding only the offline proxy
///   preferences, from spawn until it announces WebDriver BiDi — the physical floor.
/// - *launch → first navigation*: `present(_:)` called until the session's tab starts navigating
///   to the authorization page (profile, start, BiDi session, subscriptions, intercept), with
///   the steps in between.
/// - *callback → completion*: the callback intercepted until `authenticate()` returns, which
///   includes dismissal (Firefox closed, its process group gone, the profile removed).
extension RealFirefoxTests {
    @Suite("Firefox benchmark", .timeLimit(.minutes(5)))
    struct Benchmark {
        static let rounds = 3

        @Test func launchAndCompletionAgainstABareFirefoxStart() async throws {
            let executable = try #require(FirefoxBrowser.find(), "Firefox is not installed")
            var bare: [Duration] = []
            var toEndpoint: [Duration] = []
            var toSession: [Duration] = []
            var toNavigation: [Duration] = []
            var toCompletion: [Duration] = []

            try await FirefoxTestbed.with { testbed in
                for round in 0..<Self.rounds {
                    // The floor: Firefox by itself.
                    let profile = testbed.root.appendingPathComponent("bare-\(round)", isDirectory: true)
                    try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
                    try Data(FirefoxProfileSetup.userPreferencesFile(testbed.offlinePreferences).utf8)
                        .write(to: profile.appendingPathComponent("user.js"))
                    let output = profile.appendingPathComponent("output.log")
                    let spawned = ContinuousClock.now
                    let process = try Subprocess(
                        executable: executable,
                        arguments: FirefoxLauncher.arguments(profile: profile, headless: true, extra: []),
                        environment: testbed.options().environment, output: output.path)
                    let endpoint = await BiDiEndpoint.wait(
                        outputFile: output.path, process: process, timeout: .seconds(60))
                    bare.append(ContinuousClock.now - spawned)
                    if case .ready = endpoint {} else { Issue.record("bare Firefox: \(endpoint)") }
                    await process.terminate(grace: .seconds(2))

                    // A whole session through the controlled browser.
                    try await AuthorizationPageServer.withServer { server in
                        let session = WebAuthSession(
                            url: server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: "b"),
                            callback: .customScheme("com.example.app"), environment: testbed.environment())
                        session.prefersEphemeralWebBrowserSession = true
                        session.timeout = .seconds(60)
                        _ = try await session.authenticate().url
                        let completed = ContinuousClock.now
                        let presentation = try await testbed.presentation(round)
                        let navigation = try #require(presentation.firstNavigationAt)
                        let callback = try #require(presentation.callbackInterceptedAt)
                        toEndpoint.append(presentation.endpointReadyAt - presentation.launchStartedAt)
                        toSession.append(presentation.sessionReadyAt - presentation.launchStartedAt)
                        toNavigation.append(navigation - presentation.launchStartedAt)
                        toCompletion.append(completed - callback)
                    }
                }
            }

            func line(_ name: String, _ values: [Duration]) -> String {
                let milliseconds = values.map { Int(($0 / .milliseconds(1)).rounded()) }
                let median = milliseconds.sorted()[milliseconds.count / 2]
                return "\(name): median \(median) ms  (\(milliseconds.map { "\($0)" }.joined(separator: ", ")) ms)"
            }
            print("Firefox benchmark (headless, \(Self.rounds) rounds):")
            print("  " + line("bare Firefox start → BiDi ready      ", bare))
            print("  " + line("our launch → BiDi ready              ", toEndpoint))
            print("  " + line("our launch → BiDi session set up     ", toSession))
            print("  " + line("our launch → first navigation        ", toNavigation))
            print("  " + line("callback intercepted → completion    ", toCompletion))
            #expect(bare.count == Self.rounds && toNavigation.count == Self.rounds && toCompletion.count == Self.rounds)
        }
    }
}
