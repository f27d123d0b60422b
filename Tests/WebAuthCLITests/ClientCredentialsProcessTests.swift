// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth login --client-credentials` and the commands after it, as real processes against
/// the embedded provider: no browser, no person, a stored profile with no refresh token that
/// asks again when its token must be renewed.
@Suite("webauth login --client-credentials, run as processes")
struct ClientCredentialsProcessTests {
    static let secret = "machine-secret: long enough & with symbols"

    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        var machine = EmbeddedProvider.Client(
            id: "ci-job", secret: secret, redirectURIs: [], allowedScopes: ["deploy"])
        machine.allowsClientCredentials = true
        configuration.clients.append(machine)
        return configuration
    }

    @Test func aMachineSignsInAndAsksAgainWhenItsTokenMustBeRenewed() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        sandbox.extraEnvironment["WEBAUTH_CLIENT_SECRET"] = Self.secret
        try await EmbeddedProvider.withProvider(Self.configuration) { provider in
            let login = try await sandbox.run([
                "login", "--client-credentials", "--issuer", provider.issuer.absoluteString, "--client-id", "ci-job",
                "--scope", "deploy", "--store", "file",
            ])
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(!provider.requests.contains { $0.endpoint == .authorization }, "no page was opened")

            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.tokens.refreshToken == nil)
            #expect(entry.configuration?.grant == .clientCredentials)
            #expect(!containsSecret(login.stdout + login.stderr, of: entry))
            #expect(!(login.stdout + login.stderr).contains(Self.secret))

            // No refresh token, yet renewable: the client asks again.
            let listed = try await sandbox.run(["status", "--json"])
            let profile = try #require((try jsonObject(listed.stdout)["profiles"] as? [[String: Any]])?.first)
            #expect(profile["has_refresh_token"] as? Bool == false)
            #expect(profile["can_refresh"] as? Bool == true)

            // The stored token, as long as it is valid enough.
            let cached = try await sandbox.run(["token"])
            #expect(cached.status == 0, "stderr: \(cached.stderr)")
            #expect(cached.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == entry.tokens.accessToken)

            // Wanting more validity than it has: the profile asks again with its own credentials.
            let renewed = try await sandbox.run(["token", "--min-validity", "7200"])
            #expect(renewed.status == 0, "stderr: \(renewed.stderr)")
            let token = renewed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token != entry.tokens.accessToken)
            #expect(provider.isActive(accessToken: token))
            #expect(provider.requests.filter { $0.grantType == "client_credentials" }.count == 2)
            #expect(!provider.requests.contains { $0.grantType == "refresh_token" })
        }
    }

    @Test func aPersonsWayToSignInIsRefusedWithIt() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        for extra in [["--device"], ["--no-browser"], ["--browser", "none"], ["--ephemeral"]] {
            let run = try await sandbox.run(
                ["login", "--client-credentials", "--issuer", "https://id.example", "--client-id", "ci-job"] + extra)
            #expect(run.status != 0)
            #expect(run.stderr.contains("--client-credentials signs the client in as itself"), "\(extra)")
        }
    }

    @Test func aPublicClientIsRefusedBeforeAnyRequest() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration) { provider in
            let run = try await sandbox.run([
                "login", "--client-credentials", "--issuer", provider.issuer.absoluteString, "--client-id", "ci-job",
            ])
            #expect(run.status != 0)
            #expect(run.stderr.contains("confidential client"), "stderr: \(run.stderr)")
            #expect(!provider.requests.contains { $0.endpoint == .token })
        }
    }
}
