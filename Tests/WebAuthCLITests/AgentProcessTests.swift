// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthEmbeddedProvider
import WebAuthFastPath
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#endif

/// `webauth agent` run as a real process against the embedded provider, with the commands that
/// ask it — the fast path and the full program — as real processes too.
@Suite("webauth agent, run as processes")
struct AgentProcessTests {
    /// Starts `webauth agent run` in the sandbox and waits until it answers.
    static func startAgent(_ sandbox: ProfileSandbox, _ extra: [String] = []) async throws -> CLIProcess {
        let agent = try sandbox.start(["agent", "run", "--verbose"] + extra)
        let client = AgentClient(socketPath: sandbox.agentSocket)
        if await eventually(within: .seconds(30), { (try? await client.status()) != nil }) { return agent }
        agent.send(SIGKILL)
        throw CLITestError("the agent did not start: \(agent.standardError)")
    }

    /// Starts the agent in the sandbox and signs in to it alone (`login --device --agent-only`
    /// and `extra`); the login's standard error.
    static func startAgentSignedInAlone(
        _ sandbox: ProfileSandbox, _ provider: EmbeddedProvider, extra: [String] = []
    ) async throws -> (agent: CLIProcess, loginOutput: String) {
        let agent = try await startAgent(sandbox)
        let login = try await sandbox.run(provider.loginArguments(["--device", "--agent-only"] + extra))
        guard login.status == 0 else {
            agent.send(SIGKILL)
            throw CLITestError("webauth login --agent-only exited \(login.status): \(login.stderr)")
        }
        return (agent, login.stderr)
    }

    @Test func theAgentServesAStoredProfileToTheFastPathAndTheFullProgramAlike() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            let agent = try await Self.startAgent(sandbox)
            let added = try await sandbox.run(["agent", "add", "default"])
            #expect(added.status == 0, "stderr: \(added.stderr)")

            // Nothing left on disk: only the agent can answer now.
            try FileManager.default.removeItem(atPath: sandbox.entryPath())
            let fast = try await sandbox.run(["token"])
            #expect(fast.status == 0, "stderr: \(fast.stderr)")
            #expect(fast.stdout == entry.tokens.accessToken + "\n")
            var full = sandbox
            full.extraEnvironment["WEBAUTH_FAST_PATH"] = "0"
            let slow = try await full.run(["token"])
            #expect(slow.status == 0, "stderr: \(slow.stderr)")
            #expect(slow.stdout == fast.stdout)

            // The fast path answered by itself, from the agent.
            var environment = sandbox.environment
            environment["PATH"] = "/usr/bin:/bin"
            let answered = FastPath.answer(["token"], environment: environment, now: Date(), standardInput: { nil })
            #expect(answered == Array(fast.stdout.utf8))

            let status = try await sandbox.run(["agent", "status", "--json"])
            #expect(status.status == 0)
            #expect(status.stdout.contains(#""name":"default""#))
            #expect(status.stdout.contains(#""source":"store""#))
            #expect(!status.stdout.contains(entry.tokens.accessToken))
            #expect(!agent.standardError.contains(entry.tokens.accessToken))

