import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth logout --end-session` as a process against ``EmbeddedProvider``: the browser (a
/// script that records the URL it is given) stands for the person's, and the test plays it —
/// following the provider's redirect, or not.
@Suite("webauth logout --end-session, run as processes")
struct EndSessionProcessTests {
    /// A sandbox with `scopes`' tokens for the demo client stored under `default`.
    private static func signedIn(
        _ provider: EmbeddedProvider, scopes: [String] = ["openid", "offline_access"]
    ) async throws -> (ProfileSandbox, StoredTokens) {
        let sandbox = try ProfileSandbox()
        let configuration = ClientConfiguration(
            issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id, scopes: scopes)
        let tokens = try await OAuthClient(configuration: configuration).signIn(
            environment: .standard(browser: ScriptedUserAgent()))
        let entry = StoredTokens(tokens: tokens, configuration: configuration)
        try await FileTokenStore(directory: sandbox.tokenDirectory).save(entry, profile: "default")
        return (sandbox, entry)
    }

    /// Starts `logout --end-session` with the recording browser, and returns it with the URL
    /// the browser was given.
    private static func startLogout(_ sandbox: ProfileSandbox, _ extra: [String] = []) async throws -> (
        CLIProcess, URL
    ) {
        let process = try sandbox.start(
            ["logout", "--end-session", "--browser", try sandbox.recordingBrowser(), "--store", "file"] + extra)
        let url = try #require(URL(string: try await waitForFile(sandbox.root + "/browser-url")))
        return (process, url)
    }

    @Test func theProvidersSessionEndsThenTheTokensAreRevokedAndForgotten() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let (sandbox, entry) = try await Self.signedIn(provider)
            defer { sandbox.remove() }
            let (process, url) = try await Self.startLogout(sandbox, ["--json"])
            let query = CallbackParameters(url).query
            #expect(url.path == EmbeddedProvider.Endpoint.endSession.path)
            #expect(query["id_token_hint"] == entry.tokens.idToken)
            #expect(query["client_id"] == EmbeddedProvider.Client.demo.id)
            #expect(query["state"]?.count == 43)

            // The browser follows the provider's redirect back to the listener.
            let answer = try await RawHTTPClient.request(method: "GET", url: url)
            #expect(answer.status == 302)
            let back = try #require(answer.header("Location").flatMap(URL.init(string:)))
            let page = try await RawHTTPClient.request(method: "GET", url: back)
            #expect(page.body.contains("Signed out"))

            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "stderr: \(process.standardError)")
            #expect(process.standardError.contains("Signed out of the provider."))
            let outcome = try jsonObject(process.standardOutput)
            #expect(outcome["end_session"] as? String == "ended")
            #expect(outcome["revocation"] as? String == "revoked")
            #expect(try sandbox.storedEntry() == nil)
            #expect(!provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))
        }
    }

    @Test func aRedirectWithoutStateFailsTheSignOutButTheTokensAreStillRevokedAndForgotten() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let (sandbox, entry) = try await Self.signedIn(provider)
            defer { sandbox.remove() }
            let (process, url) = try await Self.startLogout(sandbox)
            let redirect = try #require(CallbackParameters(url).query["post_logout_redirect_uri"])
            _ = try await RawHTTPClient.request(method: "GET", url: try #require(URL(string: redirect)))

            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == ExitStatus.endSessionFailed, "stderr: \(process.standardError)")
            #expect(process.standardError.contains("signing out of the provider failed"))
            #expect(process.standardError.contains("no state"))
            #expect(process.standardError.contains("still revoked and forgotten"))
            #expect(try sandbox.storedEntry() == nil)
            #expect(!provider.isActive(accessToken: entry.tokens.accessToken))
        }
    }

    @Test func noAnswerWithinTheTimeoutFailsTheSignOutButNotTheLocalOne() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let (sandbox, _) = try await Self.signedIn(provider)
            defer { sandbox.remove() }
            let (process, _) = try await Self.startLogout(sandbox, ["--timeout", "2", "--json"])
            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == ExitStatus.endSessionFailed, "stderr: \(process.standardError)")
            #expect(process.standardError.contains("did not send the browser back within 2 s"))
            let outcome = try jsonObject(process.standardOutput)
            #expect(outcome["end_session"] as? String == "failed")
            #expect((outcome["end_session_error"] as? [String: Any])?["code"] as? String == "timedOut")
            #expect(try sandbox.storedEntry() == nil)
        }
    }

    @Test func withoutAnIDTokenNoBrowserOpensAndTheMessageSaysWhy() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let (sandbox, entry) = try await Self.signedIn(provider, scopes: ["profile", "offline_access"])
            defer { sandbox.remove() }
            #expect(entry.tokens.idToken == nil)
            let browser = try sandbox.recordingBrowser()
            let result = try await sandbox.run(["logout", "--end-session", "--browser", browser, "--store", "file"])
            #expect(result.status == ExitStatus.endSessionFailed, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("has no ID token"))
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/browser-url"))
            #expect(try sandbox.storedEntry() == nil)
            #expect(!provider.isActive(accessToken: entry.tokens.accessToken))
        }
    }
}
