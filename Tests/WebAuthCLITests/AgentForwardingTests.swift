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

/// The agent's forwarding socket as its far side meets it: forwarded over a real OpenSSH
/// connection (`ssh -R`), it hands out the tokens of the profiles the person marked with
/// `agent add --forward` and refuses everything else. And a client that meets another user's
/// socket at the agent's path gives up at once.
@Suite("The agent's forwarding socket", .serialized)
struct AgentForwardingTests {
    /// Signs in `default` and `shared`, starts the agent, adds `default` as it is and `shared`
    /// with `--forward`, and runs `body` with the sandbox, the entries and the agent.
    static func withTwoProfiles(
        _ body: (ProfileSandbox, _ default: StoredTokens, _ shared: StoredTokens) async throws -> Void
    ) async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let plain = try await sandbox.signInWithDevice(provider)
            let shared = try await sandbox.signInWithDevice(provider, profile: "shared")
            let agent = try await AgentProcessTests.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            let added = try await sandbox.run(["agent", "add", "default"])
            try #require(added.status == 0, "\(added.stderr)")
            let forwarded = try await sandbox.run(["agent", "add", "shared", "--forward", "--json"])
            try #require(forwarded.status == 0, "\(forwarded.stderr)")
            #expect(forwarded.stdout.contains(#""forwarded":true"#))
            try await body(sandbox, plain, shared)
        }
    }

    @Test(
        "Over ssh -R the forwarding socket gives the forwarded profile's token and refuses add, remove, status, another profile and any entry",
        TestFixture.openSSH.required, .timeLimit(.minutes(3)))
    func forwardedOverSSH() async throws {
        try await Self.withTwoProfiles { sandbox, plain, shared in
            let status = try await sandbox.run(["agent", "status", "--json"])
            let forwardingSocket = sandbox.agentSocket + ".forward"
            #expect(status.stdout.contains(#""forwarding_socket":"\#(forwardingSocket)""#), "\(status.stdout)")
            #expect(FileManager.default.fileExists(atPath: forwardingSocket))

            try await SSHServer.withServer { server in
                let far = server.directory + "/far"
                let home = far + "/home"
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                let remoteSocket = far + "/agent.sock"
                let forward = try server.forward(remote: remoteSocket, to: forwardingSocket)
                try await forward.waitUntilListening()
                let context = server.log + forward.log

                func farSide(_ command: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
                    try await server.run(
                        ["env", "-i"] + SSHServer.farSideEnvironment(home: home) + [
                            "WEBAUTH_AGENT_SOCK=\(remoteSocket)"
                        ] + command)
                }
                let webauth = CLIProcess.executable.path
                let full = CLIProcess.executable.deletingLastPathComponent().appendingPathComponent("webauth-full").path

                // The forwarded profile's token, through the fast path and the full program.
                for program in [webauth, full] {
                    let token = try await farSide([program, "token", "--profile", "shared"])
                    #expect(token.status == 0, "\(program): \(token.stderr) \(context)")
                    #expect(token.stdout == shared.tokens.accessToken + "\n")
                }

                // A profile the person did not forward is not there.
                let hidden = try await farSide([webauth, "token", "--profile", "default"])
                #expect(hidden.status == ExitStatus.notSignedIn, "\(hidden.stderr)")
                #expect(hidden.stdout.isEmpty)
                #expect(!containsSecret(hidden.stdout + hidden.stderr, of: plain))

                // No management: add (from the store, or forwarded), remove, status, stop.
                for command in [
                    ["agent", "add", "default"], ["agent", "add", "default", "--forward"],
                    ["agent", "remove", "shared"], ["agent", "status"], ["agent", "stop"],
                ] {
                    let refused = try await farSide([full] + command)
                    #expect(refused.status != 0, "\(command) was refused")
                    #expect(
                        refused.stderr.contains("forwarding socket serves tokens only"), "\(command): \(refused.stderr)"
                    )
                }

                // An entry naming a key file and a token endpoint, sent as the raw protocol line.
                let entry =
                    #"{"version":3,"tokens":{"access_token":"x","token_type":"Bearer","expires_at":1,"received_at":0},"#
                    + #""clientID":"c","savedAt":0,"configuration":{"clientID":"c","issuer":"https://id.example","#
                    + #""tokenEndpoint":"http://127.0.0.1:1/","clientAuthentication":"private_key_jwt","#
                    + #""clientKeyFile":"/root/.ssh/id_ed25519"}}"#
                let request = #"{"v":1,"op":"add","profile":"planted","entry":\#(jsonString(entry)),"forward":true}"#
                let script = """
                    import socket, sys
                    s = socket.socket(socket.AF_UNIX)
                    s.settimeout(10)
                    s.connect(sys.argv[1])
                    s.sendall(sys.argv[2].encode() + b"\\n")
                    sys.stdout.write(s.recv(65536).decode())
                    """
                let raw = try await farSide(["/usr/bin/python3", "-I", "-c", script, remoteSocket, request])
                #expect(raw.status == 0, "\(raw.stderr)")
                #expect(raw.stdout.contains(#""code":"notServedHere""#), "\(raw.stdout)")
                await forward.stop()
            }

            // Nothing changed on this side.
            let after = try await sandbox.run(["agent", "status", "--json"])
            #expect(after.status == 0, "the agent still runs: \(after.stderr)")
            #expect(after.stdout.contains(#""name":"default""#) && after.stdout.contains(#""name":"shared""#))
            #expect(!after.stdout.contains("planted"))
            #expect(after.stdout.contains(#""forwarded":false"#) && after.stdout.contains(#""forwarded":true"#))
        }
    }

    @Test(
        "A squatted default socket (another user's, with a full queue) is given up on at once, and the store answers",
        .timeLimit(.minutes(2)))
    func aSquattedSocketStallsNoTokenCall() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        // No runtime directory: the default socket is $TMPDIR/webauth-UID/agent.sock, in a
        // directory anyone may make first.
        let shared = try AgentAnotherUserTests.sharedDirectory(sandbox)
        // Empty values are ignored as unset: the test runner's own runtime directory too.
        sandbox.extraEnvironment["WEBAUTH_AGENT_SOCK"] = ""
        sandbox.extraEnvironment["XDG_RUNTIME_DIR"] = ""
        sandbox.extraEnvironment["TMPDIR"] = shared
        let directory = shared + "/webauth-\(getuid())"
        let path = directory + "/agent.sock"
        // The other user makes the directory and listens there, accepting nothing, its queue full.
        let script = """
            import os, socket, sys
            os.mkdir(sys.argv[1], 0o700)
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[2])
            os.chmod(sys.argv[2], 0o600)
            s.listen(0)
            held = []
            for _ in range(64):
                c = socket.socket(socket.AF_UNIX)
                c.setblocking(False)
                try:
                    c.connect(sys.argv[2])
                except BlockingIOError:
                    break
                held.append(c)
            print("ready", flush=True)
            sys.stdin.read()
            """
        let squatter = try AgentAnotherUserTests.asAnotherUser(script, [directory, path])
        defer { squatter.send(SIGKILL) }
        try #require(await AgentAnotherUserTests.saysReady(squatter))

        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            for fastPath in ["1", "0"] {
                var run = sandbox
                run.extraEnvironment["WEBAUTH_FAST_PATH"] = fastPath
                let started = ContinuousClock.now
                let token = try await run.run(["token"], timeout: .seconds(60))
                let waited = started.duration(to: .now)
                #expect(token.status == 0, "fast path \(fastPath): \(token.stderr)")
                #expect(token.stdout == entry.tokens.accessToken + "\n")
                // Real time is the point: before the check, the full queue held each program for
                // the answer's minute (65 s), then the full program for another.
                #expect(waited < .seconds(20), "fast path \(fastPath): \(waited)")
            }
            let verbose = try await AgentProcessTests.full(sandbox).run(["token", "--verbose"])
            #expect(verbose.stderr.contains("belongs to another user (uid 65534)"), "\(verbose.stderr)")
        }
    }

    @Test func agentStartPrintsBothSocketsForEval() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let start = try await sandbox.run(["agent", "start"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout.contains("export WEBAUTH_AGENT_SOCK='\(sandbox.agentSocket)'\n"), "\(start.stdout)")
        #expect(
            start.stdout.contains("export WEBAUTH_AGENT_FORWARD_SOCK='\(sandbox.agentSocket).forward'\n"),
            "\(start.stdout)")
        // As the person's shell reads it: both variables set, and the agent answers at the first.
        let shell = try CLIProcess(
            ["-c", start.stdout + #"printf '%s|%s' "$WEBAUTH_AGENT_SOCK" "$WEBAUTH_AGENT_FORWARD_SOCK""#],
            environment: sandbox.environment, executable: "/bin/sh")
        #expect(try await shell.waitForExit() == 0)
        #expect(shell.standardOutput == "\(sandbox.agentSocket)|\(sandbox.agentSocket).forward")
        let stop = try await sandbox.run(["agent", "stop"])
        #expect(stop.status == 0, "\(stop.stderr)")
    }

    @Test func anAgentOnlySignInThatWouldNameEndpointsIsRefusedBeforeThePersonSignsIn() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let agent = try await AgentProcessTests.startAgent(sandbox)
            defer { agent.send(SIGTERM) }
            let configuration = sandbox.root + "/client.json"
            let issuer = provider.issuer.absoluteString
            try """
            {"clientID":"\(EmbeddedProvider.cliClientID)","authorizationEndpoint":"\(issuer)/authorize",
             "tokenEndpoint":"\(issuer)/token","scopes":["openid","offline_access"]}
            """.write(toFile: configuration, atomically: true, encoding: .utf8)
            chmod(configuration, 0o600)
            let login = try await sandbox.run(["login", "--config", configuration, "--device", "--agent-only"])
            #expect(login.status == ExitStatus.invalidInput, "\(login.stderr)")
            #expect(login.stderr.contains("--agent-only cannot be used here"), "\(login.stderr)")
            #expect(login.stderr.contains("webauth agent add default"), "says what to do instead: \(login.stderr)")
            #expect(provider.requests(to: .token).isEmpty, "no code was exchanged")
            #expect(provider.requests(to: .deviceAuthorization).isEmpty, "the person was never asked to sign in")
        }
    }
}