            let stopped = try await sandbox.run(["agent", "stop"])
            #expect(stopped.status == 0, "stderr: \(stopped.stderr)")
            #expect(try await agent.waitForExit(timeout: .seconds(30)) == 0)
            #expect(!FileManager.default.fileExists(atPath: sandbox.agentSocket), "the socket is removed")
        }
    }

    @Test func aProfileNotHeldFallsBackToTheStoreSayingSoOnlyWhenVerbose() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            let agent = try await Self.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            var full = sandbox
            full.extraEnvironment["WEBAUTH_FAST_PATH"] = "0"
            let quiet = try await full.run(["token"])
            #expect(quiet.status == 0, "stderr: \(quiet.stderr)")
            #expect(quiet.stdout == entry.tokens.accessToken + "\n")
            #expect(quiet.stderr.isEmpty)
            let verbose = try await full.run(["token", "--verbose"])
            #expect(verbose.status == 0)
            #expect(verbose.stdout == quiet.stdout)
            #expect(verbose.stderr.contains("does not hold profile"))
            let fast = try await sandbox.run(["token"])
            #expect(fast.stdout == quiet.stdout)
        }
    }

    @Test func logoutMakesTheAgentHoldingTheProfileForgetItSoItServesNoneOfItsTokens() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            _ = try await sandbox.signInWithDevice(provider)
            let agent = try await Self.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            let logout = try await sandbox.run(["logout", "--json"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(try jsonObject(logout.stdout)["forgotten_by_agent"] as? Bool == true)
            #expect(logout.stderr.contains("forgot it too"))
            let status = try await AgentClient(socketPath: sandbox.agentSocket).status()
            #expect(status.profiles.isEmpty, "\(status.profiles.map(\.name))")
            // Neither the agent nor the store has a token for it now.
            let token = try await sandbox.run(["token"])
            #expect(token.status == 8, "stdout: \(token.stdout) stderr: \(token.stderr)")
            #expect(token.stdout.isEmpty)
        }
    }

    @Test func startPrintsTheExportLineAndStopEndsTheAgent() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let started = try await sandbox.run(["agent", "start"])
        #expect(started.status == 0, "stderr: \(started.stderr)")
        #expect(
            started.stdout
                == "export WEBAUTH_AGENT_SOCK='\(sandbox.agentSocket)'\n"
                + "export WEBAUTH_AGENT_FORWARD_SOCK='\(sandbox.agentSocket).forward'\n")
        let status = try await sandbox.run(["agent", "status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("no profiles"))
        let stopped = try await sandbox.run(["agent", "stop"])
        #expect(stopped.status == 0)
        #expect(await eventually(within: .seconds(10)) { !FileManager.default.fileExists(atPath: sandbox.agentSocket) })
        let after = try await sandbox.run(["agent", "status"])
        #expect(after.status == 1)
        #expect(after.stderr.contains("no agent listens"))
    }
}

extension AgentProcessTests {
    /// The command-line tests' provider; its access tokens live `accessTokenLifetime` when one
    /// is given, and it exchanges tokens for `tokenExchangeTargets`.
    static func withAgentTestProvider(
        accessTokenLifetime: Duration? = nil, tokenExchangeTargets: Set<String> = [],
        isolation: isolated (any Actor)? = #isolation, _ body: (EmbeddedProvider) async throws -> Void
    ) async throws {
        var configuration = EmbeddedProvider.Configuration(
            users: [.demo],
            clients: [
                EmbeddedProvider.Client(
                    id: EmbeddedProvider.cliClientID, secret: nil,
                    redirectURIs: [URL(string: "http://127.0.0.1/callback")!])
            ], idTokenLifetime: .seconds(600), devicePollingInterval: .seconds(1))
        if let accessTokenLifetime { configuration.accessTokenLifetime = accessTokenLifetime }
        configuration.tokenExchangeTargets = tokenExchangeTargets
        try await EmbeddedProvider.withProvider(configuration) { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            try await body(provider)
        }
    }

