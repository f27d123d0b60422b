// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCredentialHelpers
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth git-credential get` signing in by itself: run by Debian's git (or directly) from a
/// pseudo-terminal that is the process's controlling terminal, as from a person's shell, against
/// ``EmbeddedProvider``; the person is played by ``ScriptedUserAgent``. Standard output must
/// carry the protocol answer only, every prompt must reach the terminal, and no secret the
/// terminal or standard error.
@Suite("webauth git-credential signs in on the terminal", TestFixture.git.required)
struct GitCredentialSignInTests {
    static let host = "git.example.com"
    static let request = "protocol=https\nhost=\(host)\n\n"

    /// The login options for the embedded provider's demo client: the scopes as one argument
    /// with a space, which the helper line must quote for git's shell.
    static func loginOptions(_ provider: EmbeddedProvider) -> [String] {
        [
            "--issuer", provider.issuer.absoluteString, "--client-id", EmbeddedProvider.Client.demo.id, "--scope",
            "openid offline_access", "--timeout", "60",
        ]
    }

    /// Plays the person at the authorization URL the recording browser was given: signs in,
    /// approves, and follows the redirect to the helper's loopback listener.
    static func completeBrowserSignIn(_ sandbox: ProfileSandbox) async throws {
        let given = try await waitForFile(sandbox.root + "/browser-url")
        let url = try #require(URL(string: given))
        let presentation = try await ScriptedUserAgent().present(
            BrowserRequest(url: url, callback: .loopback(path: "/callback")))
        // A loopback callback it requests itself: any event means it stopped short.
        for await event in presentation.events { throw CLITestError("the scripted person stopped: \(event)") }
    }

    @Test func gitCredentialFillSignsInOnTheTerminalWithTheHelperLinesOptions() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let browser = try sandbox.recordingBrowser()
        try await EmbeddedProvider.withProvider { provider in
            let setup = try await sandbox.run(
                ["git-credential", "setup", Self.host, "--profile", "work", "--store", "file"]
                    + Self.loginOptions(provider))
            #expect(setup.status == 0, "stderr: \(setup.stderr)")
            let line = try await sandbox.git([
                "config", "--global", "--get-all", "credential.https://\(Self.host).helper",
            ])
            #expect(
                line.stdout.hasSuffix(
                    "git-credential --profile work --store file --issuer \(provider.issuer.absoluteString) "
                        + "--client-id webauth-demo --scope 'openid offline_access' --timeout 60\n"), "\(line.stdout)")

            // A person at a terminal, with a browser: git runs the helper, which signs in.
            let session = try TerminalSession(
                ["/usr/bin/git", "credential", "fill"], input: Self.request, in: sandbox,
                environment: ["GIT_TERMINAL_PROMPT": "1", "BROWSER": browser])
            defer { session.finish() }
            try await Self.completeBrowserSignIn(sandbox)
            let status = try await session.process.waitForExit(timeout: .seconds(90))
            let (stdout, stderr) = (session.process.standardOutput, session.process.standardError)
            #expect(status == 0, "stderr: \(stderr); terminal: \(session.transcript)")

            let entry = try #require(try sandbox.storedEntry("work"), "the profile is stored")
            #expect(entry.configuration?.issuer == provider.issuer)
            #expect(entry.tokens.scopes.contains("offline_access"))
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(
                stdout == "protocol=https\nhost=\(Self.host)\nusername=oauth2\npassword=\(entry.tokens.accessToken)\n",
                "standard output holds git's answer only")
            // The summary's last line: everything before it has reached the terminal too.
            let terminal = try await session.waitForTerminal(containing: "stored in:")
            for said in [
                "git asks webauth for a credential for https://\(Self.host)", "Opening the sign-in page with",
                "Signed in as \(EmbeddedProvider.User.demo.subject)",
            ] {
                #expect(terminal.contains(said), "the terminal lacks '\(said)': \(terminal)")
            }
            #expect(!stdout.contains("Signed in"), "no prompt on standard output")
            #expect(!containsSecret(terminal, of: entry), "no token on the terminal")
            #expect(!containsSecret(stderr, of: entry), "no token on standard error")

            // The next fill needs no terminal and no browser: the stored sign-in answers.
            try FileManager.default.removeItem(atPath: sandbox.root + "/browser-url")
            let again = try await sandbox.git(["credential", "fill"], input: Self.request)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("password=\(entry.tokens.accessToken)\n"))
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/browser-url"))
        }
    }

    @Test func aRefusedRefreshTokenSignsInAgainWithTheStoredConfigurationNotTheLines() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider { provider in
            // Signed in once; the access token has expired and the refresh token is one the
            // provider does not know (revoked, or expired): the refresh meets invalid_grant.
            let configuration = ClientConfiguration(
                issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
                scopes: ["openid", "offline_access"])
            let stale = StoredTokens(
                tokens: TokenSet(
                    accessToken: "stale-access", tokenType: "Bearer", refreshToken: "revoked-refresh",
                    expiresAt: Date(timeIntervalSinceNow: -60)),
                configuration: configuration)
            try await TokenStores(selection: .file, environment: sandbox.environment).save(stale, profile: "work")

            // The stored configuration wins over the line's, which names a provider that is not
            // there (nothing listens on port 9). No display and no browser: the device flow,
            // its code shown on the terminal only.
            let session = try TerminalSession(
                [
                    CLIProcess.executable.path, "git-credential", "--profile", "work", "--profile-for", Self.host,
                    "--issuer", "http://127.0.0.1:9",
                    "--client-id", "not-this-one", "get",
                ], input: Self.request, in: sandbox, environment: ["GIT_TERMINAL_PROMPT": "1"])
            defer { session.finish() }
            let shown = try await session.waitForTerminal(containing: "user_code=")
            let line = try #require(
                shown.split(whereSeparator: \.isNewline).first { $0.contains("/device?user_code=") })
            let verificationURI = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
            try await ScriptedUserAgent().approveDevice(verificationURI: verificationURI, userCode: nil)
            let status = try await session.process.waitForExit(timeout: .seconds(90))
            let (stdout, stderr) = (session.process.standardOutput, session.process.standardError)
            #expect(status == 0, "stderr: \(stderr); terminal: \(session.transcript)")

            let entry = try #require(try sandbox.storedEntry("work"))
            #expect(entry.tokens.accessToken != stale.tokens.accessToken)
            #expect(entry.configuration == configuration)
            let answer = try GitCredential(reading: Array(stdout.utf8))
            #expect(answer.password == entry.tokens.accessToken)
            #expect(answer.username == "oauth2")
            #expect(answer.passwordExpiry != nil)
            #expect(!stdout.contains("user_code"), "the prompt is not on standard output")
            let terminal = try await session.waitForTerminal(containing: "stored in:")
            #expect(terminal.contains("invalid_grant"), "the terminal says why: \(terminal)")
            #expect(terminal.contains("signing in"))
            #expect(!containsSecret(terminal + stderr, of: entry))
            #expect(provider.requests(to: .token).contains { $0.grantType == "refresh_token" }, "a refresh was tried")
        }
    }

    @Test func theRedirectIsPastedOnTheTerminalNotReadFromGitsInput() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider { provider in
            // --no-browser: the URL is shown on the terminal and the address the browser ends
            // on is pasted there — git's input (standard input) is not where it is read from.
            let session = try TerminalSession(
                [CLIProcess.executable.path, "git-credential", "--profile", "work", "--profile-for", Self.host]
                    + Self.loginOptions(provider) + ["--no-browser", "get"],
                input: Self.request, in: sandbox, environment: ["GIT_TERMINAL_PROMPT": "1"])
            defer { session.finish() }
            let shown = try await session.waitForTerminal(containing: "paste it here")
            let line = try #require(shown.split(whereSeparator: \.isNewline).first { $0.contains("/authorize?") })
            let url = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
            // The person's browser, elsewhere: they sign in and approve, and the provider sends
            // it on to the redirect URI, which it cannot reach; the person copies that address.
            let redirect = try await ScriptedUserAgent().redirectAddress(from: url)
            session.type(redirect.absoluteString + "\n")
            let status = try await session.process.waitForExit(timeout: .seconds(60))
            let (stdout, stderr) = (session.process.standardOutput, session.process.standardError)
            #expect(status == 0, "stderr: \(stderr); terminal: \(session.transcript)")

            let entry = try #require(try sandbox.storedEntry("work"))
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(try GitCredential(reading: Array(stdout.utf8)).password == entry.tokens.accessToken)
            #expect(!stdout.contains("authorize"), "the URL is not on standard output")
            let terminal = try await session.waitForTerminal(containing: "stored in:")
            #expect(!containsSecret(terminal + stderr, of: entry))
        }
    }

    @Test func noTerminalPromptsOffOrNothingToSignInWithAnswersNothingAndOpensNothing() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let browser = try sandbox.recordingBrowser()
        try await EmbeddedProvider.withProvider { provider in
            let helper = [
                CLIProcess.executable.path, "git-credential", "--profile", "work", "--profile-for", Self.host,
            ]
            let withOptions = helper + Self.loginOptions(provider) + ["get"]
            let cases: [(String, [String], [String: String], Bool, String)] = [
                ("prompts off", withOptions, ["GIT_TERMINAL_PROMPT": "0"], true, "webauth login --profile work"),
                ("prompts false", withOptions, ["GIT_TERMINAL_PROMPT": "false"], true, "webauth login --profile work"),
                ("no terminal", withOptions, ["GIT_TERMINAL_PROMPT": "1"], false, "webauth login --profile work"),
                (
                    "no options", helper + ["get"], ["GIT_TERMINAL_PROMPT": "1"], true,
                    "give the helper line the login options"
                ),
            ]
            for (name, command, environment, hasTerminal, fix) in cases {
                let session = try TerminalSession(
                    command, input: Self.request, in: sandbox,
                    environment: environment.merging(["BROWSER": browser]) { $1 },
                    controllingTerminal: hasTerminal)
                let status = try await session.process.waitForExit(timeout: .seconds(60))
                session.finish()
                let stderr = session.process.standardError
                #expect(status == 0, "\(name): \(stderr)")
                #expect(session.process.standardOutput.isEmpty, "\(name): git hears nothing")
                #expect(
                    stderr.contains("git gets no credential from webauth: no profile \"work\" is signed in"),
                    "\(name): \(stderr)")
                #expect(stderr.contains(fix), "\(name): \(stderr)")
                #expect(stderr.split(separator: "\n").count == 1, "\(name): one line: \(stderr)")
                #expect(session.transcript.isEmpty, "\(name): nothing on the terminal: \(session.transcript)")
            }
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/browser-url"), "no browser opened")
            #expect(provider.requests.isEmpty, "the provider was never asked")
            #expect(try sandbox.storedEntry("work") == nil)
        }
    }

    @Test func aHelperLineThatCannotBeParsedExits64AndTouchesNothing() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let tokens = TokenSet(
            accessToken: "kept-access", tokenType: "Bearer", refreshToken: "kept-refresh",
            expiresAt: Date(timeIntervalSinceNow: 3600))
        let configuration = ClientConfiguration(issuer: URL(string: "http://127.0.0.1:9")!, clientID: "git-tests")
        try await TokenStores(selection: .file, environment: sandbox.environment).save(
            StoredTokens(tokens: tokens, configuration: configuration), profile: "work")
        let stored = try #require(try sandbox.storedEntry("work"))
        let cases: [([String], String)] = [
            (["--frobnicate"], "Unknown option '--frobnicate'"),
            (["--client-secret", "s3cret-on-the-line"], "--client-secret cannot be used here"),
            (["--issuer", "https://id.example"], "--client-id is needed"),
            (["--issuer", "https://id.example", "--preset", "github", "--client-id", "x"], "exactly one of --issuer"),
            (["--issuer", "not a url", "--client-id", "x"], "--issuer must be an absolute URL"),
            (["--device", "--no-browser"], "--device uses no browser here"),
        ]
        for (options, said) in cases {
            for operation in ["get", "erase", "store"] {
                let process = try CLIProcess(
                    ["git-credential", "--profile", "work"] + options + [operation], environment: sandbox.environment,
                    keepStandardInputOpen: true)
                process.finishInput(Array("protocol=https\nhost=example.com\npassword=kept-access\n\n".utf8))
                let status = try await process.waitForExit()
                #expect(status == ExitStatus.usage, "\(options) \(operation)")
                #expect(process.standardOutput.isEmpty)
                #expect(process.standardError.contains(said), "\(options): \(process.standardError)")
                #expect(!process.standardError.contains("s3cret-on-the-line"), "the secret is not echoed")
            }
            let setup = try await sandbox.run(["git-credential", "setup", Self.host, "--profile", "work"] + options)
            #expect(setup.status == ExitStatus.usage, "setup \(options)")
            #expect(setup.stderr.contains(said), "setup \(options): \(setup.stderr)")
        }
        #expect(try sandbox.storedEntry("work") == stored, "nothing stored is touched")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/gitconfig"), "setup wrote nothing")

        // Through git: the helper's complaint reaches the person, git gets no credential.
        let configured = try await sandbox.git([
            "config", "--global", "credential.helper", "!'\(CLIProcess.executable.path)' git-credential --frobnicate",
        ])
        try #require(configured.status == 0)
        let fill = try await sandbox.git(["credential", "fill"], input: Self.request)
        #expect(fill.status != 0)
        #expect(fill.stderr.contains("Unknown option '--frobnicate'"), "\(fill.stderr)")
        #expect(!fill.stdout.contains("kept-access"))
    }
}
