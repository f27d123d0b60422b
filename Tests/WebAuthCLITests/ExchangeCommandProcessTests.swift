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

/// `webauth exchange` as a real process against the embedded provider: the subject token read
/// from a file (never the command line), the exchanged token printed alone, and the provider's
/// refusals as the command's errors.
@Suite("webauth exchange, run as a process")
struct ExchangeCommandProcessTests {
    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        configuration.tokenExchangeTargets = ["billing"]
        return configuration
    }

    @Test func aTokenIsExchangedAndPrintedAlone() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration) { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
                    scopes: ["openid", "profile"]))
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let file = sandbox.root + "/subject-token"
            try Data((tokens.accessToken + "\n").utf8).write(to: URL(fileURLWithPath: file))

            let exchanged = try await sandbox.run([
                "exchange", "--issuer", provider.issuer.absoluteString, "--client-id", EmbeddedProvider.Client.demo.id,
                "--subject-token-file", file, "--audience", "billing",
            ])
            #expect(exchanged.status == 0, "stderr: \(exchanged.stderr)")
            let token = exchanged.stdout.trimmingCharacters(in: .newlines)
            #expect(exchanged.stdout == token + "\n")
            #expect(provider.audiences(ofAccessToken: token) == ["billing"])
            #expect(!exchanged.stderr.contains(tokens.accessToken))

            let refused = try await sandbox.run([
                "exchange", "--issuer", provider.issuer.absoluteString, "--client-id", EmbeddedProvider.Client.demo.id,
                "--subject-token-file", file, "--audience", "elsewhere", "--json",
            ])
            #expect(refused.status != 0)
            #expect(refused.stdout.contains("invalid_target") || refused.stderr.contains("invalid_target"))
            #expect(!(refused.stdout + refused.stderr).contains(tokens.accessToken))
        }
    }

    @Test func anEmptyFileOrAMissingTargetIsAUsageError() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let file = sandbox.root + "/empty"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let noTarget = try await sandbox.run([
            "exchange", "--issuer", "https://id.example", "--client-id", "c", "--subject-token-file", file,
        ])
        #expect(noTarget.status != 0)
        #expect(noTarget.stderr.contains("--audience or --resource"))
        let badType = try await sandbox.run([
            "exchange", "--issuer", "https://id.example", "--client-id", "c", "--subject-token-file", file,
            "--audience", "a", "--subject-token-type", "bogus",
        ])
        #expect(badType.stderr.contains("is not a token type"))
    }

    @Test func tokenForAnAudienceIsExchangedOnceAndKeptWithTheProfile() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var configuration = Self.configuration
        configuration.tokenExchangeTargets = ["billing", "reports"]
        configuration.clients = [
            EmbeddedProvider.Client(
                id: EmbeddedProvider.cliClientID, redirectURIs: [URL(string: "http://127.0.0.1/callback")!])
        ]
        try await EmbeddedProvider.withProvider(configuration) { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            let login = try await sandbox.run(provider.loginArguments(["--device", "--profile", "work"]))
            try #require(login.status == 0, "stderr: \(login.stderr)")
            let own = try #require(try sandbox.storedEntry("work")).tokens.accessToken

            let first = try await sandbox.run(["token", "--profile", "work", "--audience", "billing"])
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let billing = first.stdout.trimmingCharacters(in: .newlines)
            #expect(first.stdout == billing + "\n")
            #expect(billing != own)
            #expect(provider.audiences(ofAccessToken: billing) == ["billing"])
            #expect(provider.tokenExchangeCount == 1)

            // Kept with the profile: asked again, it is printed with no request.
            let again = try await sandbox.run(["token", "--profile", "work", "--audience", "billing"])
            #expect(again.stdout == billing + "\n", "stderr: \(again.stderr)")
            #expect(provider.tokenExchangeCount == 1)
            let entry = try #require(try sandbox.storedEntry("work"))
            #expect(entry.exchangedTokens.map(\.target) == [ExchangeTarget(audience: "billing")])

            // Another target is another exchange; the profile's own token is unchanged, and
            // the fast path still answers for it with the exchanged tokens in its entry.
            let reports = try await sandbox.run(["token", "--profile", "work", "--audience", "reports"])
            #expect(reports.status == 0, "stderr: \(reports.stderr)")
            #expect(provider.audiences(ofAccessToken: reports.stdout.trimmingCharacters(in: .newlines)) == ["reports"])
            #expect(provider.tokenExchangeCount == 2)
            let plain = try await sandbox.run(["token", "--profile", "work"])
            #expect(plain.stdout == own + "\n")
            #expect(try sandbox.storedEntry("work")?.exchangedTokens.count == 2)

            // A target the provider does not serve is its refusal, with no token printed.
            let refused = try await sandbox.run(["token", "--profile", "work", "--audience", "elsewhere"])
            #expect(refused.status != 0)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("invalid_target"), "stderr: \(refused.stderr)")
            #expect(!refused.stderr.contains(own) && !refused.stderr.contains(billing))

            // Signing out revokes the exchanged tokens with the profile's own.
            #expect(provider.isActive(accessToken: billing))
            let logout = try await sandbox.run(["logout", "--profile", "work"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(!provider.isActive(accessToken: billing))
            #expect(!provider.isActive(accessToken: own))
        }
    }

    @Test func aScopeWithoutATargetIsAUsageError() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let scopeAlone = try await sandbox.run(["token", "--profile", "work", "--scope", "read"])
        #expect(scopeAlone.status != 0)
        #expect(scopeAlone.stderr.contains("--audience or --resource"))
        let badResource = try await sandbox.run(["token", "--profile", "work", "--resource", "relative/path"])
        #expect(badResource.status != 0)
        #expect(badResource.stderr.contains("absolute URI"))
    }
}
