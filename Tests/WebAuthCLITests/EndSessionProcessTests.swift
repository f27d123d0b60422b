// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HTTPTypes
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth logout --end-session` as a process against ``EmbeddedProvider``: the browser (a
/// script that records the URL it is given, its command line and its environment) stands for
/// the person's, and the test plays it — fetching the one-use page, posting its form to the
/// provider and following the provider's redirect, or not.
@Suite("webauth logout --end-session, run as processes")
struct EndSessionProcessTests {
    /// The form a one-use page posts: where to, and its fields.
    struct PostedForm {
        var action: URL
        var fields: [(name: String, value: String)]

        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    }

    /// Reads the form of a one-use page: its `action` and its hidden inputs, unescaped.
    static func form(in html: String) throws -> PostedForm {
        func unescaped(_ text: Substring) -> String {
            text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        func attribute(_ name: String, in tag: Substring) -> Substring? {
            guard let start = tag.range(of: " \(name)=\"") else { return nil }
            return tag[start.upperBound...].prefix { $0 != "\"" }
        }
        let tags = html.split(separator: "<").map { $0.prefix { $0 != ">" } }
        let formTag = try #require(tags.first { $0.hasPrefix("form ") }, "no form in \(html)")
        let action = try #require(attribute("action", in: formTag).flatMap { URL(string: unescaped($0)) })
        let fields = tags.filter { $0.hasPrefix("input type=\"hidden\"") }.compactMap { tag in
            attribute("name", in: tag).map {
                (name: unescaped($0), value: unescaped(attribute("value", in: tag) ?? ""))
            }
        }
        return PostedForm(action: action, fields: fields)
    }

    /// Plays the person's browser at the one-use page `url`: fetches it (checking its headers)
    /// and returns its form, and the page's answer to a second fetch.
    static func fetchPage(_ url: URL) async throws -> (PostedForm, again: RawHTTPClient.Response) {
        #expect(url.scheme == "http" && url.host == "127.0.0.1")
        let page = try await RawHTTPClient.request(method: "GET", url: url)
        #expect(page.status == 200)
        #expect(page.header("Cache-Control") == "no-store")
        #expect(page.header("Referrer-Policy") == "no-referrer")
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'; ") == true)
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'nonce-") == true)
        #expect(page.body.contains(".submit();</script>"))
        let again = try await RawHTTPClient.request(method: "GET", url: url)
        return (try form(in: page.body), again)
    }

    /// Posts `form` as the browser would, and returns the provider's answer.
    static func post(_ form: PostedForm) async throws -> RawHTTPClient.Response {
        try await RawHTTPClient.request(
            method: "POST", url: form.action,
            headerFields: [.contentType: "application/x-www-form-urlencoded", HTTPField.Name("Origin")!: "null"],
            body: Array(FormEncoding.encode(form.fields.map { ($0.name, $0.value) }).utf8))
    }

    /// Whether `text` holds `secret`, or any run of 16 of its characters.
    static func holdsPart(of secret: String, in text: String) -> Bool {
        let characters = Array(secret)
        guard characters.count >= 16 else { return text.contains(secret) }
        return (0...(characters.count - 16)).contains { text.contains(String(characters[$0..<$0 + 16])) }
    }

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

    /// How the test names the browser to `webauth`.
    enum BrowserNaming: String, CaseIterable, Sendable {
        case option = "--browser"
        case variable = "BROWSER"
    }

    @Test(arguments: BrowserNaming.allCases)
    func theIDTokenIsOnNoCommandLineNorInTheBrowsersEnvironmentAndTheSignOutCompletes(
        naming: BrowserNaming
    ) async throws {
        try await EmbeddedProvider.withProvider { provider in
            var (sandbox, entry) = try await Self.signedIn(provider)
            defer { sandbox.remove() }
            let idToken = try #require(entry.tokens.idToken)
            #expect(idToken.count > 100)
            let browser = try sandbox.recordingBrowser()
            var arguments = ["logout", "--end-session", "--store", "file", "--json"]
            switch naming {
            case .option: arguments += ["--browser", browser]
            case .variable: sandbox.extraEnvironment["BROWSER"] = browser
            }
            let process = try sandbox.start(arguments)
            let url = try #require(URL(string: try await waitForFile(sandbox.root + "/browser-url")))
            let argv = try await waitForFile(sandbox.root + "/browser-argv")
            let environment = try await waitForFile(sandbox.root + "/browser-env")
            #expect(argv.contains(url.absoluteString), "the record is of the browser's own command line")
            #expect(!Self.holdsPart(of: idToken, in: argv), "the ID token is on the browser's command line")
            #expect(!Self.holdsPart(of: idToken, in: environment), "the ID token is in the browser's environment")
            #expect(!Self.holdsPart(of: idToken, in: url.absoluteString))

            // The person's browser opens the page, which posts the request to the provider.
            let (form, again) = try await Self.fetchPage(url)
            #expect(again.status == 404)
            #expect(!again.raw.contains(idToken))
            #expect(form.action == provider.url(.endSession))
            #expect(form.field("id_token_hint") == idToken)
            #expect(form.field("client_id") == EmbeddedProvider.Client.demo.id)
            #expect(form.field("state")?.count == 43)
            let answer = try await Self.post(form)
            #expect(answer.status == 302)
            let back = try #require(answer.header("Location").flatMap(URL.init(string:)))
            #expect(try await RawHTTPClient.request(method: "GET", url: back).body.contains("Signed out"))

            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "stderr: \(process.standardError)")
            let outcome = try jsonObject(process.standardOutput)
            #expect(outcome["end_session"] as? String == "ended")
            #expect(outcome["revocation"] as? String == "revoked")
            #expect(provider.requests(to: .endSession).map(\.method) == ["POST"])
            #expect(try sandbox.storedEntry() == nil)
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))
        }
    }

    @Test(TestFixture.chromium.required)
    func aRealBrowserRunsThePagesScriptUnderItsPolicyAndPostsTheRequest() async throws {
        try await BrowserTurns.withTurn {
            try await EmbeddedProvider.withProvider { provider in
                var (sandbox, entry) = try await Self.signedIn(provider)
                defer { sandbox.remove() }
                let launcher = try TestBrowsers.makeChromiumLauncherScript()
                defer { launcher.terminate() }
                sandbox.extraEnvironment["BROWSER"] = launcher.scriptPath
                let result = try await sandbox.run(
                    ["logout", "--end-session", "--store", "file", "--json", "--timeout", "60"])
                #expect(result.status == 0, "stderr: \(result.stderr)")
                #expect(try jsonObject(result.stdout)["end_session"] as? String == "ended")
                // Headless Chromium ran the auto-submit: the provider got the form, not a query.
                let requests = provider.requests(to: .endSession)
                #expect(requests.map(\.method) == ["POST"])
                #expect(requests.map(\.status) == [302])
                #expect(!containsSecret(result.stdout + result.stderr, of: entry))
            }
        }
    }

    @Test func theProvidersSessionEndsThenTheTokensAreRevokedAndForgotten() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let (sandbox, entry) = try await Self.signedIn(provider)
            defer { sandbox.remove() }
            let (process, url) = try await Self.startLogout(sandbox, ["--json"])
            let (form, _) = try await Self.fetchPage(url)
            #expect(form.field("id_token_hint") == entry.tokens.idToken)

            // The browser posts the form and follows the provider's redirect back to the listener.
            let answer = try await Self.post(form)
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
            let redirect = try #require(try await Self.fetchPage(url).0.field("post_logout_redirect_uri"))
            _ = try await RawHTTPClient.request(method: "GET", url: try #require(URL(string: redirect)))

            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == ExitStatus.endSessionFailed, "stderr: \(process.standardError)")
            #expect(process.standardError.contains("signing out of the provider failed"))
            #expect(process.standardError.contains("no state"))
            // One sentence says what happened to the tokens: the revocation's.
            #expect(process.standardError.contains("Revoked the tokens at the provider and signed out of profile"))
            #expect(!process.standardError.contains("still revoked"))
            #expect(try sandbox.storedEntry() == nil)
            #expect(!provider.isActive(accessToken: entry.tokens.accessToken))
        }
    }

    @Test func withoutTheHintTheBrowserOpensTheEndSessionAddressWithoutTheIDToken() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let (sandbox, entry) = try await Self.signedIn(provider)
            defer { sandbox.remove() }
            let idToken = try #require(entry.tokens.idToken)
            let (process, url) = try await Self.startLogout(sandbox, ["--without-id-token-hint", "--timeout", "2"])
            let argv = try await waitForFile(sandbox.root + "/browser-argv")
            #expect(!Self.holdsPart(of: idToken, in: argv))
            #expect(url.path == EmbeddedProvider.Endpoint.endSession.path)
            let query = CallbackParameters(url).query
            #expect(query["id_token_hint"] == nil)
            #expect(query["client_id"] == EmbeddedProvider.Client.demo.id)
            #expect(query["post_logout_redirect_uri"] != nil)
            #expect(query["state"]?.count == 43)
            // This provider needs the hint, so it refuses; a provider that asks the person would not.
            #expect(try await RawHTTPClient.request(method: "GET", url: url).status == 400)

            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == ExitStatus.endSessionFailed, "stderr: \(process.standardError)")
            #expect(try sandbox.storedEntry() == nil)
            // Signed out here all the same, so running it again could not help: the advice is
            // what a person can still do.
            #expect(
                process.standardError.contains(
                    "sign out at the provider by hand: open \(provider.issuer.absoluteString) in the browser and sign "
                        + "out there"), "\(process.standardError)")
            #expect(!process.standardError.contains("again"), "\(process.standardError)")
        }
    }

    @Test func theWaitForTheProviderDefaultsToTwoMinutes() throws {
        #expect(try LogoutCommand.parse(["--end-session"]).timeout == 120)
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
