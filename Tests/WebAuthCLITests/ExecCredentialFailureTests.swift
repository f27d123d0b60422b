// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthFastPath
import WebAuthOAuth
import WebAuthPlatform
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth exec-credential` given what it cannot use: each failure is one clear line on standard
/// error with its documented exit status, nothing on standard output, no token shown, and
/// nothing stored lost.
@Suite("webauth exec-credential's failures")
struct ExecCredentialFailureTests {
    /// A sandbox that runs the plugin with `execInfo` as `KUBERNETES_EXEC_INFO`.
    private func sandbox(execInfo: String?) throws -> ProfileSandbox {
        var sandbox = try ProfileSandbox()
        sandbox.extraEnvironment["KUBERNETES_EXEC_INFO"] = execInfo ?? ""
        return sandbox
    }

    /// Stores `tokens` as `profile`, with a configuration whose issuer is `issuer`.
    private func store(_ tokens: TokenSet, profile: String, issuer: String, in sandbox: ProfileSandbox) async throws
        -> StoredTokens
    {
        let configuration = ClientConfiguration(
            issuer: URL(string: issuer)!, clientID: "kube-client", scopes: ["openid"])
        let stores = TokenStores(selection: .file, environment: sandbox.environment)
        try await stores.save(
            StoredTokens(tokens: tokens, configuration: configuration), profile: profile, in: try stores.fileStore())
        return try #require(try sandbox.storedEntry(profile))
    }

    private static func claims(expiresIn seconds: TimeInterval) -> IDTokenClaims {
        IDTokenClaims(
            issuer: "http://127.0.0.1:9", subject: "user-1", audience: ["kube-client"],
            expiresAt: Date(timeIntervalSinceNow: seconds), issuedAt: Date(timeIntervalSinceNow: -60))
    }

    @Test(arguments: [
        (#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1alpha1","spec":{}}"#, "apiVersion"),
        (#"{"kind":"ExecCredential","apiVersion":"#, "not an ExecCredential in JSON"),
        (#"{"kind":"Pod","apiVersion":"client.authentication.k8s.io/v1","spec":{}}"#, "not of kind ExecCredential"),
    ])
    func unusableExecInfoIsRefusedBeforeTheStoreIsRead(execInfo: String, expected: String) async throws {
        let sandbox = try sandbox(execInfo: execInfo)
        defer { sandbox.remove() }
        let run = try await sandbox.run(["exec-credential", "--profile", "kube"])
        #expect(run.status == ExitStatus.invalidInput)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("error: "), "\(run.stderr)")
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(!run.stderr.contains(execInfo), "the input is not echoed")
    }

    @Test func aProfileThatIsNotSignedInSaysHowToSignIn() async throws {
        for interactive in [false, true] {
            let sandbox = try sandbox(
                execInfo: ExecCredentialProcessTests.execInfo(ExecCredentialProcessTests.v1, interactive: interactive))
            defer { sandbox.remove() }
            let run = try await sandbox.run(["exec-credential", "--profile", "kube"])
            #expect(run.status == ExitStatus.notSignedIn)
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains(#"no profile "kube" is signed in"#), "\(run.stderr)")
            #expect(run.stderr.contains("webauth login --profile kube"))
        }
    }

    @Test func anExpiredTokenWithoutARefreshTokenNeedsASignIn() async throws {
        let sandbox = try sandbox(execInfo: ExecCredentialProcessTests.execInfo(ExecCredentialProcessTests.v1beta1))
        defer { sandbox.remove() }
        // The access token is still valid but the ID token has expired: asking for the ID token
        // needs a refresh, and there is no refresh token.
        let idExpired = try await store(
            TokenSet(
                accessToken: "access-token-1", idToken: "id-token-1", idTokenClaims: Self.claims(expiresIn: -10),
                expiresAt: Date(timeIntervalSinceNow: 3600)),
            profile: "kube", issuer: "http://127.0.0.1:9", in: sandbox)
        let id = try await sandbox.run(["exec-credential", "--profile", "kube"])
        #expect(id.status == ExitStatus.notSignedIn, "\(id.stderr)")
        #expect(id.stdout.isEmpty)
        #expect(id.stderr.contains("webauth login --profile kube"), "\(id.stderr)")
        #expect(!containsSecret(id.stderr, of: idExpired))
        #expect(try sandbox.storedEntry("kube") == idExpired, "nothing stored is lost")

        // The access token itself expired, no refresh token.
        let accessExpired = try await store(
            TokenSet(accessToken: "access-token-2", expiresAt: Date(timeIntervalSinceNow: -10)),
            profile: "kube", issuer: "http://127.0.0.1:9", in: sandbox)
        let access = try await sandbox.run(["exec-credential", "--profile", "kube", "--token-type", "access"])
        #expect(access.status == ExitStatus.notSignedIn, "\(access.stderr)")
        #expect(access.stdout.isEmpty)
        #expect(access.stderr.contains("has expired and there is no refresh token"), "\(access.stderr)")
        #expect(!containsSecret(access.stderr, of: accessExpired))
        #expect(try sandbox.storedEntry("kube") == accessExpired)

        // But a valid access token is handed out in the asked version, with its expiry.
        let valid = try await store(
            TokenSet(accessToken: "access-token-3", expiresAt: Date(timeIntervalSinceNow: 3600)),
            profile: "kube", issuer: "http://127.0.0.1:9", in: sandbox)
        let handedOut = try await sandbox.run(["exec-credential", "--profile", "kube", "--token-type", "access"])
        #expect(handedOut.status == 0, "\(handedOut.stderr)")
        let credential = try jsonObject(handedOut.stdout)
        #expect(credential["apiVersion"] as? String == ExecCredentialProcessTests.v1beta1)
        #expect(credential["kind"] as? String == "ExecCredential")
        let status = try #require(credential["status"] as? [String: Any])
        #expect(status["token"] as? String == valid.tokens.accessToken)
        #expect((status["expirationTimestamp"] as? String)?.hasSuffix("Z") == true)

        // A profile without an ID token cannot hand one out.
        let noID = try await sandbox.run(["exec-credential", "--profile", "kube"])
        #expect(noID.status == ExitStatus.notSignedIn)
        #expect(noID.stderr.contains("holds no ID token"), "\(noID.stderr)")
        #expect(noID.stderr.contains("--token-type access"))
    }

    @Test("--cluster-server binds the token to its clusters, fast or full", arguments: [true, false])
    func clusterServersBindTheToken(fastPath: Bool) async throws {
        var sandbox = try sandbox(execInfo: nil)
        defer { sandbox.remove() }
        if !fastPath { sandbox.extraEnvironment[FastPath.switchVariable] = "0" }
        let entry = try await store(
            TokenSet(accessToken: "access-token-1", expiresAt: Date(timeIntervalSinceNow: 3600)),
            profile: "kube", issuer: "http://127.0.0.1:9", in: sandbox)
        let plugin = [
            "exec-credential", "--profile", "kube", "--token-type", "access",
            "--cluster-server", "https://k8s.example.com:6443", "--cluster-server", "https://other.example/proxy/c1",
        ]
        func run(server: String?) async throws -> (status: Int32, stdout: String, stderr: String) {
            let cluster = server.map { #","cluster":{"server":"\#($0)","insecure-skip-tls-verify":true}"# } ?? ""
            sandbox.extraEnvironment["KUBERNETES_EXEC_INFO"] =
                #"{"kind":"ExecCredential","apiVersion":"\#(ExecCredentialProcessTests.v1)","spec":{"interactive":false\#(cluster)}}"#
            return try await sandbox.run(plugin)
        }

        // The servers the kubeconfig names, written as the client may write them.
        for server in [
            "https://k8s.example.com:6443", "https://K8S.Example.com:6443/", "https://other.example/proxy/c1/",
        ] {
            let allowed = try await run(server: server)
            #expect(allowed.status == 0, "\(server): \(allowed.stderr)")
            let status = try #require(try jsonObject(allowed.stdout)["status"] as? [String: Any])
            #expect(status["token"] as? String == entry.tokens.accessToken)
        }

        // Another cluster: nothing printed, status 7, the server named.
        for server in [
            "https://k8s.example.com:7443", "https://k8s.example.com", "http://k8s.example.com:6443",
            "https://other.example/proxy/c2", "https://evil.example:6443", "not a URL",
        ] {
            let refused = try await run(server: server)
            #expect(refused.status == ExitStatus.invalidInput, "\(server): \(refused.stderr)")
            #expect(refused.stdout.isEmpty, "\(server)")
            #expect(
                refused.stderr.hasPrefix(
                    "error: the Kubernetes client asks for a token for \(server), and profile \"kube\" answers only for "
                        + "https://k8s.example.com:6443, https://other.example/proxy/c1\n"), "\(refused.stderr)")
            #expect(refused.stderr.contains("add --cluster-server \(server) to the exec args"))
            #expect(!containsSecret(refused.stderr, of: entry))
        }
        // A server that tries to steer the terminal is shown cleaned.
        let hostile = try await run(server: "https://evil.example/\\u001b]0;owned\\u0007")
        #expect(hostile.status == ExitStatus.invalidInput)
        #expect(!hostile.stderr.contains("\u{1B}") && hostile.stderr.contains("https://evil.example/?]0;owned?"))

        // No cluster info (no provideClusterInfo: true): the binding cannot be checked.
        let unknown = try await run(server: nil)
        #expect(unknown.status == ExitStatus.invalidInput, "\(unknown.stderr)")
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("did not say which cluster it asks for"))
        #expect(unknown.stderr.contains("set provideClusterInfo: true"))

        // Without --cluster-server every cluster is answered, as before.
        sandbox.extraEnvironment["KUBERNETES_EXEC_INFO"] =
            #"{"kind":"ExecCredential","apiVersion":"\#(ExecCredentialProcessTests.v1)","spec":{"interactive":false,"cluster":{"server":"https://anywhere.example"}}}"#
        let open = try await sandbox.run(["exec-credential", "--profile", "kube", "--token-type", "access"])
        #expect(open.status == 0, "\(open.stderr)")

        // A --cluster-server that is no URL is a usage error.
        let bad = try await sandbox.run(["exec-credential", "--profile", "kube", "--cluster-server", "k8s.example.com"])
        #expect(bad.status == ExitStatus.usage)
        #expect(bad.stderr.contains("--cluster-server takes an API server's https URL"), "\(bad.stderr)")
        #expect(try sandbox.storedEntry("kube") == entry)
    }

    @Test func aProviderThatCannotBeReachedIsANetworkFailure() async throws {
        let sandbox = try sandbox(execInfo: ExecCredentialProcessTests.execInfo(ExecCredentialProcessTests.v1))
        defer { sandbox.remove() }
        // Port 9 (discard) on loopback: nothing listens there.
        let entry = try await store(
            TokenSet(
                accessToken: "access-token-1", refreshToken: "refresh-token-1", idToken: "id-token-1",
                idTokenClaims: Self.claims(expiresIn: 30), expiresAt: Date(timeIntervalSinceNow: 30)),
            profile: "kube", issuer: "http://127.0.0.1:9", in: sandbox)
        for tokenType in ["id", "access"] {
            let run = try await sandbox.run(["exec-credential", "--profile", "kube", "--token-type", tokenType])
            #expect(run.status == ExitStatus.networkFailed, "\(tokenType): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains("cannot reach the provider"), "\(run.stderr)")
            #expect(!containsSecret(run.stderr, of: entry))
            #expect(try sandbox.storedEntry("kube") == entry, "nothing stored is lost")
        }
    }

    @Test func theIDTokenIsRefreshedOnceAndARefreshWithoutOneFails() async throws {
        let sandbox = try sandbox(execInfo: ExecCredentialProcessTests.execInfo(ExecCredentialProcessTests.v1))
        defer { sandbox.remove() }
        // The provider's clock runs ahead by `skew`: each refresh below mints an ID token that
        // expires later than the one before, as it would a moment later (RS256 signatures are
        // deterministic, so tokens minted in the same second would be the same token).
        let skew = Locked<TimeInterval>(0)
        let clock = EmbeddedProvider.Clock(now: { Date(timeIntervalSinceNow: skew.withLock { $0 }) })
        try await EmbeddedProvider.withCLIProvider(clock: clock) { provider in
            // The provider's ID tokens live 600 s, its access tokens an hour.
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file"]))
            try #require(login.status == 0, "login failed: \(login.stderr)")
            let first = try #require(try sandbox.storedEntry())

            // Only the ID token is inside --min-validity: one refresh, for a new ID token.
            skew.withLock { $0 += 5 }
            let idOnly = try await sandbox.run(["exec-credential", "--min-validity", "700"])
            #expect(idOnly.status == 0, "\(idOnly.stderr)")
            let second = try #require(try sandbox.storedEntry())
            #expect(second.tokens.idToken != first.tokens.idToken)
            let status = try #require(try jsonObject(idOnly.stdout)["status"] as? [String: Any])
            #expect(status["token"] as? String == second.tokens.idToken)
            #expect(provider.refreshRequests.count == 1)

            // Both inside it: the refresh of the access token brings the ID token too — one
            // refresh, not two.
            skew.withLock { $0 += 5 }
            let both = try await sandbox.run(["exec-credential", "--min-validity", "4000"])
            #expect(both.status == 0, "\(both.stderr)")
            let third = try #require(try sandbox.storedEntry())
            let bothStatus = try #require(try jsonObject(both.stdout)["status"] as? [String: Any])
            #expect(bothStatus["token"] as? String == third.tokens.idToken)
            #expect(third.tokens.idToken != second.tokens.idToken)
            #expect(provider.refreshRequests.count == 2)

            // A provider that refreshes without an ID token: a clear failure, and the rotated
            // refresh token it issued is kept.
            provider.withholdIDTokensOnRefresh(true)
            skew.withLock { $0 += 5 }
            let without = try await sandbox.run(["exec-credential", "--min-validity", "700"])
            #expect(without.status == ExitStatus.providerError, "\(without.stderr)")
            #expect(without.stdout.isEmpty)
            #expect(without.stderr.contains("the refresh brought no new one"), "\(without.stderr)")
            let fourth = try #require(try sandbox.storedEntry())
            #expect(!containsSecret(without.stderr, of: fourth))
            #expect(provider.isActive(refreshToken: try #require(fourth.tokens.refreshToken)))
            #expect(provider.refreshRequests.count == 3)
        }
    }
}