extension AgentForwardingTests {
    @Test func anAgentOnlySignInIsForwardedOnlyWhenAsked() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let alone = try await sandbox.run([
            "login", "--issuer", "https://id.example.com", "--client-id", "c", "--forward",
        ])
        #expect(alone.status == ExitStatus.usage, "\(alone.stderr)")
        #expect(alone.stderr.contains("--forward goes with --agent-only"), "\(alone.stderr)")
        try await EmbeddedProvider.withCLIProvider { provider in
            let agent = try await AgentProcessTests.startAgentSignedInAlone(sandbox, provider, extra: ["--forward"])
                .agent
            defer { agent.send(SIGTERM) }
            let status = try await sandbox.run(["agent", "status", "--json"])
            #expect(status.stdout.contains(#""forwarded":true"#), "\(status.stdout)")
            #expect(status.stdout.contains(#""source":"agent-only""#))
            let through = AgentClient(socketPath: sandbox.agentSocket + ".forward")
            guard case .tokens = try await through.tokens(profile: "default") else {
                Issue.record("the forwarding socket did not serve the forwarded agent-only profile")
                return
            }
        }
    }
}

/// `text` as a JSON string literal.
private func jsonString(_ text: String) -> String {
    let data = try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
    let array = String(decoding: data ?? Data(), as: UTF8.self)
    return String(array.dropFirst().dropLast())
}
