// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthProcess
import WebAuthTestSupport

@testable import WebAuthCLI

/// `webauth exec-credential --cluster-server`, run by the official Python `kubernetes` client
/// from a kubeconfig with `provideClusterInfo: true`: the token goes to the cluster it is bound
/// to, and to no other. The stand-in API server checks the access token at the embedded
/// provider's UserInfo endpoint.
@Suite(
    "webauth exec-credential bound to its clusters, with the Kubernetes client", TestFixture.kubernetesClient.required)
struct ExecCredentialClusterTests {
    @Test func theClientGetsTheTokenOnlyForTheClusterItIsBoundTo() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var configuration = EmbeddedProvider.Configuration()
        configuration.devicePollingInterval = .seconds(1)
        try await EmbeddedProvider.withProvider(configuration) { provider in
            let process = try sandbox.start([
                "login", "--device", "--issuer", provider.issuer.absoluteString, "--client-id",
                EmbeddedProvider.Client.demo.id, "--scope", "openid", "--store", "file",
            ])
            let stderr = try await process.waitForStandardError(containing: "user_code=", timeout: .seconds(60))
            let line = try #require(stderr.split(separator: "\n").first { $0.contains("/device?user_code=") })
            let verificationURI = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
            try await ScriptedUserAgent().approveDevice(verificationURI: verificationURI, userCode: nil)
            try #require(try await process.waitForExit(timeout: .seconds(90)) == 0, "\(process.standardError)")
            let entry = try #require(try sandbox.storedEntry())

            let server = try await StandInAPIServer(.accessToken(userinfo: provider.issuer.appending(path: "userinfo")))
            defer { Task { await server.stop() } }
            func runClient(allowing allowed: String, provideClusterInfo: Bool = true) async throws
                -> Subprocess.Completion
            {
                let path = sandbox.root + "/kubeconfig-\(UUID().uuidString)"
                let kubeconfig = StandInAPIServer.kubeconfig(
                    server: server.url, apiVersion: ExecCredentialProcessTests.v1,
                    arguments: ["exec-credential", "--token-type", "access", "--cluster-server", allowed],
                    provideClusterInfo: provideClusterInfo)
                try kubeconfig.write(toFile: path, atomically: true, encoding: .utf8)
                return try await StandInAPIServer.runClient(kubeconfig: path, environment: sandbox.environment)
            }

            // The cluster the plugin is bound to (its server written in capitals, with a slash).
            let bound = try await runClient(allowing: server.url.absoluteString.uppercased() + "/")
            #expect(Subprocess.exitCode(of: bound.status) == 0, "\(bound.standardError)")
            #expect(bound.standardOutput == "v1.31.0-webauth-fixture\n0\n")
            #expect(try await server.log().count == 2, "two calls, each with the token")

            // Bound to another cluster: the plugin refuses with status 7, the server sees nothing.
            let other = try await runClient(allowing: "https://k8s.example.com:6443")
            #expect(Subprocess.exitCode(of: other.status) == 1)
            #expect(other.standardError.contains("exec: process returned 7"), "\(other.standardError)")
            #expect(
                other.standardError.contains(
                    "asks for a token for \(server.url.absoluteString), and profile \"default\" answers only for "
                        + "https://k8s.example.com:6443"), "\(other.standardError)")
            #expect(!containsSecret(other.standardOutput + other.standardError, of: entry))

            // Without provideClusterInfo the binding cannot be checked: refused as well.
            let blind = try await runClient(allowing: server.url.absoluteString, provideClusterInfo: false)
            #expect(Subprocess.exitCode(of: blind.status) == 1)
            #expect(blind.standardError.contains("set provideClusterInfo: true"), "\(blind.standardError)")
            // The client may go on without a credential; no call after the first two carried the token.
            let log = try await server.log()
            #expect(log.dropFirst(2).allSatisfy { $0["status"] as? Int == 401 && !($0["subject"] is String) }, "\(log)")
        }
    }
}
