// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthProcess
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI
@testable import WebAuthCredentialHelpers

/// `webauth exec-credential` as a client-go exec credential plugin: the official Python
/// `kubernetes` client runs it from a kubeconfig and calls a stand-in API server that checks the
/// bearer — an ID token against the independent provider's (django-oauth-toolkit's) JWKS, or an
/// access token against its UserInfo endpoint. The client gets its credential only this way.
@Suite(
    "webauth exec-credential with the Kubernetes client", .serialized, TestFixture.djangoProvider.required,
    TestFixture.kubernetesClient.required, TestFixture.chromium.required)
struct ExecCredentialProcessTests {
    static let v1 = "client.authentication.k8s.io/v1"
    static let v1beta1 = "client.authentication.k8s.io/v1beta1"

    /// Signs in to `provider` with its public client in a headless Chromium and stores the
    /// tokens in the sandbox's file store as `profile`.
    static func signIn(_ sandbox: ProfileSandbox, at provider: IndependentProvider, profile: String) async throws
        -> StoredTokens
    {
        let configuration = ClientConfiguration(
            issuer: provider.issuer, clientID: provider.publicClientID, scopes: IndependentProvider.scopes)
        let client = try OAuthClient(configuration: configuration, requestTimeout: .seconds(20))
        let tokens = try await provider.signIn(with: client)
        let entry = StoredTokens(tokens: tokens, configuration: configuration)
        let stores = TokenStores(selection: .file, environment: sandbox.environment)
        try await stores.save(entry, profile: profile, in: try stores.fileStore())
        return try #require(try sandbox.storedEntry(profile))
    }

    /// Runs the Kubernetes client with a kubeconfig whose exec plugin is `webauth` with `arguments`.
    private func runClient(
        _ sandbox: ProfileSandbox, server: StandInAPIServer, apiVersion: String, arguments: [String]
    ) async throws -> Subprocess.Completion {
        let path = sandbox.root + "/kubeconfig-\(UUID().uuidString)"
        let kubeconfig = StandInAPIServer.kubeconfig(server: server.url, apiVersion: apiVersion, arguments: arguments)
        try kubeconfig.write(toFile: path, atomically: true, encoding: .utf8)
        return try await StandInAPIServer.runClient(kubeconfig: path, environment: sandbox.environment)
    }

