// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `webauth` run as a process against a provider that attacks it (``EmbeddedProvider`` with its
/// fault and forgery switches): text with terminal escape sequences, bidi overrides and
/// separators in every field a person sees, numbers no token can have, and a fake browser that
/// records what it was given. The bytes `webauth` writes are
/// checked, on standard error and standard output, `--json` included.
@Suite("webauth against a hostile provider, run as processes")
struct HostileProviderProcessTests {
    /// Retitles the window, clears the screen, writes the clipboard (OSC 52), reverses the
    /// text, forges a line, opens an 8-bit CSI and hides a zero-width space.
    static let hostile =
        "\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}]52;c;b3duZWQ=\u{07}\u{202E}rev\u{2028}\u{9B}31m\u{200B}end"

    /// The characters of `output` a terminal would act on or that reorder or hide text: none
    /// may be there but the newlines that end lines.
    static func steering(_ output: String) -> [String] {
        output.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                || [0x200B, 0x202E, 0x2028, 0x2029].contains($0.value)
        }.map { "U+" + String($0.value, radix: 16) }
    }

    /// Checks that nothing in `outputs` can steer a terminal.
    static func expectClean(_ outputs: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        for output in outputs {
            #expect(steering(output).isEmpty, "raw: \(steering(output)) in \(output)", sourceLocation: sourceLocation)
        }
    }

    /// An RFC 6749 error response whose every member is ``hostile``.
    private static func errorBody() throws -> String {
        let members = ["error": hostile, "error_description": hostile, "error_uri": "https://evil.example/" + hostile]
        return String(
            decoding: try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys]), as: UTF8.self)
    }

    private func signIn(_ sandbox: ProfileSandbox, _ provider: EmbeddedProvider) async throws {
        let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file"]))
        try #require(login.status == 0, "login failed: \(login.stderr)")
    }

    // MARK: 1. Provider text

    /// Where an OAuth error response (`error`, `error_description`, `error_uri`) comes from.
    enum ErrorSource: String, CaseIterable, Sendable {
        case tokenEndpointAtLogin, deviceEndpointAtLogin, authorizationResponseAtLogin, refreshAtToken,
            revocationAtLogout
    }

    @Test(arguments: ErrorSource.allCases)
    func anErrorResponseReachesTheTerminalClean(_ source: ErrorSource) async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let fault = EmbeddedProvider.Fault.answer(400, body: try Self.errorBody())
            let result: (status: Int32, stdout: String, stderr: String)
            switch source {
            case .tokenEndpointAtLogin:
                provider.setFault(fault, for: .token)
                result = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--json"]))
            case .deviceEndpointAtLogin:
                provider.setFault(fault, for: .deviceAuthorization)
                result = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--json"]))
            case .authorizationResponseAtLogin:
                provider.overrideMetadata(.init(removedMembers: ["device_authorization_endpoint"]))
                Self.redirectHostileErrors(provider)
                result = try await pasteRedirect(sandbox, provider, ["--store", "file", "--json"])
            case .refreshAtToken:
                try await signIn(sandbox, provider)
                provider.setFault(fault, for: .token)
                result = try await sandbox.run(["token", "--min-validity", "7200", "--json"])
            case .revocationAtLogout:
                try await signIn(sandbox, provider)
                provider.setFault(fault, for: .revocation)
                result = try await sandbox.run(["logout", "--json"])
            }
            #expect(result.status != 0, "\(source) did not fail")
            Self.expectClean(result.stdout, result.stderr)
            #expect(result.stderr.contains("?]0;owned??[2J?]52;c;b3duZWQ=??rev??31m?end"), "\(result.stderr)")
            // --json keeps the provider's value exactly: JSON escaping carries it.
            #expect(result.stdout.contains(#"\u001b]0;owned\u0007"#), "\(result.stdout)")
            let json = try jsonObject(result.stdout)
            let error = (json["error"] ?? json["revocation_error"]) as? [String: Any]
            #expect((error?["code"] as? String) == Self.hostile, "\(json)")
        }
    }

    /// Makes `/authorize` redirect back with an error whose `error`, `error_description` and
    /// `error_uri` are all ``hostile``.
    private static func redirectHostileErrors(_ provider: EmbeddedProvider) {
        provider.setFault(.error(hostile, description: hostile), for: .authorization)
        provider.overrideAuthorizationResponse(
            .init(additionalParameters: ["error_uri": "https://evil.example/" + hostile]))
    }

    /// Starts `login` with no device flow, takes the authorization URL it prints, lets the
    /// provider answer it and pastes the redirect.
    private func pasteRedirect(
        _ sandbox: ProfileSandbox, _ provider: EmbeddedProvider, _ extra: [String]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try sandbox.start(provider.loginArguments(extra))
        let stderr = try await process.waitForStandardError(containing: "paste it here", timeout: .seconds(60))
        let issuer = provider.issuer.absoluteString
        let line = try #require(
            stderr.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(issuer) })
        let authorizationURL = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
        process.type(try await provider.redirectToPaste(from: authorizationURL) + "\n")
        let status = try await process.waitForExit(timeout: .seconds(60))
        return (status, process.standardOutput, process.standardError)
    }

    @Test func openShowsAnErrorRedirectCleanOnTheTerminalAndTheLoopbackPage() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let browser = try sandbox.recordingBrowser()
        try await EmbeddedProvider.withCLIProvider { provider in
            Self.redirectHostileErrors(provider)
            let template =
                provider.url(.authorization).absoluteString
                + "?response_type=code&client_id=\(EmbeddedProvider.cliClientID)&state=s&redirect_uri={redirect_uri}"
            let process = try CLIProcess(
                ["open", "--loopback", "--browser", browser, "--json", template], environment: sandbox.environment)
            let page = try await Self.browseAsRecorded(sandbox, provider)
            #expect(try await process.waitForExit(timeout: .seconds(60)) == 0, "\(process.standardError)")
            // The page's body: the head has its CRLFs.
            let body = page.raw.components(separatedBy: "\r\n\r\n").dropFirst().joined()
            Self.expectClean(process.standardOutput, process.standardError, body)
            #expect(body.contains("?]0;owned??[2J?]52;c;b3duZWQ=??rev??31m?end"), "\(body)")
            let callback = try #require(try jsonObject(process.standardOutput)["callback_url"] as? String)
            let error = URLComponents(string: callback)?.queryItems?.first { $0.name == "error" }?.value
            #expect(error == Self.hostile, "the callback URL is handed on exactly")
        }
    }

    /// Plays the browser the recording browser stands for: opens the URL it was given at the
    /// provider (signing in and approving if asked), follows the redirect to the loopback
    /// listener and returns the listener's page.
    private static func browseAsRecorded(
        _ sandbox: ProfileSandbox, _ provider: EmbeddedProvider
    ) async throws -> RawHTTPClient.Response {
        let given = try await waitForFile(sandbox.root + "/browser-url")
        let url = try #require(URL(string: given))
        let redirect = try await provider.redirectToPaste(from: url)
        let location = try #require(URLComponents(string: redirect))
        return try await RawHTTPClient.get(
            port: try #require(location.port), target: location.path + "?" + (location.percentEncodedQuery ?? ""))
    }

    @Test func scopeSubjectAndUserInfoAreShownCleanAndStoredExactly() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let subject = "user" + Self.hostile
        // The name and e-mail address reach the ID token (with the profile and email scopes)
        // and UserInfo.
        let user = EmbeddedProvider.User(
            username: "hostile", password: "hostile-password", subject: subject, name: "N" + Self.hostile,
            email: "e" + Self.hostile)
        try await EmbeddedProvider.withCLIProvider(user: user) { provider in
            let scope = "openid offline_access profile email x" + Self.hostile
            provider.forgeTokenResponseMembers(["scope": .string(scope)])
            let login = try await sandbox.run(
                provider.loginArguments([
                    "--scope", "profile", "--scope", "email", "--device", "--store", "file", "--json",
                ]))
            #expect(login.status == 0, "stderr: \(login.stderr)")
            Self.expectClean(login.stdout, login.stderr)
            #expect(login.stderr.contains("Signed in as user?]0;owned"), "\(login.stderr)")
            #expect(login.stderr.contains("x?]0;owned"), "the scope is shown: \(login.stderr)")
            let summary = try jsonObject(login.stdout)
            #expect(summary["subject"] as? String == subject)
            #expect((summary["scopes"] as? [String])?.last == "x" + Self.hostile)

            // Stored byte for byte: they are protocol values.
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.tokens.idTokenClaims?.subject == subject)
            #expect(entry.tokens.idTokenClaims?.name == user.name)
            #expect(entry.tokens.idTokenClaims?.email == user.email)
            #expect(entry.tokens.scopes.joined(separator: " ") == scope)

            // Every later status replays them: clean each time.
            let status = try await sandbox.run(["status"])
            #expect(status.status == 0, "stderr: \(status.stderr)")
            Self.expectClean(status.stdout, status.stderr)
            #expect(status.stdout.contains("user?]0;owned"))
            let statusJSON = try await sandbox.run(["status", "--json"])
            Self.expectClean(statusJSON.stdout, statusJSON.stderr)
            let profiles = try #require(try jsonObject(statusJSON.stdout)["profiles"] as? [[String: Any]])
            #expect(profiles.first?["subject"] as? String == subject)

            let token = try await sandbox.run(["token", "--min-validity", "7200"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            Self.expectClean(token.stdout, token.stderr)
            let logout = try await sandbox.run(["logout"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            Self.expectClean(logout.stdout, logout.stderr)
        }
    }

    @Test func aHostileUserCodeIsRefusedCleanly() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            provider.forgeDeviceAuthorizationMembers(["user_code": .string("AB" + Self.hostile)])
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--json"]))
            #expect(login.status != 0)
            #expect(login.stderr.contains("user code is not printable text"), "\(login.stderr)")
            Self.expectClean(login.stdout, login.stderr)
        }
    }

    @Test func aHostileVerificationURIIsShownPercentEncoded() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let page = provider.deviceVerificationURL.absoluteString + Self.hostile
            provider.forgeDeviceAuthorizationMembers([
                "verification_uri": .string(page), "verification_uri_complete": .string(page + "?c=1"),
            ])
            // URL percent-encodes what a URL may not hold, so the page is shown encoded.
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--json"]))
            Self.expectClean(login.stdout, login.stderr)
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stderr.contains("/device%1B%5D0;owned%07"), "\(login.stderr)")
            let bidi = provider.deviceVerificationURL.absoluteString + "\u{202E}moc.live"
            provider.forgeDeviceAuthorizationMembers(["verification_uri": .string(bidi)])
            let second = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--json"]))
            Self.expectClean(second.stdout, second.stderr)
            #expect(second.stderr.contains("/device%E2%80%AEmoc.live"), "\(second.stderr)")
        }
    }

    // MARK: 2. Numbers

    @Test(arguments: [
        ("1e300", EmbeddedProvider.ForgedJSONValue.number(1e300)), ("-1e300", .number(-1e300)), ("0", .integer(0)),
        ("-1", .integer(-1)),
        ("0.5", .number(0.5)), ("NaN", .string("NaN")), ("inf", .string("inf")),
    ])
    func anyExpiresInLeavesAWorkingProfile(_ name: String, _ value: EmbeddedProvider.ForgedJSONValue) async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            provider.forgeTokenResponseMembers(["expires_in": value])
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file"]))
            guard name != "NaN" && name != "inf" else {
                #expect(login.status == ExitStatus.failure || login.status > 0, "\(login.stderr)")
                #expect(login.stderr.contains("expires_in is not a finite number"), "\(login.stderr)")
                #expect(try sandbox.storedEntry() == nil, "nothing stored")
                return
            }
            #expect(login.status == 0, "expires_in \(name): \(login.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            let lifetime = try #require(entry.tokens.expiresAt).timeIntervalSince(entry.tokens.receivedAt)
            #expect(lifetime >= 0 && lifetime <= 10 * 365 * 86_400, "expires_in \(name) became \(lifetime) s")
            for arguments in [["status"], ["status", "--json"], ["token"], ["logout"]] {
                let run = try await sandbox.run(arguments)
                #expect(run.status == 0, "\(arguments) after expires_in \(name): \(run.stderr)")
            }
        }
    }

    @Test func anUnreadableEntryIsNamedByStatusAndRemovedByLogout() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        // An entry as an earlier version could write it from an expires_in of -1e300: a date
        // the store cannot read back.
        try FileManager.default.createDirectory(
            atPath: sandbox.tokenDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let entry =
            #"{"clientID":"c","savedAt":"2026-01-01T00:00:00Z","tokens":{"accessToken":"a","tokenType":"Bearer","#
            + #""expiresAt":"-292277022657-01-27T08:29:52Z","receivedAt":"2026-01-01T00:00:00Z","scopes":[]}}"#
        #expect(
            FileManager.default.createFile(
                atPath: sandbox.entryPath(), contents: Data(entry.utf8), attributes: [.posixPermissions: 0o600]))
        let status = try await sandbox.run(["status"])
        #expect(status.status != 0)
        #expect((status.stdout + status.stderr).contains("unreadable"), "\(status.stdout)\(status.stderr)")
        #expect((status.stdout + status.stderr).contains(sandbox.entryPath()), "the path is named")
        let statusJSON = try await sandbox.run(["status", "--json"])
        let profiles = try #require(try jsonObject(statusJSON.stdout)["profiles"] as? [[String: Any]])
        #expect((profiles.first?["error"] as? [String: Any])?["code"] as? String == "corrupt")

        let logout = try await sandbox.run(["logout", "--json"])
        #expect(logout.status == 0, "stderr: \(logout.stderr)")
        #expect(logout.stderr.contains("nothing could be revoked"), "\(logout.stderr)")
        #expect(try jsonObject(logout.stdout)["revocation"] as? String == "unreadable")
        #expect(!FileManager.default.fileExists(atPath: sandbox.entryPath()), "the file is gone")
        #expect(try await sandbox.run(["status"]).stdout.contains("No profile is signed in") == false)
    }

    // MARK: 3. The client secret and launched programs

    @Test func theBrowserNeverSeesTheClientSecret() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let secret = "s3cret-from-the-environment"
        let browser = try sandbox.recordingBrowser()
        // The provider insists on the secret: the sign-in completes only if webauth had it.
        try await EmbeddedProvider.withCLIProvider(secret: secret) { provider in
            var environment = sandbox.environment
            environment["WEBAUTH_CLIENT_SECRET"] = secret
            let process = try CLIProcess(
                provider.loginArguments(["--browser", browser, "--store", "file"]), environment: environment)
            let recorded = try await waitForFile(sandbox.root + "/browser-env")
            #expect(recorded.contains("HOME=\(sandbox.root)"), "the environment was recorded: \(recorded)")
            #expect(!recorded.contains("WEBAUTH_CLIENT_SECRET"), "the variable reached the browser")
            #expect(!recorded.contains(secret), "the secret reached the browser")

            // Finish the sign-in as the browser would have.
            _ = try await Self.browseAsRecorded(sandbox, provider)
            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "the sign-in used the secret: \(process.standardError)")
            #expect(try sandbox.storedEntry()?.configuration?.clientSecret == secret)
        }
    }

    @Test func noLaunchedProgramInheritsASecretVariable() throws {
        for name in SecretEnvironment.names {
            let completion = try Subprocess.runToCompletion(
                "/usr/bin/env", [], environment: [name: "hidden-value", "KEPT": "visible", "PATH": "/usr/bin:/bin"])
            #expect(completion.standardOutput.contains("KEPT=visible"))
            #expect(!completion.standardOutput.contains(name), "\(name) was passed on")
            #expect(!completion.standardOutput.contains("hidden-value"))
        }
        #expect(SecretEnvironment.names.contains("WEBAUTH_CLIENT_SECRET"))
    }

    // MARK: 4. A configuration file with a secret

    @Test func aSharedConfigurationFileWithASecretIsRefusedWithTheFix() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let file = sandbox.root + "/client.json"
            let json =
                #"{"issuer":"\#(provider.issuer.absoluteString)","clientID":"c","clientSecret":"config-secret-value"}"#
            #expect(
                FileManager.default.createFile(
                    atPath: file, contents: Data(json.utf8), attributes: [.posixPermissions: 0o644]))
            let refused = try await sandbox.run(["login", "--config", file, "--device", "--store", "file"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("chmod 600 '\(file)'"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("config-secret-value"))
            #expect(provider.requests.isEmpty, "nothing was sent with the exposed secret")
        }
    }

    // MARK: Nothing unasked in the home directory

    @Test func nothingAppearsInTheHomeDirectoryButTheStore() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            _ = try await sandbox.run(["token"])
            try await signIn(sandbox, provider)
            _ = try await sandbox.run(["status"])
            _ = try await sandbox.run(["token", "--min-validity", "7200"])
            _ = try await sandbox.run(["logout"])
        }
        let created = (FileManager.default.enumerator(atPath: sandbox.root)?.allObjects as? [String] ?? []).sorted()
        let unexpected = created.filter { $0 != "state" && !$0.hasPrefix("state/webauth") }
        #expect(unexpected.isEmpty, "created outside the store: \(unexpected)")
        #expect(created.contains("state/webauth/tokens"), "the store was used: \(created)")
    }
}
