// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthPlatform
import WebAuthProcess
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

/// Long runs that look for slow leaks and lost tokens rather than speed:
///
/// - many sign-ins in this one process against ``EmbeddedProvider``, through the real loopback
///   listener with ``ScriptedUserAgent`` as the browser, sampling open descriptors and resident
///   memory as they go;
/// - many `webauth token` refreshes from several processes at once against the provider, which
///   rotates refresh tokens and revokes the whole grant when one is presented twice, counting
///   the refresh tokens lost.
///
/// Both are bounded in count and time and print their figures and a verdict.
enum SoakBenchmarks {
    /// What to run, from the command line: `soak [--sign-ins N] [--refreshes N]
    /// [--processes N] [--minutes N]`.
    struct Options {
        var signIns = 10_000
        var refreshes = 1_000
        var processes = 8
        /// The most either part may take before it stops and fails.
        var timeLimit = Duration.seconds(30 * 60)

        init(arguments: [String]) throws {
            var remaining = arguments[...]
            while let name = remaining.popFirst() {
                guard let text = remaining.popFirst(), let value = Int(text), value >= 0 else {
                    throw BenchmarkFailure("soak: \(name) needs a whole number")
                }
                switch name {
                case "--sign-ins": signIns = value
                case "--refreshes": refreshes = value
                case "--processes": processes = max(value, 1)
                case "--minutes": timeLimit = .seconds(value * 60)
                default: throw BenchmarkFailure("soak: unknown option \(name)")
                }
            }
        }
    }

    /// Runs both parts; `false` when either found growth, a lost token or a failure.
    static func run(_ options: Options) async throws -> Bool {
        var passed = true
        if options.signIns > 0 {
            passed = try await signIns(count: options.signIns, timeLimit: options.timeLimit) && passed
        }
        if options.refreshes > 0 {
            guard let webauth = CLIBenchmarks.webauthExecutable() else {
                print("refresh soak skipped: build the webauth tool next to this program first")
                return false
            }
            passed =
                try await refreshes(
                    webauth: webauth, count: options.refreshes, processes: options.processes,
                    timeLimit: options.timeLimit) && passed
        }
        return passed
    }

    // MARK: - Sign-ins in one process

    /// Open descriptors and resident memory of this process.
    struct Sample {
        var signIns: Int
        var descriptors: Int
        var residentKiB: Int

        static func now(after signIns: Int) -> Sample {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
            // /proc/self/statm: size resident shared … in pages.
            let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
            let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
            return Sample(signIns: signIns, descriptors: descriptors, residentKiB: pages * Int(getpagesize()) / 1024)
        }
    }

    /// How much may be added after the warm-up and still count as noise: a few descriptors
    /// (the event loops' and URLSession's own come and go) and the larger of 8 MiB or 10 %.
    static let descriptorNoise = 4
    static func residentNoiseKiB(baseline: Int) -> Int { max(8 * 1024, baseline / 10) }