    @Test func theKubernetesClientAuthenticatesWithTheIDTokenAndTheAccessToken() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await IndependentProvider.withProvider { provider in
            let entry = try await Self.signIn(sandbox, at: provider, profile: "kube")
            let subject = try #require(entry.tokens.idTokenClaims?.subject)
            let plugin = ["exec-credential", "--profile", "kube"]

            // The ID token, checked against the provider's keys, in both API versions.
            let idServer = try await StandInAPIServer(
                .idToken(jwks: provider.jwksURI, issuer: provider.issuer, audience: provider.publicClientID))
            defer { Task { await idServer.stop() } }
            for apiVersion in [Self.v1, Self.v1beta1] {
                let run = try await runClient(sandbox, server: idServer, apiVersion: apiVersion, arguments: plugin)
                #expect(Subprocess.exitCode(of: run.status) == 0, "\(apiVersion): \(run.standardError)")
                #expect(run.standardOutput == "v1.31.0-webauth-fixture\n0\n", "\(apiVersion)")
                #expect(!containsSecret(run.standardOutput + run.standardError, of: entry))
            }
            let idLog = try await idServer.log()
            #expect(idLog.count == 4, "two calls per client run: \(idLog)")
            #expect(idLog.allSatisfy { $0["status"] as? Int == 200 && $0["subject"] as? String == subject })
            #expect(try sandbox.storedEntry("kube") == entry, "a fresh token needs no refresh")

            // The access token is not an ID token: the same server refuses it.
            let refused = try await runClient(
                sandbox, server: idServer, apiVersion: Self.v1, arguments: plugin + ["--token-type", "access"])
            #expect(Subprocess.exitCode(of: refused.status) == 1)
            #expect(refused.standardError.contains("401"), "\(refused.standardError)")

            // The access token, checked by the provider's UserInfo endpoint.
            let accessServer = try await StandInAPIServer(.accessToken(userinfo: provider.userinfoEndpoint))
            defer { Task { await accessServer.stop() } }
            let access = try await runClient(
                sandbox, server: accessServer, apiVersion: Self.v1beta1, arguments: plugin + ["--token-type", "access"])
            #expect(Subprocess.exitCode(of: access.status) == 0, "\(access.standardError)")
            #expect(access.standardOutput == "v1.31.0-webauth-fixture\n0\n")
            let accessLog = try await accessServer.log()
            #expect(accessLog.count == 2)
            #expect(accessLog.allSatisfy { $0["status"] as? Int == 200 && $0["subject"] as? String == subject })

            // Wanting more validity than the access token has left refreshes it first, and the
            // rotated refresh token is kept.
            let refreshed = try await runClient(
                sandbox, server: accessServer, apiVersion: Self.v1,
                arguments: plugin + ["--token-type", "access", "--min-validity", "7200"])
            #expect(Subprocess.exitCode(of: refreshed.status) == 0, "\(refreshed.standardError)")
            let afterRefresh = try #require(try sandbox.storedEntry("kube"))
            #expect(afterRefresh.tokens.accessToken != entry.tokens.accessToken)
            #expect(afterRefresh.tokens.refreshToken != entry.tokens.refreshToken)

            // An apiVersion the plugin does not speak: the client reports the plugin's failure,
            // and the plugin says why on standard error.
            let unknown = try await runClient(
                sandbox, server: idServer, apiVersion: "client.authentication.k8s.io/v1alpha1", arguments: plugin)
            #expect(Subprocess.exitCode(of: unknown.status) == 1)
            #expect(unknown.standardError.contains("apiVersion"), "\(unknown.standardError)")
            #expect(try sandbox.storedEntry("kube") == afterRefresh, "nothing stored changes")
        }
    }

    @Test func theIDTokenIsRefreshedWithinMinValidity() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await IndependentProvider.withProvider { provider in
            let entry = try await Self.signIn(sandbox, at: provider, profile: "kube")
            let idTokenExpiry = try #require(entry.tokens.idTokenClaims?.expiresAt)
            // More validity than the ID token has left, whatever the access token's lifetime.
            let minimum = Int(idTokenExpiry.timeIntervalSinceNow) + 600
            var withInfo = sandbox
            withInfo.extraEnvironment["KUBERNETES_EXEC_INFO"] = Self.execInfo(Self.v1)
            let run = try await withInfo.run([
                "exec-credential", "--profile", "kube", "--min-validity", String(minimum),
            ])
            let stored = try #require(try sandbox.storedEntry("kube"))
            #expect(stored.tokens.refreshToken != entry.tokens.refreshToken, "refreshed")
            // django-oauth-toolkit issues a new ID token with each refresh.
            #expect(run.status == 0, "\(run.stderr)")
            let credential = try jsonObject(run.stdout)
            let status = try #require(credential["status"] as? [String: Any])
            #expect(credential["apiVersion"] as? String == Self.v1)
            #expect(status["token"] as? String == stored.tokens.idToken)
            #expect(stored.tokens.idToken != entry.tokens.idToken, "a new ID token")
            let newExpiry = try #require(stored.tokens.idTokenClaims?.expiresAt)
            #expect(newExpiry >= idTokenExpiry)
            #expect(
                status["expirationTimestamp"] as? String
                    == Date(timeIntervalSince1970: newExpiry.timeIntervalSince1970.rounded(.down)).formatted(.iso8601))
            #expect(!containsSecret(run.stderr, of: stored))
        }
    }

    /// `KUBERNETES_EXEC_INFO` as client-go sets it.
    static func execInfo(_ apiVersion: String, interactive: Bool = false) -> String {
        #"{"kind":"ExecCredential","apiVersion":"\#(apiVersion)","spec":{"interactive":\#(interactive)}}"#
    }
}
