// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth login` and the authorization request's `prompt`: `offline_access` brings
/// `prompt=consent` (OpenID Connect Core §11), `--prompt` is obeyed, the summary says when
/// offline access was not granted, and a refusal in the browser is the person's (exit 2).
@Suite("webauth login: prompt, offline access and refusals in the browser, run as processes")
struct PromptProcessTests {
    /// What a `--no-browser` sign-in showed and how it ended.
    struct PastedSignIn {
        var status: Int32
        var authorizationURL: URL
        var stderr: String
    }

    /// Runs `login` with `--no-browser`, signs in at the URL it shows with `agent` (the person's
    /// browser elsewhere) and pastes the address the browser ends on.
    static func pastedSignIn(
        _ sandbox: ProfileSandbox, _ arguments: [String], agent: ScriptedUserAgent = ScriptedUserAgent()
    ) async throws -> PastedSignIn {
        let process = try sandbox.start(arguments + ["--no-browser"])
        let shown = try await process.waitForStandardError(containing: "paste it here", timeout: .seconds(60))
        let line = try #require(shown.split(whereSeparator: \.isNewline).first { $0.contains("/authorize?") })
        let url = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
        let redirect = try await agent.redirectAddress(from: url)
        process.type(redirect.absoluteString + "\n")
        let status = try await process.waitForExit(timeout: .seconds(60))
        return PastedSignIn(status: status, authorizationURL: url, stderr: process.standardError)
    }

    static func prompt(in url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "prompt" }?.value
    }

    /// A provider that grants `offline_access` only with `prompt=consent`, as OpenID Connect
    /// Core §11 lets it.
    static func withStrictOfflineProvider(_ body: (EmbeddedProvider) async throws -> Void) async throws {
        var configuration = EmbeddedProvider.Configuration(
            clients: [
                .init(
                    id: EmbeddedProvider.cliClientID, redirectURIs: [URL(string: "http://127.0.0.1/callback")!])
            ])
        configuration.grantsOfflineAccessOnlyWithConsentPrompt = true
        try await EmbeddedProvider.withProvider(configuration, body)
    }

    @Test func offlineAccessAsksForConsentAndIsGranted() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withStrictOfflineProvider { provider in
            let signIn = try await Self.pastedSignIn(
                sandbox, provider.loginArguments(["--store", "file", "--json"]))
            #expect(signIn.status == 0, "stderr: \(signIn.stderr)")
            #expect(Self.prompt(in: signIn.authorizationURL) == "consent")
            #expect(signIn.stderr.contains("refresh token:  held\n"), "\(signIn.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.tokens.scopes.contains("offline_access"))
        }
    }

    @Test func anExplicitPromptIsObeyedAndAnOfflineAccessNotGrantedIsSaid() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await Self.withStrictOfflineProvider { provider in
            let signIn = try await Self.pastedSignIn(
                sandbox, provider.loginArguments(["--store", "file", "--prompt", "login"]))
            #expect(signIn.status == 0, "stderr: \(signIn.stderr)")
            #expect(Self.prompt(in: signIn.authorizationURL) == "login")
            #expect(
                signIn.stderr.contains("refresh token:  held, but offline_access was not granted"), "\(signIn.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.configuration?.additionalAuthorizationParameters["prompt"] == "login", "kept for later")
        }
    }

    @Test func aBadPromptIsRefusedByBothPrograms() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await sandbox.run([
            "login", "--issuer", "https://id.example.com", "--client-id", "c", "--prompt", "none consent",
        ])
        #expect(result.status == ExitStatus.usage)
        #expect(result.stderr.contains("--prompt must be"), "\(result.stderr)")
        #expect(
            SignInOptionSyntax.refusal(
                .init(issuer: "https://id.example.com", clientID: "c"), reading: LoginOptions.urlReading) == nil)
        var given = SignInOptionSyntax.Given(issuer: "https://id.example.com", clientID: "c")
        given.prompt = "none consent"
        #expect(SignInOptionSyntax.refusal(given, reading: LoginOptions.urlReading) == .prompt)
        #expect(!SignInOptionSyntax.accepts(["--issuer": ["https://id.example.com"], "--prompt": ["a b!"]]))
        #expect(
            SignInOptionSyntax.accepts([
                "--issuer": ["https://id.example.com"], "--client-id": ["c"], "--prompt": ["login"],
            ]))
    }

    @Test func aRefusalOnTheConsentPageIsThePersonsExitTwo() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let signIn = try await Self.pastedSignIn(
                sandbox, provider.loginArguments(["--store", "file"]), agent: ScriptedUserAgent(consent: .deny))
            #expect(signIn.status == ExitStatus.cancelledByUser, "stderr: \(signIn.stderr)")
            #expect(
                signIn.stderr.contains("the sign-in was refused in the browser (access_denied)"), "\(signIn.stderr)")
            #expect(try sandbox.storedEntry() == nil)
        }
    }
}
