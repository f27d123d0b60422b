import Foundation
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

    /// The figures, each labelled; a `nil` figure is printed as "not installed".
    static func tokenCommands(webauth: String) async throws -> [(label: String, figures: CLIBenchmarks.ProcessFigures?)]
    {
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
            return try await measure(webauth: webauth, provider: provider, home: home)
        }
    }

    private static func measure(
        webauth: String, provider: EmbeddedProvider, home: String
    ) async throws -> [(label: String, figures: CLIBenchmarks.ProcessFigures?)] {
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

        var results: [(label: String, figures: CLIBenchmarks.ProcessFigures?)] = []
        func isToken(_ output: String) -> Bool { output.count > 8 && output.hasSuffix("\n") }

        // The file store, no agent running.
        results.append(
            (
                "webauth token, file store (no agent)",
                try CLIBenchmarks.measure(
                    .init(
                        label: "webauth token, file store", executable: webauth, arguments: ["token"],
                        environment: signedInEnvironment, input: nil, expectedOutput: isToken))
            ))

        // oidc-agent's figure, from the same provider (before the agent starts, so the two
        // agents never run at once).
        results.append(
            ("oidc-token (oidc-agent)", try await oidcToken(webauth: webauth, provider: provider, home: home)))

        // The agent, holding the stored profile; asked from a home with no store at all.
        let agent = try Subprocess(
            executable: webauth, arguments: ["agent", "run"],
            environment: signedInEnvironment.merging(["WEBAUTH_AGENT_SOCK": agentSocket]) { $1 },
            standardError: .file(home + "/agent.log"), newProcessGroup: true)
        return try await stopping(agent) {
            try await measureAgent(
                webauth: webauth, provider: provider, home: home, agent: agent, agentSocket: agentSocket,
                signedInEnvironment: signedInEnvironment, results: results)
        }
    }

    private static func measureAgent(
        webauth: String, provider: EmbeddedProvider, home: String, agent: Subprocess, agentSocket: String,
        signedInEnvironment: [String: String], results: [(label: String, figures: CLIBenchmarks.ProcessFigures?)]
    ) async throws -> [(label: String, figures: CLIBenchmarks.ProcessFigures?)] {
        var results = results
        func isToken(_ output: String) -> Bool { output.count > 8 && output.hasSuffix("\n") }
        let path = "/usr/bin:/bin"
        let deadline = ContinuousClock.now + .seconds(30)
        while !unixSocketAccepts(agentSocket) {
            guard ContinuousClock.now < deadline, !agent.hasExited else {
                let log = (try? String(contentsOfFile: home + "/agent.log", encoding: .utf8)) ?? ""
                throw BenchmarkFailure("webauth agent run did not start: \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
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
            "XDG_RUNTIME_DIR": remote + "/run", "PATH": path, "NO_COLOR": "1", "WEBAUTH_AGENT_SOCK": agentSocket,
        ]
        results.append(
            (
                "webauth token, through the agent (no store)",
                try CLIBenchmarks.measure(
                    .init(
                        label: "webauth token, through the agent", executable: webauth, arguments: ["token"],
                        environment: remoteEnvironment, input: nil, expectedOutput: isToken))
            ))
        results.append(
            (
                "webauth token, fast path off, through the agent",
                try CLIBenchmarks.measure(
                    .init(
                        label: "webauth token, fast path off, through the agent", executable: webauth,
                        arguments: ["token"], environment: remoteEnvironment.merging(["WEBAUTH_FAST_PATH": "0"]) { $1 },
                        input: nil, expectedOutput: isToken), runs: 30)
            ))

        return results
    }

    /// `oidc-token NAME` against oidc-agent holding an account for the same provider; `nil`
    /// when oidc-agent is not installed.
    private static func oidcToken(
        webauth: String, provider: EmbeddedProvider, home: String
    ) async throws -> CLIBenchmarks.ProcessFigures? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let oidcAgent = CLIBenchmarks.executable(named: "oidc-agent", in: searchPath),
            let oidcGen = CLIBenchmarks.executable(named: "oidc-gen", in: searchPath),
            let oidcTokenProgram = CLIBenchmarks.executable(named: "oidc-token", in: searchPath)
        else { return nil }

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
            try await measureOIDCToken(
                oidcGen: oidcGen, oidcToken: oidcTokenProgram, agent: agent, socket: socket, environment: environment,
                provider: provider, refreshToken: refreshToken)
        }
    }

    private static func measureOIDCToken(
        oidcGen: String, oidcToken oidcTokenProgram: String, agent: Subprocess, socket: String,
        environment: [String: String], provider: EmbeddedProvider, refreshToken: String
    ) async throws -> CLIBenchmarks.ProcessFigures {
        let deadline = ContinuousClock.now + .seconds(30)
        while !unixSocketAccepts(socket) {
            guard ContinuousClock.now < deadline, !agent.hasExited else {
                throw BenchmarkFailure("oidc-agent did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
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
        return try CLIBenchmarks.measure(
            .init(
                label: "oidc-token", executable: oidcTokenProgram, arguments: ["benchmark"], environment: environment,
                input: nil, expectedOutput: { $0.count > 8 }))
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

    /// Prints the figures and the ratios the issue sets targets for.
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
