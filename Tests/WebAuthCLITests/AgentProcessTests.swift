import Foundation
import Testing
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#endif

/// `webauth agent` run as a real process against the embedded provider, with the commands that
/// ask it — the fast path and the full program — as real processes too.
@Suite("webauth agent, run as processes")
struct AgentProcessTests {
    /// Signs the sandbox's `profile` in to the file store and returns the stored entry.
    static func signIn(
        _ sandbox: ProfileSandbox, _ provider: EmbeddedProvider, profile: String = "default", extra: [String] = []
    ) async throws -> StoredTokens {
        let login = try await sandbox.run(
            provider.loginArguments(["--device", "--store", "file", "--profile", profile] + extra))
        try #require(login.status == 0, "login failed: \(login.stderr)")
        return try #require(try sandbox.storedEntry(profile))
    }

    /// Starts `webauth agent run` in the sandbox and waits until it answers.
    static func startAgent(_ sandbox: ProfileSandbox, _ extra: [String] = []) async throws -> CLIProcess {
        let agent = try sandbox.start(["agent", "run", "--verbose"] + extra)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if (try? await AgentClient(socketPath: sandbox.agentSocket).status()) != nil { return agent }
            try await Task.sleep(for: .milliseconds(20))
        }
        agent.send(SIGKILL)
        throw CLITestError("the agent did not start: \(agent.standardError)")
    }

    @Test func theAgentServesAStoredProfileToTheFastPathAndTheFullProgramAlike() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await Self.signIn(sandbox, provider)
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
            let entry = try await Self.signIn(sandbox, provider)
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

    @Test func startPrintsTheExportLineAndStopEndsTheAgent() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let started = try await sandbox.run(["agent", "start"])
        #expect(started.status == 0, "stderr: \(started.stderr)")
        #expect(started.stdout == "export WEBAUTH_AGENT_SOCK='\(sandbox.agentSocket)'\n")
        let status = try await sandbox.run(["agent", "status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("no profiles"))
        let stopped = try await sandbox.run(["agent", "stop"])
        #expect(stopped.status == 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while FileManager.default.fileExists(atPath: sandbox.agentSocket), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.agentSocket))
        let after = try await sandbox.run(["agent", "status"])
        #expect(after.status == 1)
        #expect(after.stderr.contains("no agent listens"))
    }
}