    /// A confirmation program that records its question about a token in `question` and
    /// answers `yes` or no; it allows every `add` (which `--confirm` asks about too) without
    /// recording it.
    static func askpass(_ sandbox: ProfileSandbox, allowing yes: Bool, extra: String = "") throws -> String {
        let path = sandbox.root + "/askpass"
        let script = """
            #!/bin/sh
            case "$1" in *" to add webauth profile "*) exit 0 ;; esac
            printf '%s' "$1" > "\(sandbox.root)/question"
            \(extra)
            exit \(yes ? 0 : 1)
            """
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o700])
        else { throw CLITestError("cannot write \(path)") }
        return path
    }

    /// Runs the full program (no fast path) in `sandbox`.
    static func full(_ sandbox: ProfileSandbox) -> ProfileSandbox {
        var full = sandbox
        full.extraEnvironment["WEBAUTH_FAST_PATH"] = "0"
        return full
    }

    @Test func aProfileSignedInToTheAgentOnlyLeavesNothingOnDiskAndEndsWithIt() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let (agent, loginOutput) = try await Self.startAgentSignedInAlone(sandbox, provider)
            #expect(loginOutput.contains("nothing stored"))
            #expect(try sandbox.storedEntry() == nil)
            #expect(!FileManager.default.fileExists(atPath: sandbox.indexPath))

            let token = try await sandbox.run(["token"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            let accessToken = token.stdout.trimmingCharacters(in: .newlines)
            #expect(provider.isActive(accessToken: accessToken))
            let slow = try await Self.full(sandbox).run(["token"])
            #expect(slow.stdout == token.stdout)
            let status = try await sandbox.run(["agent", "status", "--json"])
            #expect(status.stdout.contains(#""source":"agent-only""#))

            // The agent dies: nothing to fall back to, and the message says why.
            agent.send(SIGKILL)
            _ = try? await agent.waitForEnd(timeout: .seconds(10))
            for run in [sandbox, Self.full(sandbox)] {
                let after = try await run.run(["token"])
                #expect(after.status == 8, "stderr: \(after.stderr)")
                #expect(after.stdout.isEmpty)
                #expect(after.stderr.contains("agent only"), "\(after.stderr)")
                #expect(after.stderr.contains("stopped"))
            }
        }
    }

    @Test func requestUsesTheAgentOnlyProfilesTokenAndAfterA401TheAgentRenewsIt() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let agent = try await Self.startAgentSignedInAlone(sandbox, provider).agent
            defer { agent.send(SIGTERM) }
            let userInfo = provider.issuer.appending(path: "userinfo").absoluteString
            var refreshes: Int { provider.requests(to: .token).count { $0.grantType == "refresh_token" } }

            let first = try await Self.full(sandbox).run(["request", userInfo])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            #expect(first.stdout.contains(EmbeddedProvider.User.demo.subject))
            #expect(refreshes == 0)

            // The provider stops taking the agent's access token: the resource answers 401, the
            // agent (the only refresher, nothing is stored here) renews it, and the retry succeeds.
            let held = try await sandbox.run(["token"]).stdout.trimmingCharacters(in: .newlines)
            let revoked = try await RawHTTPClient.request(
                method: "POST", url: provider.url(.revocation),
                headerFields: [.contentType: "application/x-www-form-urlencoded"],
                body: Array("token=\(held)&token_type_hint=access_token&client_id=\(EmbeddedProvider.cliClientID)".utf8)
            )
            try #require(revoked.status == 200)
            #expect(!provider.isActive(accessToken: held))
            let second = try await Self.full(sandbox).run(["request", userInfo])
            #expect(second.status == 0, "stderr: \(second.stderr)")
            #expect(second.stdout.contains(EmbeddedProvider.User.demo.subject))
            #expect(refreshes == 1, "renewed once, by the agent")
            let renewed = try await sandbox.run(["token"]).stdout.trimmingCharacters(in: .newlines)
            #expect(renewed != held && provider.isActive(accessToken: renewed))
            #expect(try sandbox.storedEntry() == nil, "nothing was stored")
        }
    }

    @Test func theAgentRefreshesAheadOnceAndWritesTheRotatedTokensBackToTheStore() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withAgentTestProvider(accessTokenLifetime: .seconds(10)) { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            let agent = try await Self.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            // The last fifth of 10 s starts at 8 s: wait past it. That the timer refreshes once
            // per lifetime, not again at once, AgentTimeTests shows on a clock of its own.
            try #require(await eventually(within: .seconds(20)) { !provider.refreshRequests.isEmpty })
            #expect(provider.refreshRequests.allSatisfy { $0.error == nil })
            #expect(
                await eventually(within: .seconds(10)) {
                    guard let current = try? sandbox.storedEntry() else { return false }
                    return current.tokens.refreshToken != entry.tokens.refreshToken
                }, "the rotated tokens are written back")
            let stored = try #require(try sandbox.storedEntry())
            #expect(stored.tokens.refreshToken != entry.tokens.refreshToken, "the rotated refresh token is stored")
            #expect(stored.tokens.accessToken != entry.tokens.accessToken)
            let served = try await sandbox.run(["token", "--min-validity", "1"])
            #expect(served.stdout == stored.tokens.accessToken + "\n")
            #expect(!agent.standardError.contains(stored.tokens.accessToken))
            #expect(provider.refreshRequests.count == 1, "the tokens it refreshed to were not refreshed again")
        }
    }

    @Test func aRefreshTheProviderRefusesMarksTheProfileAndGivesExitNine() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            let agent = try await Self.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            try await provider.revokeFromElsewhere(try #require(entry.tokens.refreshToken))
            // More validity than the token has: the agent must refresh, and is refused.
            for run in [sandbox, Self.full(sandbox)] {
                let refused = try await run.run(["token", "--min-validity", "7200"])
                #expect(refused.status == 9, "stderr: \(refused.stderr)")
                #expect(refused.stdout.isEmpty)
                #expect(refused.stderr.contains("refused"))
            }
            let status = try await sandbox.run(["agent", "status", "--json"])
            #expect(status.stdout.contains(#""refused":true"#))
        }
    }

    @Test func withTheProviderDownWhileRefreshingAheadTheValidTokenIsStillServed() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withAgentTestProvider(accessTokenLifetime: .seconds(20)) { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            let agent = try await Self.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            provider.setFault(.closedWithoutAnswer, for: .token)
            // Past 16 s the agent tries to refresh ahead, and cannot; the token has 4 s left.
            _ = try await agent.waitForStandardError(containing: "ahead failed", timeout: .seconds(19))
            let served = try await sandbox.run(["token", "--min-validity", "1"])
            #expect(served.status == 0, "stderr: \(served.stderr)")
            #expect(served.stdout == entry.tokens.accessToken + "\n")
            #expect(try sandbox.storedEntry()?.tokens.refreshToken == entry.tokens.refreshToken)
        }
    }

    @Test func aProfileIsForgottenAfterTheLifetimeAndAfterTheIdleTime() async throws {
        // When each limit ends, and that a token asked for counts as a use, AgentTimeTests and
        // AgentHolderTests show with a clock of their own. Here real processes show each limit
        // at work, with limits of a few seconds: the agent's status forgets what is due before
        // answering, so neither a slow start of a command nor a late tick of the agent's timer
        // can upset it.
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            _ = try await sandbox.signInWithDevice(provider)

            // The lifetime, with no idle time.
            let lifetimeAgent = try await Self.startAgent(sandbox)
            #expect(try await sandbox.run(["agent", "add", "default", "--lifetime", "5s"]).status == 0)
            let held = try await sandbox.run(["agent", "status", "--json"])
            let forgetAt = try Self.time("forget_at", of: "default", in: held)
            let addedAt = try Self.lastUse(of: "default", in: held)
            #expect(abs(forgetAt.timeIntervalSince(addedAt) - 5) <= 1, "a lifetime of 5 s ends at \(forgetAt)")
            #expect(
                await eventually(within: .seconds(30)) {
                    (try? await sandbox.run(["agent", "status"]).stdout.contains("no profiles")) == true
                })
            #expect(lifetimeAgent.standardError.contains("forgot profile"))
            lifetimeAgent.send(SIGTERM)
            _ = try? await lifetimeAgent.waitForEnd(timeout: .seconds(10))

            // The idle time.
            let idleAgent = try await Self.startAgent(sandbox, ["--idle", "3s"])
            defer { idleAgent.send(SIGTERM) }
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            #expect(try await sandbox.run(["token"]).status == 0)
            #expect(
                await eventually(within: .seconds(30)) {
                    (try? await sandbox.run(["agent", "status"]).stdout.contains("no profiles")) == true
                })
            #expect(idleAgent.standardError.contains("forgot profile"))
        }
    }

    /// A time `agent status --json` gives for `profile`, such as `forget_at`.
    static func time(
        _ key: String, of profile: String, in status: (status: Int32, stdout: String, stderr: String)
    ) throws -> Date {
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let profiles = object?["profiles"] as? [[String: Any]] ?? []
        guard let value = profiles.first(where: { $0["name"] as? String == profile })?[key] as? String else {
            throw CLITestError("no \(key) of \(profile) in \(status.stdout)")
        }
        return try Date(value, strategy: .iso8601)
    }

    /// When the agent last handed out `profile`'s token, from `agent status --json`.
    static func lastUse(of profile: String, in status: (status: Int32, stdout: String, stderr: String)) throws -> Date {
        try time("last_used_at", of: profile, in: status)
    }

    @Test func withConfirmEachTokenIsAskedForAndARefusalIsExitNine() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            sandbox.extraEnvironment["WEBAUTH_ASKPASS"] = try Self.askpass(sandbox, allowing: true)
            let agent = try await Self.startAgent(sandbox, ["--confirm"])
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            let allowed = try await sandbox.run(["token"])
            #expect(allowed.status == 0, "stderr: \(allowed.stderr)")
            #expect(allowed.stdout == entry.tokens.accessToken + "\n")
            let question = try String(contentsOfFile: sandbox.root + "/question", encoding: .utf8)
            #expect(question.contains("\"default\""))
            #expect(question.contains("webauth"), "names the asking command: \(question)")
            #expect(!question.contains(entry.tokens.accessToken))

            _ = try Self.askpass(sandbox, allowing: false)
            for run in [sandbox, Self.full(sandbox)] {
                let refused = try await run.run(["token"])
                #expect(refused.status == 9, "stderr: \(refused.stderr)")
                #expect(refused.stdout.isEmpty)
            }
            agent.send(SIGTERM)
            #expect(try await agent.waitForExit(timeout: .seconds(30)) == 0)
        }
    }

    @Test func theAgentKilledMidRequestLeavesTheClientToTheStore() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            // The confirmation kills the agent while the request waits for it (the helper's
            // `sleep` keeps it from answering before the kill lands: real time is the point).
            sandbox.extraEnvironment["WEBAUTH_ASKPASS"] = try Self.askpass(
                sandbox, allowing: true, extra: "kill -9 $PPID; sleep 1")
            let agent = try await Self.startAgent(sandbox, ["--confirm"])
            #expect(try await sandbox.run(["agent", "add", "default"]).status == 0)
            let token = try await sandbox.run(["token"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            #expect(token.stdout == entry.tokens.accessToken + "\n")
            _ = try? await agent.waitForEnd(timeout: .seconds(10))
        }
    }
}

