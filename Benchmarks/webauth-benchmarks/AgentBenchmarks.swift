// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

/// A token through `webauth agent` beside the same token from the file store, and oidc-agent's
/// `oidc-token` for the same job, all signed in to one embedded provider in one run.
enum AgentBenchmarks {
    /// The public client `webauth` signs in as (device grant).
    static let webauthClient = "webauth-agent-benchmark"
    /// The confidential client oidc-agent is set up with (oidc-agent authenticates with HTTP
    /// Basic, which the embedded provider accepts from confidential clients only).
    static let oidcAgentClient = "oidc-agent-benchmark"
    static let oidcAgentSecret = "oidc-agent-benchmark-secret"

    /// The ways to a valid token this file measures, all set up at once against one embedded
    /// provider: `webauth token` from a file store, through `webauth agent` (from a home with no
    /// store), the same with the fast path off, and oidc-agent's `oidc-token` (`nil` when
    /// oidc-agent is not installed).
    struct TokenSetup {
        var file: CLIBenchmarks.TimedCommand
        var agent: CLIBenchmarks.TimedCommand
        var agentFastPathOff: CLIBenchmarks.TimedCommand
        var oidcToken: CLIBenchmarks.TimedCommand?
        /// The agents' process IDs, for their CPU time (`webauth agent`, oidc-agent).
        var agentProcess: pid_t
        var oidcAgentProcess: pid_t?
    }

    /// The figures, each labelled; a `nil` figure is printed as "not installed".
    static func tokenCommands(webauth: String) async throws -> [(label: String, figures: CLIBenchmarks.ProcessFigures?)]
    {
        try await withTokenSetup(webauth: webauth) { setup in
            [
                ("webauth token, file store (no agent)", try CLIBenchmarks.measure(setup.file)),
                ("oidc-token (oidc-agent)", try setup.oidcToken.map { try CLIBenchmarks.measure($0) }),
                ("webauth token, through the agent (no store)", try CLIBenchmarks.measure(setup.agent)),
                (
                    "webauth token, fast path off, through the agent",
                    try CLIBenchmarks.measure(setup.agentFastPathOff, runs: 30)
                ),
            ]
        }
    }

    /// Signs in to an embedded provider with `webauth` (file store) and with oidc-agent, starts
    /// both agents holding their sign-in, runs `body` with the commands that ask for a token,
    /// then stops the agents and the provider.
    static func withTokenSetup<Result>(
        webauth: String, isolation: isolated (any Actor)? = #isolation, _ body: (TokenSetup) async throws -> Result
    ) async throws -> Result {
        let home = try CLIBenchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let configuration = EmbeddedProvider.Configuration(
            users: [.demo],
            clients: [
                EmbeddedProvider.Client(
                    id: webauthClient, redirectURIs: [URL(string: "http://127.0.0.1/callback")!]),
                EmbeddedProvider.Client(
                    id: oidcAgentClient, secret: oidcAgentSecret,
                    redirectURIs: [URL(string: "http://localhost:4242/")!]),
            ], accessTokenLifetime: .seconds(3600), devicePollingInterval: .seconds(1))
        return try await EmbeddedProvider.withProvider(configuration) { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            return try await withSignIns(webauth: webauth, provider: provider, home: home, body)
        }
    }

