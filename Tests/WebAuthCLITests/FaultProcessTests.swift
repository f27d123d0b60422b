// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
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

/// `webauth` run as a process while something breaks under it: the provider, the disk, the
/// keyring, the browser, or `webauth` itself. Each test checks the documented exit status,
/// that nothing stored is lost (the refresh token kept still works afterwards), and that no
/// process, listening socket, temporary file or browser profile is left behind.
@Suite("webauth when something breaks, run as processes")
struct FaultProcessTests {
    /// A sandbox signed in to `provider` (in this process, with the scripted person), its tokens
    /// stored in `store` as `webauth login` would; returns what was stored.
    /// Runs `body` with a sandbox whose `default` profile is signed in to a running embedded
    /// provider through the file store (in `stateHome` when given), and the entry as stored.
    private static func withFileProfile(
        stateHome: String? = nil,
        _ body: (ProfileSandbox, EmbeddedProvider, StoredTokens) async throws -> Void
    ) async throws {
        let sandbox = try stateHome.map { try ProfileSandbox(stateHome: $0) } ?? ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider { provider in
            let before = try await signIn(sandbox, provider, store: FileTokenStore(directory: sandbox.tokenDirectory))
            try await body(sandbox, provider, before)
        }
    }

    private static func signIn(
        _ sandbox: ProfileSandbox, _ provider: EmbeddedProvider, store: any TokenStore
    ) async throws -> StoredTokens {
        let configuration = ClientConfiguration(
            issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
            scopes: ["openid", "profile", "offline_access"])
        let client = try OAuthClient(configuration: configuration)
        let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
        try await store.save(StoredTokens(tokens: tokens, configuration: configuration), profile: "default")
        try await ProfileIndex(environment: sandbox.environment).record(store.kind, for: "default")
        // As stored (dates as the store keeps them), for comparing with what is there later.
        return try #require(try await store.load(profile: "default"))
    }

    /// `webauth token` forced to refresh (the tokens live an hour).
    private static let refreshArguments = ["token", "--min-validity", "7200"]

    /// After a failed refresh: the entry is as it was, its refresh token still works — the next
    /// `webauth token` refreshes with it and stores the rotated one — and no temporary file is
    /// left in the token directory.
    private static func expectNothingLost(
        _ sandbox: ProfileSandbox, _ provider: EmbeddedProvider, before: StoredTokens
    ) async throws {
        #expect(try sandbox.storedEntry() == before, "the stored entry is unchanged")
        let oldRefreshToken = try #require(before.tokens.refreshToken)
        #expect(provider.isActive(refreshToken: oldRefreshToken), "the kept refresh token is still live")
        let again = try await sandbox.run(refreshArguments)
        #expect(again.status == 0, "stderr: \(again.stderr)")
        let after = try #require(try sandbox.storedEntry())
        #expect(again.stdout == after.tokens.accessToken + "\n")
        #expect(after.tokens.refreshToken != oldRefreshToken)
        #expect(provider.isActive(refreshToken: try #require(after.tokens.refreshToken)))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.tokenDirectory)
            .filter { $0.contains(".tmp-") }
        #expect(leftovers == [], "no temporary file is left")
    }

