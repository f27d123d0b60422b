// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// The token commands against ``EmbeddedProvider``: a full provider with a login form, consent,
/// the device flow, and refresh token rotation with reuse detection (presenting a rotated-out
/// refresh token revokes the whole grant).
@Suite("webauth token commands against the embedded provider, run as processes")
struct EmbeddedProviderProcessTests {
    private static func configuration() -> EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        configuration.devicePollingInterval = .seconds(1)
        return configuration
    }

    private static func clientConfiguration(_ provider: EmbeddedProvider) -> ClientConfiguration {
        ClientConfiguration(
            issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
            scopes: ["openid", "profile", "offline_access"])
    }

    @Test func aDeviceLoginApprovedOverHTTPThenTokenStatusAndLogout() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration()) { provider in
            let process = try sandbox.start([
                "login", "--device", "--issuer", provider.issuer.absoluteString, "--client-id",
                EmbeddedProvider.Client.demo.id, "--scope", "openid", "--scope", "profile", "--scope", "offline_access",
                "--store", "file", "--profile", "embedded",
            ])
            let stderr = try await process.waitForStandardError(containing: "user_code=", timeout: .seconds(60))
            let line = try #require(stderr.split(separator: "\n").first { $0.contains("/device?user_code=") })
            let verificationURI = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))

            // The person opens the page elsewhere, signs in and approves.
            try await ScriptedUserAgent().approveDevice(verificationURI: verificationURI, userCode: nil)
            let status = try await process.waitForExit(timeout: .seconds(90))
            #expect(status == 0, "stderr: \(process.standardError)")
            #expect(process.standardError.contains("Signed in as \(EmbeddedProvider.User.demo.subject)"))
            let entry = try #require(try sandbox.storedEntry("embedded"))
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))

            let listed = try await sandbox.run(["status", "--profile", "embedded", "--json"])
            let profile = try #require((try jsonObject(listed.stdout)["profiles"] as? [[String: Any]])?.first)
            #expect(profile["subject"] as? String == EmbeddedProvider.User.demo.subject)
            #expect(profile["scopes"] as? [String] == ["openid", "profile", "offline_access"])
            #expect(profile["can_refresh"] as? Bool == true)
            #expect(!containsSecret(listed.stdout + listed.stderr, of: entry))

            let token = try await sandbox.run(["token", "--profile", "embedded"])
            #expect(token.stdout == entry.tokens.accessToken + "\n")
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))

            let logout = try await sandbox.run(["logout", "--profile", "embedded"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(!provider.isActive(refreshToken: try #require(entry.tokens.refreshToken)))
            #expect(!provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(try sandbox.storedEntry("embedded") == nil)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func concurrentRefreshesNeverTripReuseDetection() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration()) { provider in
            // Sign in within this process, with the scripted person, and store the result as
            // `webauth login` would.
            let configuration = Self.clientConfiguration(provider)
            let client = try OAuthClient(configuration: configuration)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let firstRefreshToken = try #require(tokens.refreshToken)
            let store = try FileTokenStore(directory: sandbox.tokenDirectory)
            try await store.save(StoredTokens(tokens: tokens, configuration: configuration), profile: "default")

            // Two callers, ten processes each, all at once, every one forced to refresh.
            let results = try await withThrowingTaskGroup(
                of: [(status: Int32, stdout: String, stderr: String)].self
            ) { callers in
                for _ in 0..<2 {
                    callers.addTask {
                        try await withThrowingTaskGroup(of: (status: Int32, stdout: String, stderr: String).self) {
                            group in
                            for _ in 0..<10 {
                                group.addTask {
                                    try await sandbox.run(["token", "--min-validity", "7200"], timeout: .seconds(180))
                                }
                            }
                            return try await group.reduce(into: []) { $0.append($1) }
                        }
                    }
                }
                return try await callers.reduce(into: []) { $0 += $1 }
            }

            #expect(results.count == 20)
            for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }
            let printed = results.map { $0.stdout.trimmingCharacters(in: .newlines) }
            #expect(Set(printed).count == 20, "each call refreshed and printed its own token")
            let refreshes = provider.requests(to: .token).filter { $0.grantType == "refresh_token" }
            #expect(refreshes.count == 20)
            #expect(refreshes.allSatisfy { $0.status == 200 && $0.error == nil }, "no refresh was refused")

            // Had any refresh token been presented twice, the provider would have revoked the
            // whole grant: every token printed, and the last refresh token, are still live.
            let final = try #require(try sandbox.storedEntry())
            let finalRefreshToken = try #require(final.tokens.refreshToken)
            #expect(provider.isActive(refreshToken: finalRefreshToken))
            #expect(printed.allSatisfy { provider.isActive(accessToken: $0) })
            #expect(printed.contains(final.tokens.accessToken))
            #expect(!provider.isActive(refreshToken: firstRefreshToken), "rotated away")

            // And the detection is real: presenting the first, rotated-out refresh token now
            // is refused and ends the grant.
            await #expect(throws: OAuthError.self) { _ = try await client.refresh(tokens) }
            #expect(!provider.isActive(refreshToken: finalRefreshToken))
            let refused = try await sandbox.run(["token", "--min-validity", "7200"])
            #expect(refused.status == ExitStatus.providerRefused)
            #expect(refused.stderr.contains("invalid_grant"))
        }
    }
}