    static func signIns(count: Int, timeLimit: Duration) async throws -> Bool {
        // The provider lives in this process too: its tables are kept small so that they are
        // full, and stop growing, within the warm-up.
        var configuration = EmbeddedProvider.Configuration()
        configuration.limits = .init(
            pendingAuthorizations: 100, browsers: 100, authorizationCodes: 100, deviceAuthorizations: 100,
            tokenFamilies: 200, loggedRequests: 200)
        let warmUp = min(1_000, count / 10)
        let sampleEvery = max(count / 20, 1)
        print("soak: \(count) sign-ins in one process (embedded provider, loopback listener, scripted browser)")
        print("      warm-up \(warmUp) sign-ins; a sample every \(sampleEvery)")
        print("      sign-ins   open fds   RSS MiB")

        let provider = try await EmbeddedProvider.start(configuration)
        var samples: [Sample] = []
        var failures = 0
        var firstFailure: String?
        let started = ContinuousClock.now
        var done = 0
        do {
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
                    scopes: ["openid", "profile", "offline_access"]))
            func record(_ sample: Sample) {
                samples.append(sample)
                print(
                    String(
                        format: "      %8d   %8d   %7.1f", sample.signIns, sample.descriptors,
                        Double(sample.residentKiB) / 1024))
            }
            record(.now(after: 0))
            while done < count, ContinuousClock.now - started < timeLimit {
                do {
                    let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
                    if tokens.refreshToken == nil { throw BenchmarkFailure("no refresh token") }
                } catch {
                    failures += 1
                    if firstFailure == nil { firstFailure = "\(error)" }
                }
                done += 1
                if done == warmUp || done % sampleEvery == 0 || done == count { record(.now(after: done)) }
            }
        } catch {
            await provider.shutdown()
            throw error
        }
        await provider.shutdown()
        let elapsed = ContinuousClock.now - started

        let measured = samples.filter { $0.signIns >= warmUp }
        guard let baseline = measured.first, let last = measured.last else { return false }
        let maxDescriptors = measured.map(\.descriptors).max() ?? 0
        let maxResident = measured.map(\.residentKiB).max() ?? 0
        let descriptorGrowth = last.descriptors - baseline.descriptors
        let residentGrowth = last.residentKiB - baseline.residentKiB
        let noise = residentNoiseKiB(baseline: baseline.residentKiB)
        print(
            "soak: \(done) sign-ins in \(seconds(elapsed)) s, \(failures) failed"
                + (firstFailure.map { " (first: \($0))" } ?? ""))
        print(
            "      open fds after warm-up \(baseline.descriptors), at the end \(last.descriptors), "
                + "most \(maxDescriptors): growth \(descriptorGrowth) (noise allowed \(descriptorNoise))")
        print(
            String(
                format: "      RSS after warm-up %.1f MiB, at the end %.1f MiB, most %.1f MiB: growth %.1f MiB "
                    + "(noise allowed %.1f MiB)",
                Double(baseline.residentKiB) / 1024, Double(last.residentKiB) / 1024, Double(maxResident) / 1024,
                Double(residentGrowth) / 1024, Double(noise) / 1024))
        let passed = done == count && failures == 0 && descriptorGrowth <= descriptorNoise && residentGrowth <= noise
        print("      verdict: \(passed ? "PASS" : "FAIL")\n")
        return passed
    }

    // MARK: - Refreshes from several processes

    static func refreshes(webauth: String, count: Int, processes: Int, timeLimit: Duration) async throws -> Bool {
        print("soak: \(count) `webauth token` refreshes from \(processes) processes at once (rotating provider)")
        let home = try CLIBenchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = [
            "HOME": home, "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config",
            "DBUS_SESSION_BUS_ADDRESS": "", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
        ]
        var configuration = EmbeddedProvider.Configuration()
        configuration.limits = .init(loggedRequests: 4 * count + 100)
        let provider = try await EmbeddedProvider.start(configuration)
        do {
            let clientConfiguration = ClientConfiguration(
                issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
                scopes: ["openid", "profile", "offline_access"])
            let client = try OAuthClient(configuration: clientConfiguration)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let store = try FileTokenStore(directory: FileTokenStore.defaultDirectory(environment: environment))
            try await store.save(StoredTokens(tokens: tokens, configuration: clientConfiguration), profile: "default")

            // Every call refreshes: the tokens live an hour and each asks for two.
            let started = ContinuousClock.now
            let next = Counter()
            let outcomes = try await withThrowingTaskGroup(of: [RefreshOutcome].self) { group in
                for worker in 0..<processes {
                    group.addTask {
                        // Output to files and an awaited exit: no thread of the provider's is blocked.
                        let (output, errors) = ("\(home)/out-\(worker)", "\(home)/err-\(worker)")
                        var outcomes: [RefreshOutcome] = []
                        while next.take() < count, ContinuousClock.now - started < timeLimit {
                            unlink(output)
                            unlink(errors)
                            let process = try Subprocess(
                                executable: webauth, arguments: ["token", "--store", "file", "--min-validity", "7200"],
                                environment: environment, standardOutput: .file(output), standardError: .file(errors))
                            let status = await process.exitStatus()
                            outcomes.append(
                                RefreshOutcome(
                                    status: Subprocess.exitCode(of: status) ?? -1,
                                    token: ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
                                        .trimmingCharacters(in: .newlines),
                                    error: (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""))
                        }
                        return outcomes
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let elapsed = ContinuousClock.now - started

            let succeeded = outcomes.filter { $0.status == 0 }
            let failed = outcomes.filter { $0.status != 0 }
            let refreshRequests = provider.requests(to: .token).filter { $0.grantType == "refresh_token" }
            // A refresh token presented twice is refused (invalid_grant) and its grant revoked: each
            // refusal is a refresh token lost, and so is a final stored one the provider no longer takes.
            let refused = refreshRequests.filter { $0.error != nil }.count
            let final = try await store.load(profile: "default")
            let finalIsLive = final?.tokens.refreshToken.map { provider.isActive(refreshToken: $0) } ?? false
            let lost = refused + (finalIsLive ? 0 : 1)
            let distinct = Set(succeeded.map(\.token)).count
            print(
                "soak: \(outcomes.count) calls in \(seconds(elapsed)) s: \(succeeded.count) succeeded, "
                    + "\(failed.count) failed; \(refreshRequests.count) refresh requests at the provider, "
                    + "\(distinct) distinct access tokens printed")
            print(
                "      lost refresh tokens: \(lost) (refused as reused: \(refused); "
                    + "final stored refresh token live: \(finalIsLive ? "yes" : "no"))")
            if let firstFailure = failed.first {
                print("      first failure: exit \(firstFailure.status): \(firstFailure.error.prefix(300))")
            }
            let passed =
                outcomes.count == count && failed.isEmpty && lost == 0 && distinct == succeeded.count
                && refreshRequests.count == count
            print("      verdict: \(passed ? "PASS" : "FAIL")\n")
            await provider.shutdown()
            return passed
        } catch {
            await provider.shutdown()
            throw error
        }
    }

    /// One `webauth token` run: its exit status, what it printed, and its standard error.
    struct RefreshOutcome: Sendable {
        var status: Int32
        var token: String
        var error: String
    }

    /// Hands out 0, 1, 2, … to the workers.
    final class Counter: Sendable {
        private let value = Locked(0)
        func take() -> Int {
            value.withLock { current in
                defer { current += 1 }
                return current
            }
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
