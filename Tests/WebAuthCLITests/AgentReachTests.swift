// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCLI
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The agent's socket taken where the sign-in is not: over a real OpenSSH connection
/// (`ssh -R`) to a far side with empty XDG directories and no store, and into a container given
/// only the socket. `webauth token`, git's credential helper and `exec-credential` work there;
/// a cut connection fails cleanly.
@Suite("The agent over ssh and in a container", .serialized, TestFixture.git.required)
struct AgentReachTests {
    /// The host the far side's git asks about, bound to the profile on the helper line (the far
    /// side has no profile index to record hosts in).
    static let gitHost = "git.example.com"

    @Test(
        "Over ssh -R, the far side with no store gets the token, git's credential and an ExecCredential, and fails cleanly once the connection is cut",
        TestFixture.openSSH.required, .timeLimit(.minutes(3)))
    func forwardedOverSSH() async throws {
        try await SignedInAgent.run { agent in
            try await SSHServer.withServer { server in
                let far = server.directory + "/far"
                let home = far + "/home"
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                let remoteSocket = far + "/agent.sock"
                let forward = try server.forward(remote: remoteSocket, to: agent.socket)
                try await forward.waitUntilListening()

                func farSide(_ command: [String], extra: [String] = [], input: String? = nil) async throws -> (
                    status: Int32, stdout: String, stderr: String
                ) {
                    try await server.run(
                        ["env", "-i"] + SSHServer.farSideEnvironment(home: home) + [
                            "WEBAUTH_AGENT_SOCK=\(remoteSocket)"
                        ] + extra + command, input: input)
                }
                try await agent.expectCommandsWork(farSide, context: server.log + forward.log)
                #expect(
                    (try? FileManager.default.contentsOfDirectory(atPath: home + "/.local/state")) == nil,
                    "nothing was stored on the far side")

                await forward.kill()
                let cut = try await farSide([CLIProcess.executable.path, "token", "--profile", "default"])
                #expect(cut.status == ExitStatus.notSignedIn, "\(cut.stderr)")
                #expect(cut.stdout.isEmpty)
                #expect(cut.stderr.contains(#"no profile "default" is signed in"#), "\(cut.stderr)")
                #expect(!agent.containsSecret(cut.stderr))
                let cutGit = try await farSide(
                    agent.gitCommand, extra: agent.gitEnvironment(home: home),
                    input: "protocol=https\nhost=\(Self.gitHost)\n\n")
                #expect(cutGit.status != 0)
                #expect(!agent.containsSecret(cutGit.stdout + cutGit.stderr))
            }
        }
    }

    @Test(
        "A container given only the socket (fresh mount and network namespaces) gets the token, git's credential and an ExecCredential",
        TestFixture.mountNamespace.required, .timeLimit(.minutes(3)))
    func givenToAContainer() async throws {
        try await SignedInAgent.run { agent in
            func inContainer(_ command: [String], extra: [String] = [], input: String? = nil) async throws -> (
                status: Int32, stdout: String, stderr: String
            ) {
                let environment = Dictionary(
                    uniqueKeysWithValues: extra.map { pair in
                        let parts = pair.split(separator: "=", maxSplits: 1)
                        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
                    })
                // The build directory stays visible where it is, even in a checkout under /tmp.
                let build = CLIProcess.executable.deletingLastPathComponent().path
                return try await IsolatedContainer.run(
                    command, socket: agent.socket, keeping: [build], environment: environment, input: input)
            }
            try await agent.expectCommandsWork(inContainer, context: "")
        }
    }
}

/// A profile signed in to the embedded provider with `webauth login --device` and handed to a
/// running `webauth agent run` with `webauth agent add`.
struct SignedInAgent {
    let provider: EmbeddedProvider
    let sandbox: ProfileSandbox
    let socket: String
    let entry: StoredTokens

    /// Signs in, starts the agent, adds the profile, runs `body`, and stops the agent.
    static func run(_ body: (SignedInAgent) async throws -> Void) async throws {
        try await EmbeddedProvider.withCLIProvider { provider in
            let sandbox = try ProfileSandbox()
            defer { sandbox.remove() }
            let socket = sandbox.agentSocket
            let login = try await sandbox.run(provider.loginArguments(["--device"]))
            try #require(login.status == 0, "\(login.stderr)")
            let agentProcess = try sandbox.start(["agent", "run"])
            do {
                guard await eventually(within: .seconds(30), { unixSocketAccepts(socket) }) else {
                    throw CLITestError("the agent did not listen: \(agentProcess.standardError)")
                }
                let added = try await sandbox.run(["agent", "add", "default"])
                try #require(added.status == 0, "\(added.stderr)")
                let entry = try #require(try sandbox.storedEntry())
                try await body(SignedInAgent(provider: provider, sandbox: sandbox, socket: socket, entry: entry))
            } catch {
                agentProcess.send(SIGTERM)
                _ = try? await agentProcess.waitForEnd(timeout: .seconds(10))
                throw error
            }
            agentProcess.send(SIGTERM)
            _ = try await agentProcess.waitForEnd(timeout: .seconds(10))
        }
    }

    func containsSecret(_ text: String) -> Bool { WebAuthCLITests.containsSecret(text, of: entry) }

    /// git's own `credential fill`, asking `webauth git-credential` with the host bound on the
    /// helper line.
    var gitCommand: [String] {
        [
            "/usr/bin/git", "-c", "credential.helper=",
            "-c",
            "credential.helper=!'\(CLIProcess.executable.path)' git-credential --profile-for "
                + "\(AgentReachTests.gitHost)=default",
            "credential", "fill",
        ]
    }

    /// What git needs to run with nothing of this machine's configuration.
    func gitEnvironment(home: String) -> [String] {
        [
            "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=",
            "SSH_ASKPASS=",
        ]
    }

    /// `webauth token`, git's credential helper through `git credential fill`, and
    /// `exec-credential`, run through `run` (on a far side): each answers from the agent.
    func expectCommandsWork(
        _ run: ([String], [String], String?) async throws -> (status: Int32, stdout: String, stderr: String),
        context: String
    ) async throws {
        let webauth = CLIProcess.executable.path
        let accessToken = entry.tokens.accessToken

        for fastPath in ["1", "0"] {
            let token = try await run(
                [webauth, "token", "--profile", "default"], ["WEBAUTH_FAST_PATH=\(fastPath)"], nil)
            #expect(token.status == 0, "fast path \(fastPath): \(token.stderr) \(context)")
            #expect(token.stdout == accessToken + "\n", "fast path \(fastPath)")
        }

        let filled = try await run(
            gitCommand, gitEnvironment(home: ""), "protocol=https\nhost=\(AgentReachTests.gitHost)\n\n")
        #expect(filled.status == 0, "\(filled.stderr) \(context)")
        #expect(filled.stdout.contains("password=\(accessToken)\n"), "git's answer carries the agent's token")

        let execInfo =
            #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#
        let credential = try await run(
            [webauth, "exec-credential", "--profile", "default"], ["KUBERNETES_EXEC_INFO=\(execInfo)"], nil)
        #expect(credential.status == 0, "\(credential.stderr) \(context)")
        let object = try jsonObject(credential.stdout)
        #expect(object["kind"] as? String == "ExecCredential")
        let status = try #require(object["status"] as? [String: Any])
        #expect(status["token"] as? String == entry.tokens.idToken, "the ID token, as exec-credential gives by default")
        #expect(status["expirationTimestamp"] is String)
    }
}
