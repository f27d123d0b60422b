// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth login --dpop --par …` and what follows, as real processes against the embedded
/// provider: the key stored with the tokens in the 0600 entry, the
/// profile remembering both settings, `token --json` and `token --dpop-proof` (whose two header
/// lines the provider accepts), `request` with a fresh proof, and the credential helpers
/// refusing to hand out a DPoP-bound token.
@Suite("webauth with DPoP and PAR, run as processes")
struct DPoPProcessTests {
    @Test func aDPoPLoginIsRememberedAndItsTokenGoesOnlyWithAProof() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var configuration = EmbeddedProvider.Configuration()
        configuration.devicePollingInterval = .seconds(1)
        try await EmbeddedProvider.withProvider(configuration) { provider in
            let process = try sandbox.start([
                "login", "--device", "--dpop", "--par", "always", "--issuer", provider.issuer.absoluteString,
                "--client-id", EmbeddedProvider.Client.demo.id, "--scope", "openid", "--scope", "offline_access",
                "--store", "file",
            ])
            let stderr = try await process.waitForStandardError(containing: "user_code=", timeout: .seconds(60))
            let line = try #require(stderr.split(separator: "\n").first { $0.contains("/device?user_code=") })
            let verificationURI = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
            try await ScriptedUserAgent().approveDevice(verificationURI: verificationURI, userCode: nil)
            #expect(try await process.waitForExit(timeout: .seconds(90)) == 0, "stderr: \(process.standardError)")

            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.tokens.isDPoPBound)
            let key = try #require(entry.tokens.dpopKey)
            #expect(entry.configuration?.dpop == .persistent)
            #expect(entry.configuration?.usePushedAuthorization == .always)
            #expect(sandbox.mode(of: sandbox.entryPath()) == 0o600)
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))

            let json = try await sandbox.run(["token", "--json"])
            #expect(try jsonObject(json.stdout)["token_type"] as? String == "DPoP")

            // The two header lines, as a script would pass them to curl, are accepted once each.
            let userInfo = provider.issuer.appending(path: "userinfo")
            var proofs: [String] = []
            for _ in 0..<2 {
                let printed = try await sandbox.run(["token", "--dpop-proof", "GET", userInfo.absoluteString])
                #expect(printed.status == 0, "stderr: \(printed.stderr)")
                let lines = printed.stdout.split(separator: "\n").map(String.init)
                try #require(lines.count == 2)
                #expect(lines[0] == "Authorization: DPoP \(entry.tokens.accessToken)")
                let proof = String(try #require(lines[1].split(separator: " ", maxSplits: 1).last))
                #expect(lines[1].hasPrefix("DPoP: "))
                proofs.append(proof)
                let answer = try await RawHTTPClient.request(
                    method: "GET", url: userInfo,
                    headerFields: [.authorization: "DPoP \(entry.tokens.accessToken)", HTTPField.Name("DPoP")!: proof])
                #expect(answer.status == 200, "\(answer.status) \(answer.body)")
            }
            #expect(proofs[0] != proofs[1])
            // Each proof is good once.
            let replayed = try await RawHTTPClient.request(
                method: "GET", url: userInfo,
                headerFields: [.authorization: "DPoP \(entry.tokens.accessToken)", HTTPField.Name("DPoP")!: proofs[0]])
            #expect(replayed.status == 401)
            #expect(proofs.allSatisfy { !$0.contains(key.thumbprint) })

            // request sends a fresh proof each time.
            for _ in 0..<2 {
                let requested = try await sandbox.run(["request", userInfo.absoluteString])
                #expect(requested.status == 0, "stderr: \(requested.stderr)")
                #expect(requested.stdout.contains(EmbeddedProvider.User.demo.subject))
            }

            // Neither git nor kubectl can send a proof: they get no token, and are told why.
            let git = try CLIProcess(
                ["git-credential", "--profile-for", "git.example.com", "get"], environment: sandbox.environment,
                keepStandardInputOpen: true)
            git.finishInput(Array("protocol=https\nhost=git.example.com\n\n".utf8))
            #expect(try await git.waitForExit(timeout: .seconds(60)) == 0)
            #expect(!git.standardOutput.contains("password="))
            #expect(git.standardError.contains("DPoP-bound"))
            #expect(!containsSecret(git.standardOutput + git.standardError, of: entry))

            sandbox.extraEnvironment["KUBERNETES_EXEC_INFO"] =
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#
            let kube = try await sandbox.run(["exec-credential", "--token-type", "access"])
            #expect(kube.status != 0)
            #expect(kube.stdout.isEmpty)
            #expect(kube.stderr.contains("DPoP-bound"))
            #expect(!containsSecret(kube.stdout + kube.stderr, of: entry))
        }
    }
}