/// The agent's socket and another user of the machine (uid 65534, through `setpriv`, running
/// Debian's `python3`: the test build is not theirs to run).
@Suite("webauth agent and another user")
struct AgentAnotherUserTests {
    /// A directory in the sandbox that the other user can reach and write (1777, as `/tmp`).
    static func sharedDirectory(_ sandbox: ProfileSandbox) throws -> String {
        let shared = sandbox.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(sandbox.root, 0o711)
        chmod(shared, 0o1777)
        return shared
    }

    /// Runs `script` with `python3 -I -c` as uid 65534, with `arguments`.
    static func asAnotherUser(_ script: String, _ arguments: [String]) throws -> Subprocess {
        try Subprocess(
            executable: "/usr/bin/setpriv",
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-I", "-c", script]
                + arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], standardOutput: .pipe, standardError: .pipe)
    }

    /// Whether `process` writes `ready` on its standard output before it ends.
    static func saysReady(_ process: Subprocess) async -> Bool {
        guard let output = process.standardOutput else { return false }
        for await chunk in output where String(decoding: chunk, as: UTF8.self).contains("ready") { return true }
        return false
    }

    /// Everything `stream` gives until it ends.
    static func collect(_ stream: AsyncStream<[UInt8]>?) async -> String {
        var bytes: [UInt8] = []
        if let stream { for await chunk in stream { bytes += chunk } }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func anotherUsersConnectionIsClosedUnanswered() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let shared = try Self.sharedDirectory(sandbox)
        sandbox.extraEnvironment["WEBAUTH_AGENT_SOCK"] = shared + "/agent.sock"
        let agent = try sandbox.start(["agent", "run"])
        defer { agent.send(SIGTERM) }
        let client = AgentClient(socketPath: shared + "/agent.sock")
        _ = await eventually(within: .seconds(30)) { (try? await client.status()) != nil }
        // As if the socket's mode were wrong: only the peer check is left to refuse.
        chmod(shared + "/agent.sock", 0o666)
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(10)
            s.connect(sys.argv[1])
            try:
                s.sendall(b'{"v":1,"op":"status"}\\n')
                data = s.recv(1000)
                sys.stdout.write(repr(data) if data else "closed")
            except OSError:
                sys.stdout.write("closed")
            """
        let stranger = try Self.asAnotherUser(script, [shared + "/agent.sock"])
        let output = await Self.collect(stranger.standardOutput)
        _ = await stranger.exitStatus()
        #expect(output == "closed")
        // This user is still served (once the mode is right again: a client asks no socket
        // others may write to).
        chmod(shared + "/agent.sock", 0o600)
        #expect((try? await client.status()) != nil)
    }

    @Test func aSocketAnotherUserPlantedIsRefusedByTheAgentAndItsClients() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let shared = try Self.sharedDirectory(sandbox)
        let path = shared + "/agent.sock"
        sandbox.extraEnvironment["WEBAUTH_AGENT_SOCK"] = path
        // The other user listens at the path and would record whatever it is sent.
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(8)
            print("ready", flush=True)
            while True:
                c, _ = s.accept()
                c.settimeout(2)
                try:
                    data = c.recv(65536)
                    sys.stderr.write("received %d bytes\\n" % len(data))
                    sys.stderr.flush()
                except OSError:
                    pass
                c.close()
            """
        let planter = try Self.asAnotherUser(script, [path])
        defer { planter.send(SIGKILL) }
        try #require(await Self.saysReady(planter))

        let start = try await sandbox.run(["agent", "run"])
        #expect(start.status == 1)
        #expect(start.stderr.contains("belongs to another user (uid 65534)"), "\(start.stderr)")

        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            for run in [sandbox, AgentProcessTests.full(sandbox)] {
                let token = try await run.run(["token"])
                #expect(token.status == 0, "stderr: \(token.stderr)")
                #expect(token.stdout == entry.tokens.accessToken + "\n")
            }
            let verbose = try await AgentProcessTests.full(sandbox).run(["token", "--verbose"])
            #expect(verbose.stderr.contains("another user (uid 65534)"), "\(verbose.stderr)")
        }
        planter.send(SIGKILL)
        let heard = await Self.collect(planter.standardError)
        let sent = heard.split(separator: "\n").filter { $0.hasPrefix("received ") && $0 != "received 0 bytes" }
        #expect(sent.isEmpty, "the planted socket was sent nothing: \(heard)")
    }
}

