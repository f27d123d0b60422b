// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCredentialHelpers
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One interactive sign-in per profile, however many processes ask at once: real `git
/// credential fill`, `webauth git-credential`, `webauth exec-credential` and `webauth login`
/// processes, each under its own pseudo-terminal where a person would be, a `$BROWSER` that
/// counts its runs, and a person played at the provider.
@Suite("One interactive sign-in per profile, however many processes ask", .serialized, TestFixture.git.required)
struct OneSignInProcessTests {
    static let host = "git.example.com"
    static let request = "protocol=https\nhost=\(host)\n\n"

    /// A `$BROWSER` that appends each URL it is given to `browser-runs`, one line per run.
    static func countingBrowser(_ sandbox: ProfileSandbox) throws -> String {
        let browser = sandbox.root + "/counting-browser"
        let script = "#!/bin/sh\nprintf '%s\\n' \"$1\" >> \"\(sandbox.root)/browser-runs\"\n"
        guard
            FileManager.default.createFile(
                atPath: browser, contents: Data(script.utf8), attributes: [.posixPermissions: 0o700])
        else { throw CLITestError("cannot write \(browser)") }
        return browser
    }

    /// The URLs the counting browser was given so far.
    static func browserRuns(_ sandbox: ProfileSandbox) -> [String] {
        let text = (try? String(contentsOfFile: sandbox.root + "/browser-runs", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Waits until the counting browser has run `count` times; returns the `count`-th URL.
    static func browserRun(_ count: Int, in sandbox: ProfileSandbox, timeout: Duration = .seconds(60)) async throws
        -> URL
    {
        guard await eventually(within: timeout, { browserRuns(sandbox).count >= count }) else {
            throw CLITestError("the browser did not run \(count) time(s); runs: \(browserRuns(sandbox))")
        }
        return try #require(URL(string: browserRuns(sandbox)[count - 1]))
    }

    /// Plays the person at the embedded provider's authorization `url`: signs in, approves,
    /// and follows the redirect to the signing-in process's loopback listener.
    static func completeSignIn(at url: URL) async throws {
        let presentation = try await ScriptedUserAgent().present(
            BrowserRequest(url: url, callback: .loopback(path: "/callback")))
        for await event in presentation.events { throw CLITestError("the scripted person stopped: \(event)") }
    }

    /// The record the process holding `profile`'s sign-in lease wrote.
    static func leaseRecord(_ sandbox: ProfileSandbox, profile: String = "work") -> SignInLease.Record? {
        SignInLease.readRecord(SignInLease.Paths(profile: profile, environment: sandbox.environment))
    }

    /// Waits until `count` of `sessions` show the waiting note on their terminal.
    static func waitUntilWaiting(_ count: Int, of transcripts: () -> [String], timeout: Duration = .seconds(60))
        async throws
    {
        let waiting = await eventually(within: timeout) {
            transcripts().filter { $0.contains("waiting for it to finish") }.count >= count
        }
        guard waiting else { throw CLITestError("fewer than \(count) processes said they wait: \(transcripts())") }
    }

    /// Waits for every process, noting when each exit was seen: `(status, seen)` in order.
    static func exits(_ processes: [CLIProcess], timeout: Duration = .seconds(120)) async throws -> [(Int32, Date)] {
        try await withThrowingTaskGroup(of: (Int, Int32, Date).self) { group in
            for (index, process) in processes.enumerated() {
                group.addTask { (index, try await process.waitForExit(timeout: timeout), Date()) }
            }
            var results = [(Int32, Date)](repeating: (-1, Date()), count: processes.count)
            for try await (index, status, seen) in group { results[index] = (status, seen) }
            return results
        }
    }

    /// When the entry of `profile` was last written.
    static func storedAt(_ sandbox: ProfileSandbox, profile: String = "work") throws -> Date {
        let attributes = try FileManager.default.attributesOfItem(atPath: sandbox.entryPath(profile))
        return try #require(attributes[.modificationDate] as? Date)
    }

    /// Reports how long the waiters took to answer after the tokens were stored, and checks
    /// it is short.
    static func reportWaiters(_ label: String, exits: [Date], storedAt: Date) {
        let delays = exits.map { max(0, $0.timeIntervalSince(storedAt)) }.sorted()
        let shown = delays.map { String(format: "%.0f", $0 * 1000) }.joined(separator: ", ")
        print("[one sign-in] \(label): the waiters answered \(shown) ms after the tokens were stored")
        #expect((delays.last ?? 0) < 10, "\(label): the waiters answer within seconds, not at a poll: \(shown) ms")
    }

    /// How often the process `pid`'s threads have gone to sleep of their own accord so far
    /// (voluntary context switches, summed over `/proc/PID/task/*/status`): a process that
    /// polls wakes and sleeps again every few milliseconds; one blocked in `flock` does not.
    static func wakeUps(of pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return total + (line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0)
        }
    }

    // MARK: git

    @Test(TestFixture.djangoProvider.required, TestFixture.chromium.required)
    func eightGitCredentialFillsAtOnceOpenOneBrowserPageAtTheIndependentProviderAndAllGetItsToken() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let browser = try Self.countingBrowser(sandbox)
        try await IndependentProvider.withProvider { provider in
            let setup = try await sandbox.run([
                "git-credential", "setup", Self.host, "--profile", "work", "--store", "file", "--issuer",
                provider.issuer.absoluteString, "--client-id", provider.publicClientID, "--scope", "openid",
                "--scope", "profile", "--timeout", "120",
            ])
            #expect(setup.status == 0, "stderr: \(setup.stderr)")

            let sessions = try (0..<8).map { _ in
                try TerminalSession(
                    ["/usr/bin/git", "credential", "fill"], input: Self.request, in: sandbox,
                    environment: ["GIT_TERMINAL_PROMPT": "1", "BROWSER": browser])
            }
            defer { for session in sessions { session.finish() } }
            // Watched from the start, so each exit is seen when it happens.
            let exits = Task { try await Self.exits(sessions.map(\.process)) }
            let url = try await Self.browserRun(1, in: sandbox)
            try await Self.waitUntilWaiting(7, of: { sessions.map(\.transcript) })

            // The person: the page the one browser run was given, in a headless Chromium.
            try await BrowserTurns.withTurn {
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                let session = driver.browsingSession(to: url, loopbackReceiver: LoopbackReceiver())
                let browsing = Task { try? await session.authenticate().url }
                defer { session.cancel() }
                let page = try await driver.page()
                try await provider.signIn(on: page)
                try await provider.grantConsent(on: page)
                _ = try await sandbox.waitForEntry("work")
                session.cancel()
                _ = await browsing.value
            }
            let ended = try await exits.value
            let entry = try #require(try sandbox.storedEntry("work"))
            for (index, session) in sessions.enumerated() {
                #expect(
                    ended[index].0 == 0, "fill \(index): \(session.process.standardError); \(session.transcript)")
                let answer = try GitCredential(reading: Array(session.process.standardOutput.utf8))
                #expect(answer.password == entry.tokens.accessToken, "fill \(index) got the stored token")
                #expect(!containsSecret(session.transcript + session.process.standardError, of: entry))
            }
            #expect(Self.browserRuns(sandbox).count == 1, "exactly one browser run: \(Self.browserRuns(sandbox))")
            let introspection = try await provider.introspect(
                entry.tokens.accessToken, clientID: provider.confidentialClientID,
                secret: provider.confidentialClientSecret)
            #expect(introspection["active"] as? Bool == true, "the provider accepts the token")

            let stored = try Self.storedAt(sandbox)
            let waiters = sessions.indices.filter { sessions[$0].transcript.contains("waiting for it to finish") }
            #expect(waiters.count == 7)
            Self.reportWaiters("eight git credential fill", exits: waiters.map { ended[$0].1 }, storedAt: stored)
        }
    }