    @Test func theProviderClosingMidResponseExitsElevenAndLosesNothing() async throws {
        try await Self.withFileProfile { sandbox, provider, before in
            provider.setFault(.closedMidResponse.times(1), for: .token)

            let broken = try await sandbox.run(Self.refreshArguments)
            #expect(broken.status == ExitStatus.networkFailed, "stderr: \(broken.stderr)")
            #expect(broken.stdout.isEmpty)
            #expect(!containsSecret(broken.stderr, of: before))
            #expect(provider.requests(to: .token).last?.grantType == nil, "the broken answer issued nothing")
            try await Self.expectNothingLost(sandbox, provider, before: before)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aTokenEndpointStallingPastTheTimeoutExitsElevenAndLosesNothing() async throws {
        try await Self.withFileProfile { sandbox, provider, before in
            // Far beyond the client's 30-second request timeout; the held request has no effect
            // (and is dropped when the provider shuts down).
            provider.setFault(.delay(.seconds(600)).times(1), for: .token)

            let stalled = try await sandbox.run(Self.refreshArguments)
            #expect(stalled.status == ExitStatus.networkFailed, "stderr: \(stalled.stderr)")
            #expect(stalled.stderr.contains("did not answer within 30"), "stderr: \(stalled.stderr)")
            #expect(stalled.stdout.isEmpty)
            try await Self.expectNothingLost(sandbox, provider, before: before)
        }
    }

    @Test(
        .enabled(if: SmallFileSystem.isAvailable, "mounting a tmpfs needs root"),
        arguments: SmallFileSystem.WriteFault.allCases)
    func aRefusedWriteExitsTwelveBeforeTheRefreshIsSentAndLosesNothing(_ fault: SmallFileSystem.WriteFault)
        async throws
    {
        let disk = try SmallFileSystem(size: 512 * 1024)
        defer { disk.remove() }
        try await Self.withFileProfile(stateHome: disk.path) { sandbox, provider, before in
            try disk.inflict(fault)

            let refused = try await sandbox.run(Self.refreshArguments)
            #expect(refused.status == ExitStatus.tokenStoreFailed, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains(fault.message), "stderr: \(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            // Had the refresh been sent, the provider would have rotated the refresh token and
            // the new one could not have been kept.
            #expect(provider.requests(to: .token).filter { $0.grantType == "refresh_token" }.isEmpty)
            // A token that is still fresh is printed from the store all the same.
            let cached = try await sandbox.run(["token"])
            #expect(cached.status == 0, "stderr: \(cached.stderr)")
            #expect(cached.stdout == before.tokens.accessToken + "\n")

            try disk.mend(fault)
            try await Self.expectNothingLost(sandbox, provider, before: before)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func sigkillDuringARefreshLeavesTheEntryAndTheLockFree() async throws {
        try await Self.withFileProfile { sandbox, provider, before in
            // The refresh request is held at the provider, with no effect yet, while webauth
            // waits for it holding the profile's lock.
            provider.setFault(.delay(.seconds(600)).times(1), for: .token)
            let refreshing = try sandbox.start(Self.refreshArguments)
            defer { refreshing.send(SIGKILL) }  // if the test stops early
            try #require(await eventually { provider.fault(for: .token) == nil }, "the refresh request arrived")
            let lockPath = sandbox.tokenDirectory + "/.default.lock"
            #expect(!Self.lockIsFree(lockPath), "webauth holds the profile's lock mid-refresh")

            refreshing.send(SIGKILL)
            let status = try await refreshing.waitForEnd(timeout: .seconds(30))
            #expect(Subprocess.exitCode(of: status) == nil, Comment(rawValue: Subprocess.describe(status: status)))
            #expect(Self.lockIsFree(lockPath), "the kernel released the lock with the process")
            try await Self.expectNothingLost(sandbox, provider, before: before)
        }
    }

    @Test(TestFixture.keyring.required, .timeLimit(.minutes(3)))
    func theKeyringDaemonDyingMidRefreshKeepsTheRotatedTokensInFiles() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyring = try await PrivateKeyring.start(in: sandbox.root)
        sandbox.extraEnvironment = keyring.busEnvironment
        // The provider's time moves only when the test says: the refresh is held until the
        // daemon is dead, however slow the machine.
        let time = SteppedClock()
        do {
            try await EmbeddedProvider.withProvider(EmbeddedProvider.Configuration(clock: time.clock)) { provider in
                let keyringStore = try SecretServiceTokenStore(environment: sandbox.environment)
                let before = try await Self.signIn(sandbox, provider, store: keyringStore)
                #expect(try sandbox.storedEntry() == nil, "in the keyring, not in files")
                provider.setFault(.delay(.seconds(2)).times(1), for: .token)

                // The daemon dies while the refresh is at the provider: the rotated tokens
                // cannot go to the keyring, so (with the automatic store) they go to files.
                let refreshing = try sandbox.start(Self.refreshArguments)
                try #require(await eventually { provider.fault(for: .token) == nil }, "the refresh request arrived")
                try await keyring.killDaemon()
                time.advance(by: .seconds(2))
                let status = try await refreshing.waitForExit(timeout: .seconds(120))
                #expect(status == 0, "stderr: \(refreshing.standardError)")
                #expect(refreshing.standardError.contains("they are in files now"), "\(refreshing.standardError)")
                let kept = try #require(try sandbox.storedEntry(), "the refreshed tokens are in a file")
                #expect(refreshing.standardOutput == kept.tokens.accessToken + "\n")
                #expect(kept.tokens.refreshToken != before.tokens.refreshToken)
                #expect(provider.isActive(refreshToken: try #require(kept.tokens.refreshToken)))
                #expect(ProfileIndex(environment: sandbox.environment).kind(of: "default") == .file)

                // Later commands find them there, with the keyring still gone.
                let next = try await sandbox.run(Self.refreshArguments)
                #expect(next.status == 0, "stderr: \(next.stderr)")
                let rotated = try #require(try sandbox.storedEntry())
                #expect(rotated.tokens.refreshToken != kept.tokens.refreshToken)
                #expect(provider.isActive(refreshToken: try #require(rotated.tokens.refreshToken)))
            }
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }

    @Test(TestFixture.chromium.required, .timeLimit(.minutes(3)))
    func theBrowserKilledMidFlowExitsFiveAndLeavesNoProcessProfileOrSocket() async throws {
        try await BrowserTurns.withTurn {
            var sandbox = try ProfileSandbox()
            defer { sandbox.remove() }
            let runtime = sandbox.root + "/run"
            #expect(mkdir(runtime, 0o700) == 0)
            sandbox.extraEnvironment["XDG_RUNTIME_DIR"] = runtime
            try await EmbeddedProvider.withProvider { provider in
                // Any page on loopback will do: the person never gets further.
                let page = provider.url(.openIDConfiguration).absoluteString + "?next={redirect_uri}"
                var arguments = [
                    "open", "--loopback", "--browser", "chromium", "--ephemeral", "--headless", "--timeout", "90",
                ]
                let offline = TestBrowsers.chromiumOfflineArguments.filter { !$0.hasPrefix("--headless") }
                for argument in offline + ["--no-sandbox"] {
                    arguments += ["--browser-arg=\(argument)"]
                }
                let open = try sandbox.start(arguments + [page])
                defer { open.send(SIGTERM) }  // if the test stops early: webauth closes its browser
                let shown = await provider.waitForRequests(to: .openIDConfiguration, timeout: .seconds(60))
                try #require(!shown.isEmpty, "the page was not loaded: \(open.standardError)")
                let port = try listeningPort(in: open.standardError)
                let children = Self.descendants(of: open.pid)
                let browser = try #require(
                    children.first { Self.commandLine(of: $0).contains("--remote-debugging-pipe") },
                    "no Chromium among \(children.map(Self.commandLine)); stderr: \(open.standardError)")
                let profiles = runtime + "/webauth/profiles"
                // One ephemeral profile, beside the browser's private output file.
                let entries = try FileManager.default.contentsOfDirectory(atPath: profiles)
                #expect(entries.filter { !$0.contains("_output-") }.count == 1, "\(entries)")

                kill(browser, SIGKILL)
                let status = try await open.waitForExit(timeout: .seconds(60))
                #expect(status == ExitStatus.browserLaunchFailed, "stderr: \(open.standardError)")
                #expect(open.standardError.contains("signal 9"), "stderr: \(open.standardError)")
                #expect(open.standardOutput.isEmpty)
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: profiles) == [], "profile and output removed")
                // Every process of the browser's group is gone when webauth exits. Chromium's crash
                // handler is not of the group (it starts itself in a session of its own) and ends
                // once the browser has gone, a moment later.
                let left = Self.processes(mentioning: sandbox.root)
                let helpers = left.filter { !Self.commandLine(of: $0).contains("chrome_crashpad_handler") }
                #expect(helpers == [], "no browser helper outlives webauth: \(helpers.map(Self.commandLine))")
                #expect(
                    await eventually(within: .seconds(30)) { Self.processes(mentioning: sandbox.root).isEmpty },
                    "Chromium's crash handler outlived the browser: \(Self.processes(mentioning: sandbox.root))")
                #expect(await loopbackListenerIsGone(port: port, path: "/callback"))
            }
        }
    }

    // MARK: - Processes and locks

    /// Whether nobody holds the `flock` on `path`.
    private static func lockIsFree(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    /// The live processes whose parent chain leads to `root`.
    private static func descendants(of root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        for pid in allProcesses() {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                // After the name in parentheses: the state, then the parent's PID.
                let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 1,
                let parent = pid_t(fields[1])
            else { continue }
            children[parent, default: []].append(pid)
        }
        var found: [pid_t] = []
        var queue = [root]
        while let next = queue.popLast() {
            let direct = children[next] ?? []
            found += direct
            queue += direct
        }
        return found
    }

    /// The processes whose command line contains `text` (dead ones, zombies included, are not
    /// listed: their command line is empty).
    private static func processes(mentioning text: String) -> [pid_t] {
        allProcesses().filter { commandLine(of: $0).contains(text) }
    }

    private static func commandLine(of pid: pid_t) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "" }
        return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
    }

    private static func allProcesses() -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
    }
}
