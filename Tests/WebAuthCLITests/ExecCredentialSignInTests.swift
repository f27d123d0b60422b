// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth exec-credential` with no stored sign-in: it signs in (prompts on standard error,
/// the ExecCredential alone on standard output) only when `KUBERNETES_EXEC_INFO` says the run
/// is interactive, with the login options in the kubeconfig's `args`; against
/// ``EmbeddedProvider``, the person played by ``ScriptedUserAgent``.
@Suite("webauth exec-credential signs in when run interactively")
struct ExecCredentialSignInTests {
    static func providerConfiguration() -> EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        configuration.devicePollingInterval = .seconds(1)
        return configuration
    }

    /// The plugin's arguments: the profile and the login options for the demo client.
    static func plugin(_ provider: EmbeddedProvider) -> [String] {
        [
            "exec-credential", "--profile", "kube", "--issuer", provider.issuer.absoluteString, "--client-id",
            EmbeddedProvider.Client.demo.id, "--scope", "openid", "--scope", "offline_access", "--timeout", "60",
        ]
    }

    /// Approves the device sign-in whose page `stderr` shows.
    static func approveDevice(shownIn stderr: String) async throws {
        let line = try #require(stderr.split(whereSeparator: \.isNewline).first { $0.contains("/device?user_code=") })
        let verificationURI = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
        try await ScriptedUserAgent().approveDevice(verificationURI: verificationURI, userCode: nil)
    }

    @Test func anInteractiveRunSignsInWithTheOptionsInArgs() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        sandbox.extraEnvironment["KUBERNETES_EXEC_INFO"] = ExecCredentialProcessTests.execInfo(
            ExecCredentialProcessTests.v1, interactive: true)
        try await EmbeddedProvider.withProvider(Self.providerConfiguration()) { provider in
            // No display and no browser: the device flow, its code on standard error.
            let process = try sandbox.start(Self.plugin(provider))
            let shown = try await process.waitForStandardError(containing: "user_code=")
            try await Self.approveDevice(shownIn: shown)
            let status = try await process.waitForExit(timeout: .seconds(90))
            #expect(status == 0, "stderr: \(process.standardError)")

            let entry = try #require(try sandbox.storedEntry("kube"), "the profile is stored")
            #expect(entry.configuration?.issuer == provider.issuer)
            let credential = try jsonObject(process.standardOutput)
            #expect(credential["apiVersion"] as? String == ExecCredentialProcessTests.v1)
            let credentialStatus = try #require(credential["status"] as? [String: Any])
            #expect(
                credentialStatus["token"] as? String == entry.tokens.idToken, "the ID token, fresh from the sign-in")
            #expect(credentialStatus["expirationTimestamp"] is String)
            let stderr = process.standardError
            #expect(stderr.contains(#"no profile "kube" is signed in; signing in for the Kubernetes client"#))
            #expect(stderr.contains("Signed in as \(EmbeddedProvider.User.demo.subject)"), "\(stderr)")
            #expect(!containsSecret(stderr, of: entry), "no token on standard error")

            // Signed in now: the next run needs nobody.
            var quiet = sandbox
            quiet.extraEnvironment["KUBERNETES_EXEC_INFO"] = ExecCredentialProcessTests.execInfo(
                ExecCredentialProcessTests.v1)
            let again = try await quiet.run(Self.plugin(provider))
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.isEmpty)
        }
    }

    @Test func aRunThatIsNotInteractiveFailsClearlyAndOpensNothing() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        sandbox.extraEnvironment["BROWSER"] = try sandbox.recordingBrowser()
        try await EmbeddedProvider.withProvider(Self.providerConfiguration()) { provider in
            for execInfo in [
                ExecCredentialProcessTests.execInfo(ExecCredentialProcessTests.v1, interactive: false),
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{}}"#,
                "",
            ] {
                var run = sandbox
                run.extraEnvironment["KUBERNETES_EXEC_INFO"] = execInfo
                let result = try await run.run(Self.plugin(provider))
                #expect(result.status == ExitStatus.notSignedIn, "\(execInfo): \(result.stderr)")
                #expect(result.stdout.isEmpty)
                #expect(result.stderr.contains(#"no profile "kube" is signed in"#), "\(result.stderr)")
                #expect(result.stderr.contains("webauth login --profile kube"))
                #expect(result.stderr.contains("signs in by itself only when run interactively"), "\(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/browser-url"), "no browser opened")
            #expect(provider.requests.isEmpty, "the provider was never asked")
            #expect(try sandbox.storedEntry("kube") == nil)

            // Options that cannot be used are refused before anything else.
            let secret = try await sandbox.run(Self.plugin(provider) + ["--client-secret", "s3cret-in-args"])
            #expect(secret.status == ExitStatus.usage)
            #expect(secret.stderr.contains("--client-secret cannot be used here"))
            #expect(!secret.stderr.contains("s3cret-in-args"))
            let unknown = try await sandbox.run(Self.plugin(provider) + ["--frobnicate"])
            #expect(unknown.status == ExitStatus.usage)
            #expect(unknown.stderr.contains("Unknown option '--frobnicate'"))
        }
    }

    @Test(TestFixture.kubernetesClient.required)
    func theKubernetesClientAtATerminalGetsItsCredentialThroughASignIn() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.providerConfiguration()) { provider in
            let server = try await StandInAPIServer(
                .idToken(jwks: provider.url(.jwks), issuer: provider.issuer, audience: EmbeddedProvider.Client.demo.id))
            defer { Task { await server.stop() } }
            let kubeconfig = sandbox.root + "/kubeconfig"
            try StandInAPIServer.kubeconfig(
                server: server.url, apiVersion: ExecCredentialProcessTests.v1, arguments: Self.plugin(provider),
                interactiveMode: "IfAvailable"
            ).write(toFile: kubeconfig, atomically: true, encoding: .utf8)
            let python = try StandInAPIServer.python()
            let client = StandInAPIServer.directory.appendingPathComponent("client.py").path

            // Run by a script (output on a pipe), the client asks for no interaction: the
            // plugin fails and says why, and the client reports it.
            let script = try await StandInAPIServer.runClient(kubeconfig: kubeconfig, environment: sandbox.environment)
            #expect(Subprocess.exitCode(of: script.status) == 1)
            #expect(script.standardError.contains("only when run interactively"), "\(script.standardError)")
            #expect(try sandbox.storedEntry("kube") == nil)
            let unauthenticated = try await server.log()
            #expect(unauthenticated.allSatisfy { $0["status"] as? Int == 401 }, "no credential: \(unauthenticated)")

            // At a terminal (its output on the terminal), the client runs the plugin
            // interactively, its standard error the client's: the plugin signs in there.
            let session = try TerminalSession(
                ["/bin/sh", "-c", #"exec "$0" "$@" >/dev/tty"#, python, client, "--kubeconfig", kubeconfig], input: "",
                in: sandbox)
            defer { session.finish() }
            let shown = try await session.process.waitForStandardError(containing: "user_code=", timeout: .seconds(60))
            try await Self.approveDevice(shownIn: shown)
            let status = try await session.process.waitForExit(timeout: .seconds(90))
            #expect(status == 0, "stderr: \(session.process.standardError)")
            let terminal = try await session.waitForTerminal(containing: "v1.31.0-webauth-fixture")
            let entry = try #require(try sandbox.storedEntry("kube"))
            #expect(!containsSecret(terminal + session.process.standardError, of: entry))
            let log = try await server.log().dropFirst(unauthenticated.count)
            #expect(log.count == 2, "the version and the pods: \(log)")
            #expect(
                log.allSatisfy {
                    $0["status"] as? Int == 200 && $0["subject"] as? String == EmbeddedProvider.User.demo.subject
                }, "\(log)")
        }
    }
}