    private static func withSignIns<Result>(
        webauth: String, provider: EmbeddedProvider, home: String, isolation: isolated (any Actor)? = #isolation,
        _ body: (TokenSetup) async throws -> Result
    ) async throws -> Result {
        let path = "/usr/bin:/bin"
        // The machine that signed in: a file store, and the agent socket beside it.
        let signedIn = home + "/signed-in"
        let agentSocket = signedIn + "/agent.sock"
        let signedInEnvironment = [
            "HOME": signedIn, "XDG_STATE_HOME": signedIn + "/state", "XDG_CONFIG_HOME": signedIn + "/config",
            "XDG_RUNTIME_DIR": signedIn + "/run", "PATH": path, "NO_COLOR": "1",
        ]
        try FileManager.default.createDirectory(
            atPath: signedIn + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let login = try Subprocess.runToCompletion(
            webauth,
            [
                "login", "--device", "--issuer", provider.issuer.absoluteString, "--client-id", webauthClient,
                "--scope", "openid", "--scope", "offline_access",
            ], environment: signedInEnvironment)
        guard Subprocess.exitCode(of: login.status) == 0 else {
            throw BenchmarkFailure("webauth login --device failed: \(login.standardError)")
        }
        @Sendable func isToken(_ output: String) -> Bool { output.count > 8 && output.hasSuffix("\n") }
        let file = CLIBenchmarks.TimedCommand(
            label: "webauth token, file store", executable: webauth, arguments: ["token"],
            environment: signedInEnvironment, input: nil, expectedOutput: isToken)

        // oidc-agent holding an account for the same provider, when it is installed.
        return try await withOIDCAgent(webauth: webauth, provider: provider, home: home) { oidcToken, oidcAgent in
            // The agent, holding the stored profile; asked from a home with no store at all.
            let agent = try Subprocess(
                executable: webauth, arguments: ["agent", "run"],
                environment: signedInEnvironment.merging(["WEBAUTH_AGENT_SOCK": agentSocket]) { $1 },
                standardError: .file(home + "/agent.log"), newProcessGroup: true)
            return try await stopping(agent) {
                try await waitForSocket(agentSocket, of: agent, log: home + "/agent.log", name: "webauth agent run")
                let added = try Subprocess.runToCompletion(
                    webauth, ["agent", "add", "default"],
                    environment: signedInEnvironment.merging(["WEBAUTH_AGENT_SOCK": agentSocket]) { $1 })
                guard Subprocess.exitCode(of: added.status) == 0 else {
                    throw BenchmarkFailure("webauth agent add failed: \(added.standardError)")
                }
                let remote = home + "/no-store"
                try FileManager.default.createDirectory(atPath: remote, withIntermediateDirectories: true)
                let remoteEnvironment = [
                    "HOME": remote, "XDG_STATE_HOME": remote + "/state", "XDG_CONFIG_HOME": remote + "/config",
                    "XDG_RUNTIME_DIR": remote + "/run", "PATH": path, "NO_COLOR": "1",
                    "WEBAUTH_AGENT_SOCK": agentSocket,
                ]
                let setup = TokenSetup(
                    file: file,
                    agent: CLIBenchmarks.TimedCommand(
                        label: "webauth token, through the agent", executable: webauth, arguments: ["token"],
                        environment: remoteEnvironment, input: nil, expectedOutput: isToken),
                    agentFastPathOff: CLIBenchmarks.TimedCommand(
                        label: "webauth token, fast path off, through the agent", executable: webauth,
                        arguments: ["token"],
                        environment: remoteEnvironment.merging(["WEBAUTH_FAST_PATH": "0"]) { $1 }, input: nil,
                        expectedOutput: isToken),
                    oidcToken: oidcToken, agentProcess: agent.pid, oidcAgentProcess: oidcAgent)
                return try await body(setup)
            }
        }
    }

    /// Waits until `socket` accepts connections, or fails when `process` exits or 30 seconds pass.
    private static func waitForSocket(_ socket: String, of process: Subprocess, log: String?, name: String)
        async throws
    {
        let deadline = ContinuousClock.now + .seconds(30)
        while !unixSocketAccepts(socket) {
            guard ContinuousClock.now < deadline, !process.hasExited else {
                let text = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
                throw BenchmarkFailure("\(name) did not start: \(text)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `body` with `oidc-token NAME` for an account oidc-agent holds for the same provider
    /// and oidc-agent's process ID, then stops oidc-agent; with `nil`s when it is not installed.
    private static func withOIDCAgent<Result>(
        webauth: String, provider: EmbeddedProvider, home: String, isolation: isolated (any Actor)? = #isolation,
        _ body: (CLIBenchmarks.TimedCommand?, pid_t?) async throws -> Result
    ) async throws -> Result {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let oidcAgent = CLIBenchmarks.executable(named: "oidc-agent", in: searchPath),
            let oidcGen = CLIBenchmarks.executable(named: "oidc-gen", in: searchPath),
            let oidcTokenProgram = CLIBenchmarks.executable(named: "oidc-token", in: searchPath)
        else { return try await body(nil, nil) }

        // A refresh token for oidc-agent's client: signed in once with webauth (device grant),
        // then handed to oidc-gen's refresh flow, so no browser or prompt is involved.
        let seed = home + "/oidc-seed"
        let seedEnvironment = [
            "HOME": seed, "XDG_STATE_HOME": seed + "/state", "XDG_CONFIG_HOME": seed + "/config",
            "XDG_RUNTIME_DIR": seed + "/run", "PATH": "/usr/bin:/bin", "NO_COLOR": "1",
        ]
        try FileManager.default.createDirectory(
            atPath: seed + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let login = try Subprocess.runToCompletion(
            "/usr/bin/env",
            [
                "WEBAUTH_CLIENT_SECRET=\(oidcAgentSecret)", webauth, "login", "--device", "--issuer",
                provider.issuer.absoluteString, "--client-id", oidcAgentClient, "--scope", "openid", "--scope",
                "offline_access",
            ], environment: seedEnvironment)
        guard Subprocess.exitCode(of: login.status) == 0 else {
            throw BenchmarkFailure("the sign-in for oidc-agent failed: \(login.standardError)")
        }
        let stores = TokenStores(selection: .file, environment: seedEnvironment)
        guard let refreshToken = try await stores.fileStore().load(profile: "default")?.tokens.refreshToken else {
            throw BenchmarkFailure("the sign-in for oidc-agent left no refresh token")
        }

        let oidcHome = home + "/oidc-agent"
        try FileManager.default.createDirectory(atPath: oidcHome, withIntermediateDirectories: true)
        let socket = oidcHome + "/oidc-agent.sock"
        let environment = ["HOME": oidcHome, "PATH": "/usr/bin:/bin", "OIDC_SOCK": socket]
        let agent = try Subprocess(
            executable: oidcAgent, arguments: ["-d", "--no-autoload", "--socket-path=\(socket)"],
            environment: environment, standardError: .file(home + "/oidc-agent.log"), newProcessGroup: true)
        return try await stopping(agent) {
            try await waitForSocket(socket, of: agent, log: home + "/oidc-agent.log", name: "oidc-agent")
            let generated = try Subprocess.runToCompletion(
                oidcGen,
                [
                    "benchmark", "--iss=\(provider.issuer.absoluteString)", "--client-id=\(oidcAgentClient)",
                    "--client-secret=\(oidcAgentSecret)", "--rt-env", "--pw-env", "--scope=openid offline_access",
                    "--redirect-uri=http://localhost:4242/", "--confirm-default", "--prompt=none", "--no-url-call",
                ],
                environment: environment.merging([
                    "OIDC_REFRESH_TOKEN": refreshToken, "OIDC_ENCRYPTION_PW": "benchmark-encryption-password",
                ]) { $1 })
            guard Subprocess.exitCode(of: generated.status) == 0 else {
                throw BenchmarkFailure("oidc-gen failed: \(generated.standardError)")
            }
            let command = CLIBenchmarks.TimedCommand(
                label: "oidc-token", executable: oidcTokenProgram, arguments: ["benchmark"], environment: environment,
                input: nil, expectedOutput: { $0.count > 8 })
            return try await body(command, agent.pid)
        }
    }

    /// Runs `body`, then ends `process` (and its group) however `body` ended.
    private static func stopping<Result>(
        _ process: Subprocess, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            let result = try await body()
            await process.terminate()
            return result
        } catch {
            await process.terminate()
            throw error
        }
    }

    /// Prints the figures and the ratios the targets are set for.
    static func printFigures(webauth: String) async throws {
        let commands = try await tokenCommands(webauth: webauth)
        let medians = CLIBenchmarks.printTable(
            "a valid token through webauth agent, beside the file store and oidc-agent (milliseconds, whole process)",
            commands)
        if let agent = medians["webauth token, through the agent (no store)"],
            let file = medians["webauth token, file store (no agent)"]
        {
            let oidc = medians["oidc-token (oidc-agent)"].map { String(format: "%.2f×", agent / $0) } ?? "not installed"
            print(
                String(format: "through the agent: %.2f× the file store's figure (target ≤ 1.2×); ", agent / file)
                    + "oidc-token: \(oidc) (target < 1×)")
        }
        print("")
    }
}