    @Test func eightGitHelpersWithTheDeviceFlowShowOneDeviceCode() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let setup = try await sandbox.run([
                "git-credential", "setup", Self.host, "--profile", "work", "--store", "file", "--issuer",
                provider.issuer.absoluteString, "--client-id", EmbeddedProvider.cliClientID, "--scope", "openid",
                "--scope", "offline_access", "--device", "--timeout", "60",
            ])
            #expect(setup.status == 0, "stderr: \(setup.stderr)")
            let sessions = try (0..<8).map { _ in
                try TerminalSession(
                    ["/usr/bin/git", "credential", "fill"], input: Self.request, in: sandbox,
                    environment: ["GIT_TERMINAL_PROMPT": "1"])
            }
            defer { for session in sessions { session.finish() } }
            // The provider approves the one device code as soon as it is polled.
            let ended = try await Self.exits(sessions.map(\.process))
            let entry = try #require(try sandbox.storedEntry("work"))
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))
            for (index, session) in sessions.enumerated() {
                #expect(ended[index].0 == 0, "fill \(index): \(session.process.standardError)")
                let answer = try GitCredential(reading: Array(session.process.standardOutput.utf8))
                #expect(answer.password == entry.tokens.accessToken)
            }
            #expect(provider.requests(to: .deviceAuthorization).count == 1, "one device code")
            let shown = sessions.filter { $0.transcript.contains("user_code=") }
            #expect(shown.count == 1, "one terminal shows a code")
        }
    }

    /// Ctrl-C lets the leader record why it ended; SIGKILL does not, and the kernel ends its
    /// lock with it.
    @Test(arguments: [SIGINT, SIGKILL])
    func aLeaderCancelledOrKilledIsFollowedByExactlyOneMorePageAndEveryHelperAnswers(signal: Int32) async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let browser = try Self.countingBrowser(sandbox)
        try await EmbeddedProvider.withCLIProvider { provider in
            let helper = [
                CLIProcess.executable.path, "git-credential", "--profile", "work", "--profile-for", Self.host,
                "--store", "file", "--issuer", provider.issuer.absoluteString, "--client-id",
                EmbeddedProvider.cliClientID, "--scope", "openid", "--scope", "offline_access", "--timeout", "60",
                "get",
            ]
            let sessions = try (0..<4).map { _ in
                try TerminalSession(
                    helper, input: Self.request, in: sandbox,
                    environment: ["GIT_TERMINAL_PROMPT": "1", "BROWSER": browser])
            }
            defer { for session in sessions { session.finish() } }
            _ = try await Self.browserRun(1, in: sandbox)
            try await Self.waitUntilWaiting(3, of: { sessions.map(\.transcript) })
            let leader = try #require(Self.leaseRecord(sandbox)?.pid, "the leader says who it is")
            kill(leader, signal)

            // One waiter takes over with one more page; the person signs in there.
            let second = try await Self.browserRun(2, in: sandbox)
            try await Self.completeSignIn(at: second)
            var ended: [Int32?] = []
            for session in sessions {
                ended.append(Subprocess.exitCode(of: try await session.process.waitForEnd(timeout: .seconds(90))))
            }
            let entry = try #require(try sandbox.storedEntry("work"))
            var answered = 0
            for (index, session) in sessions.enumerated() where ended[index] == 0 {
                let answer = try GitCredential(reading: Array(session.process.standardOutput.utf8))
                #expect(answer.password == entry.tokens.accessToken)
                answered += 1
            }
            #expect(answered == 3, "every helper but the leader answers: \(ended)")
            let leaderEnded = ended.filter { $0 != 0 }
            if signal == SIGINT {
                #expect(leaderEnded == [ExitStatus.interrupted], "the leader ended with Ctrl-C's status")
            } else {
                #expect(leaderEnded.count == 1, "the leader was killed: \(ended)")
            }
            let tookOver = sessions.filter { $0.transcript.contains("signing in here instead") }
            #expect(tookOver.count == 1, "one waiter took over")
            #expect(Self.browserRuns(sandbox).count == 2, "exactly one more page: \(Self.browserRuns(sandbox))")
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))
        }
    }

    // MARK: login

    @Test func twoLoginsAtOnceTheSecondExits1OrWithWaitTakesTheFirstsTokens() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let browser = try Self.countingBrowser(sandbox)
        try await EmbeddedProvider.withCLIProvider { provider in
            let login = provider.loginArguments(["--profile", "work", "--store", "file", "--timeout", "60"])
            let environment = sandbox.environment.merging(["BROWSER": browser]) { $1 }
            let first = try CLIProcess(login, environment: environment)
            let url = try await Self.browserRun(1, in: sandbox)

            let refused = try CLIProcess(login, environment: environment)
            #expect(try await refused.waitForExit() == 1)
            #expect(
                refused.standardError.contains(
                    "a sign-in for work is already open in process \(first.pid) (webauth login"),
                "\(refused.standardError)")
            #expect(refused.standardError.contains("--wait"))

            let waiting = try CLIProcess(login + ["--wait", "--json"], environment: environment)
            _ = try await waiting.waitForStandardError(containing: "waiting for it to finish")
            try await Self.completeSignIn(at: url)
            #expect(try await first.waitForExit() == 0, "\(first.standardError)")
            #expect(try await waiting.waitForExit() == 0, "\(waiting.standardError)")
            #expect(Self.browserRuns(sandbox).count == 1, "one page")
            let entry = try #require(try sandbox.storedEntry("work"))
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(waiting.standardError.contains("the sign-in in process \(first.pid) stored the tokens"))
            #expect(waiting.standardError.contains("Signed in as"))
            let summary = try jsonObject(waiting.standardOutput)
            #expect(summary["profile"] as? String == "work")
            #expect(summary["method"] as? String == "browser")
            #expect(!containsSecret(waiting.standardOutput + waiting.standardError, of: entry))
        }
    }

    // MARK: kubectl

    @Test func eightInteractiveExecCredentialsAtOnceOpenOnePageAndAllAnswer() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let browser = try Self.countingBrowser(sandbox)
        try await EmbeddedProvider.withCLIProvider { provider in
            let arguments = [
                "exec-credential", "--profile", "work", "--store", "file", "--issuer", provider.issuer.absoluteString,
                "--client-id", EmbeddedProvider.cliClientID, "--scope", "openid", "--scope", "offline_access",
                "--timeout", "60",
            ]
            let environment = sandbox.environment.merging([
                "BROWSER": browser,
                "KUBERNETES_EXEC_INFO": ExecCredentialProcessTests.execInfo(
                    ExecCredentialProcessTests.v1, interactive: true),
            ]) { $1 }
            let processes = try (0..<8).map { _ in try CLIProcess(arguments, environment: environment) }
            let exits = Task { try await Self.exits(processes) }
            let url = try await Self.browserRun(1, in: sandbox)
            try await Self.waitUntilWaiting(7, of: { processes.map(\.standardError) })

            // Waiting costs nothing: a waiter's threads sleep in the kernel, not waking to poll.
            let waiting = processes.filter { $0.standardError.contains("waiting for it to finish") }
            let before = waiting.map { Self.wakeUps(of: $0.pid) }
            // Real time is the point: wake-ups counted over one second of waiting.
            try await Task.sleep(for: .seconds(1))
            let wakeUps = zip(waiting.map { Self.wakeUps(of: $0.pid) }, before).map { $0 - $1 }
            print("[one sign-in] eight exec-credential: the waiters woke \(wakeUps) times in one second of waiting")
            #expect(wakeUps.allSatisfy { $0 < 10 }, "no waiter polls: \(wakeUps)")
            try await Self.completeSignIn(at: url)
            let ended = try await exits.value
            let entry = try #require(try sandbox.storedEntry("work"))
            for (index, process) in processes.enumerated() {
                #expect(ended[index].0 == 0, "run \(index): \(process.standardError)")
                let credential = try jsonObject(process.standardOutput)
                let status = try #require(credential["status"] as? [String: Any])
                #expect(status["token"] as? String == entry.tokens.idToken, "run \(index) got the stored ID token")
            }
            #expect(Self.browserRuns(sandbox).count == 1, "one page: \(Self.browserRuns(sandbox))")
            let waiters = processes.indices.filter { processes[$0].standardError.contains("waiting for it to finish") }
            Self.reportWaiters(
                "eight exec-credential", exits: waiters.map { ended[$0].1 }, storedAt: try Self.storedAt(sandbox))
        }
    }

    // MARK: No prompt allowed

    @Test func helpersThatMayNotPromptAnswerAtOnceAndOpenNothingEvenWithASignInOpen() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let browser = try Self.countingBrowser(sandbox)
        try await EmbeddedProvider.withCLIProvider { provider in
            let options = [
                "--profile", "work", "--store", "file", "--issuer", provider.issuer.absoluteString, "--client-id",
                EmbeddedProvider.cliClientID, "--scope", "openid", "--timeout", "60",
            ]
            let environment = sandbox.environment.merging(["BROWSER": browser]) { $1 }
            func eightAtOnce() async throws -> Duration {
                let started = ContinuousClock.now
                let git = try (0..<4).map { _ in
                    try CLIProcess(
                        ["git-credential"] + options + ["--profile-for", Self.host, "get"],
                        environment: environment.merging(["GIT_TERMINAL_PROMPT": "0"]) { $1 },
                        keepStandardInputOpen: true)
                }
                for process in git { process.finishInput(Array(Self.request.utf8)) }
                let kube = try (0..<4).map { _ in
                    try CLIProcess(
                        ["exec-credential"] + options,
                        environment: environment.merging([
                            "KUBERNETES_EXEC_INFO": ExecCredentialProcessTests.execInfo(
                                ExecCredentialProcessTests.v1, interactive: false)
                        ]) { $1 })
                }
                let ended = try await Self.exits(git + kube, timeout: .seconds(30))
                for (index, process) in (git + kube).enumerated() {
                    let expected = index < 4 ? 0 : ExitStatus.notSignedIn
                    #expect(ended[index].0 == expected, "\(index): \(process.standardError)")
                    #expect(!process.standardError.contains("waiting"), "\(index) did not wait")
                }
                for process in git { #expect(process.standardOutput.isEmpty, "git hears nothing") }
                return ContinuousClock.now - started
            }

            // No sign-in open: they answer as before, at once, and open nothing.
            let alone = try await eightAtOnce()
            #expect(Self.browserRuns(sandbox).isEmpty, "no page opens")

            // A sign-in open in another process: they do not wait for it either.
            let login = try CLIProcess(
                provider.loginArguments(["--profile", "work", "--store", "file", "--timeout", "60"]),
                environment: environment)
            _ = try await Self.browserRun(1, in: sandbox)
            let beside = try await eightAtOnce()
            #expect(Self.browserRuns(sandbox).count == 1, "no page but the login's")
            print(
                "[one sign-in] eight helpers that may not prompt answered in \(alone) alone, \(beside) beside an open sign-in"
            )
            login.send(SIGTERM)
            #expect(try await login.waitForExit() == ExitStatus.terminated)
        }
    }
}

extension ProfileSandbox {
    /// Waits until `profile` is stored, and returns its entry.
    func waitForEntry(_ profile: String, timeout: Duration = .seconds(60)) async throws -> StoredTokens {
        var entry: StoredTokens?
        _ = await eventually(within: timeout) {
            entry = try? storedEntry(profile)
            return entry != nil
        }
        guard let entry else { throw CLITestError("profile \(profile) was never stored") }
        return entry
    }
}