extension AgentProcessTests {
    @Test func underSocketActivationTheAgentServesThePassedSocketAndLeavesItInPlace() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let path = sandbox.root + "/activated.sock"
        let full = CLIProcess.executable.deletingLastPathComponent().appendingPathComponent("webauth-full").path
        // What systemd does: a listening socket as descriptor 3, LISTEN_PID and LISTEN_FDS.
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            os.chmod(sys.argv[1], 0o600)
            s.listen(16)
            if s.fileno() != 3:
                os.dup2(s.fileno(), 3)
            os.set_inheritable(3, True)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
            env.pop("WEBAUTH_AGENT_SOCK", None)
            os.execve(sys.argv[2], [sys.argv[2], "agent", "run"], env)
            """
        let agent = try CLIProcess(
            ["-I", "-c", script, path, full], environment: sandbox.environment, executable: "/usr/bin/python3")
        let client = AgentClient(socketPath: path)
        _ = await eventually(within: .seconds(30)) { (try? await client.status()) != nil }
        let status = try await client.status()
        #expect(status.processID == agent.pid)
        agent.send(SIGTERM)
        #expect(try await agent.waitForExit(timeout: .seconds(30)) == 0)
        #expect(FileManager.default.fileExists(atPath: path), "the socket is systemd's to remove")
    }

    @Test func underSocketActivationASecondPassedSocketIsTheForwardingOne() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let full = sandbox.root + "/activated.sock"
        let forwarding = sandbox.root + "/activated.sock.forward"
        let program = CLIProcess.executable.deletingLastPathComponent().appendingPathComponent("webauth-full").path
        // What systemd does with webauth-agent.socket's two ListenStream lines: descriptors 3
        // and 4, in that order.
        let script = """
            import os, socket, sys
            sockets = []
            for path in sys.argv[1:3]:
                s = socket.socket(socket.AF_UNIX)
                s.bind(path)
                os.chmod(path, 0o600)
                s.listen(16)
                sockets.append(s)
            for number, s in zip((3, 4), sockets):
                if s.fileno() != number:
                    os.dup2(s.fileno(), number)
                os.set_inheritable(number, True)
            env = dict(os.environ, LISTEN_FDS="2", LISTEN_PID=str(os.getpid()))
            env.pop("WEBAUTH_AGENT_SOCK", None)
            os.execve(sys.argv[3], [sys.argv[3], "agent", "run"], env)
            """
        let agent = try CLIProcess(
            ["-I", "-c", script, full, forwarding, program], environment: sandbox.environment,
            executable: "/usr/bin/python3")
        defer { agent.send(SIGTERM) }
        let client = AgentClient(socketPath: full)
        #expect(await eventually(within: .seconds(30)) { (try? await client.status()) != nil })
        do {
            _ = try await AgentClient(socketPath: forwarding).status()
            Issue.record("the second socket answered status")
        } catch {
            #expect(error.message.contains("forwarding socket serves tokens only"), "\(error.message)")
        }
    }
}

extension AgentProcessTests {
    /// Runs `arguments` in `sandbox` with `input` on standard input.
    static func run(
        _ sandbox: ProfileSandbox, _ arguments: [String], input: String
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try sandbox.start(arguments)
        process.finishInput(Array(input.utf8))
        let status = try await process.waitForExit(timeout: .seconds(60))
        return (status, process.standardOutput, process.standardError)
    }

    @Test func gitAndKubectlGetTheAgentOnlyProfilesTokensFromBothPrograms() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let agent = try await Self.startAgentSignedInAlone(sandbox, provider).agent
            defer { agent.send(SIGTERM) }
            let token = try await sandbox.run(["token"]).stdout.trimmingCharacters(in: .newlines)

            let gitInput = "protocol=https\nhost=git.example.com\n\n"
            let git = try await Self.run(
                sandbox, ["git-credential", "--profile-for", "git.example.com", "get"], input: gitInput)
            #expect(git.status == 0, "stderr: \(git.stderr)")
            #expect(git.stdout.contains("username=oauth2\npassword=\(token)\n"), "\(git.stdout)")
            let gitFull = try await Self.run(
                Self.full(sandbox), ["git-credential", "--profile-for", "git.example.com", "get"], input: gitInput)
            #expect(gitFull.stdout == git.stdout)

            sandbox.extraEnvironment["KUBERNETES_EXEC_INFO"] =
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#
            for type in ["id", "access"] {
                let kube = try await sandbox.run(["exec-credential", "--token-type", type])
                #expect(kube.status == 0, "\(type): \(kube.stderr)")
                #expect(kube.stdout.contains(#""token":""#))
                if type == "access" { #expect(kube.stdout.contains(token)) }
                let kubeFull = try await Self.full(sandbox).run(["exec-credential", "--token-type", type])
                #expect(kubeFull.stdout == kube.stdout, "\(type)")
            }
        }
    }
}
