// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth` run as processes against LemonLDAP::NG, Debian's Perl single sign-on, as an
/// OpenID Connect provider: every flow its metadata advertises — the authorization code grant
/// with PKCE, refresh, `offline_access`, the client credentials grant, RP-initiated logout and
/// dynamic client registration — with a person played in a headless Chromium on the portal's
/// own login, consent and logout pages, and `webauth`'s refusal of the flows it lacks. Where
/// LemonLDAP::NG differs from the specifications is listed at ``LemonLDAPProvider``.
@Suite(
    "webauth against LemonLDAP::NG, run as processes", .serialized, TestFixture.lemonLDAP.required,
    TestFixture.chromium.required)
struct LemonLDAPProcessTests {
    /// More than an access token lives, so that `webauth token` refreshes at once.
    static let forceRefresh = ["--min-validity", "86400"]

    /// `webauth login` for the public client, in the file store, with the recording browser.
    static func loginArguments(
        _ provider: LemonLDAPProvider, _ sandbox: ProfileSandbox, profile: String, scopes: [String]
    ) throws -> [String] {
        [
            "login", "--issuer", provider.issuer.absoluteString, "--client-id", provider.publicClientID,
            "--redirect-uri", provider.redirectURI.absoluteString, "--store", "file", "--profile", profile,
            "--browser", try sandbox.recordingBrowser(), "--timeout", "120",
        ] + scopes.flatMap { ["--scope", $0] }
    }

    /// Starts `arguments` (a command that opens a browser) and returns the process with the
    /// URL it gave the recording browser; fails with its standard error if it ends first.
    static func startForBrowser(_ arguments: [String], in sandbox: ProfileSandbox) async throws -> (CLIProcess, URL) {
        let urlFile = sandbox.root + "/browser-url"
        try? FileManager.default.removeItem(atPath: urlFile)
        let process = try sandbox.start(arguments)
        var url: URL?
        _ = await eventually(within: .seconds(60)) {
            url = (try? String(contentsOfFile: urlFile, encoding: .utf8)).flatMap(URL.init(string:))
            return url != nil || process.hasExited
        }
        if let url { return (process, url) }
        if process.hasExited {
            let status = try await process.waitForExit()
            throw CLITestError(
                "`webauth \(arguments[0])` exited \(status) before opening a browser:\n\(process.standardError)")
        }
        process.send(SIGTERM)
        throw CLITestError("`webauth \(arguments[0])` opened no browser within 60 s:\n\(process.standardError)")
    }

    /// Signs `profile` in with `webauth login`, the person playing in `page`; returns the stored
    /// entry, the authorization URL and the portal pages the person met.
    static func signIn(
        _ provider: LemonLDAPProvider, _ sandbox: ProfileSandbox, page: ChromiumPage, profile: String,
        scopes: [String] = ["openid", "profile", "email"], extra: [String] = []
    ) async throws -> (entry: StoredTokens, url: URL, met: [LemonLDAPProvider.PortalPage]) {
        let arguments = try loginArguments(provider, sandbox, profile: profile, scopes: scopes) + extra
        let (process, url) = try await startForBrowser(arguments, in: sandbox)
        let met = try await provider.act(at: url, on: page)
        let status = try await process.waitForExit(timeout: .seconds(90))
        try #require(status == 0, "login \(profile): \(process.standardError)\n\(provider.recentLog())")
        let entry = try #require(try sandbox.storedEntry(profile))
        #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))
        return (entry, url, met)
    }

    /// Signs `profile` out with `webauth logout --end-session`, the person confirming in `page`.
    static func endSession(
        _ provider: LemonLDAPProvider, _ sandbox: ProfileSandbox, page: ChromiumPage, profile: String
    ) async throws -> (status: Int32, stderr: String, json: [String: Any], met: [LemonLDAPProvider.PortalPage]) {
        let arguments = [
            "logout", "--end-session", "--profile", profile, "--store", "file", "--json", "--browser",
            try sandbox.recordingBrowser(), "--timeout", "90",
        ]
        let (process, url) = try await startForBrowser(arguments, in: sandbox)
        #expect(url.host == "127.0.0.1" && !url.absoluteString.contains("id_token_hint"), "a one-use page")
        let met = try await provider.act(at: url, on: page)
        let status = try await process.waitForExit(timeout: .seconds(90))
        return (status, process.standardError, try jsonObject(process.standardOutput), met)
    }

    /// Checks that the provider's UserInfo endpoint takes `accessToken`, as the test person's.
    static func expectTaken(
        _ accessToken: String, by provider: LemonLDAPProvider, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let answer = try await provider.userInfo(accessToken: accessToken)
        #expect(answer.status == 200, "UserInfo answered \(answer.status)", sourceLocation: sourceLocation)
        #expect(answer.subject == provider.username, sourceLocation: sourceLocation)
    }

    /// The query items of `url`, by name.
    static func query(_ url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }) { first, _ in first }
    }

    // MARK: The authorization code grant, refresh

    @Test func aSignInWithPKCEIsStoredTakenByUserInfoAndRefreshed() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await LemonLDAPProvider.withProvider { provider in
            let (entry, url, met) = try await provider.withBrowser { page in
                try await Self.signIn(provider, sandbox, page: page, profile: "work")
            }
            #expect(met == [.login, .consent], "the portal's login form, then its consent page")
            let request = Self.query(url)
            #expect(request["code_challenge_method"] == "S256")
            #expect(request["code_challenge"]?.count == 43)
            #expect(request["redirect_uri"] == provider.redirectURI.absoluteString)
            let claims = try #require(entry.tokens.idTokenClaims)
            #expect(claims.subject == provider.username)
            #expect(claims.audience.contains(provider.publicClientID))
            #expect(entry.tokens.refreshToken != nil, "the client may refresh")
            try await Self.expectTaken(entry.tokens.accessToken, by: provider)

            // A forced refresh: a new access token, which the provider takes, stored.
            let token = try await sandbox.run(["token", "--profile", "work"] + Self.forceRefresh)
            #expect(token.status == 0, "\(token.stderr)")
            let refreshed = try #require(try sandbox.storedEntry("work"))
            // Compared apart, so that a failure prints no token.
            let printedStored = token.stdout == refreshed.tokens.accessToken + "\n"
            let renewed = refreshed.tokens.accessToken != entry.tokens.accessToken
            #expect(printedStored, "the token printed is the one stored")
            #expect(renewed, "a new access token")
            try await Self.expectTaken(refreshed.tokens.accessToken, by: provider)
            #expect(!containsSecret(token.stderr, of: entry) && !containsSecret(token.stderr, of: refreshed))

            // Within its lifetime the token comes from the store, with no request.
            let again = try await sandbox.run(["token", "--profile", "work"])
            let same = again.stdout == token.stdout
            #expect(again.status == 0, "\(again.stderr)")
            #expect(same, "the stored token, unchanged")
        }
    }

    // MARK: RP-initiated logout, offline_access

    @Test func rpLogoutEndsThePortalSessionAndTheRefreshTokensTiedToIt() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await LemonLDAPProvider.withProvider { provider in
            try await provider.withBrowser { page in
                // Signed in at the portal first (see logInAtPortal for why): one portal session
                // signs both profiles in with no password.
                try await provider.logInAtPortal(on: page)
                let work = try await Self.signIn(provider, sandbox, page: page, profile: "work")
                let other = try await Self.signIn(provider, sandbox, page: page, profile: "other")
                #expect(!work.met.contains(.login) && !other.met.contains(.login), "\(work.met), \(other.met)")

                let logout = try await Self.endSession(provider, sandbox, page: page, profile: "work")
                #expect(logout.status == 0, "\(logout.stderr)\n\(provider.recentLog())")
                #expect(logout.met == [.logout], "the portal asks to confirm, then sends the browser back")
                #expect(logout.json["end_session"] as? String == "ended")
                #expect(logout.json["revocation"] as? String == "unsupported")
                #expect(logout.stderr.contains("the provider has no revocation endpoint"))
                #expect(try sandbox.storedEntry("work") == nil)
                #expect(!containsSecret(logout.stderr, of: work.entry))

                // The portal session is gone: its access token is refused, and the other
                // profile's refresh token, tied to the session, too.
                #expect(try await provider.userInfo(accessToken: work.entry.tokens.accessToken).status == 401)
                let refresh = try await sandbox.run(["token", "--profile", "other"] + Self.forceRefresh)
                #expect(refresh.status == ExitStatus.providerRefused, "\(refresh.stderr)")
                #expect(refresh.stderr.contains("the provider refused the refresh token (invalid_grant)"))
                #expect(refresh.stderr.contains("webauth login --profile other"))

                // Signing in again asks for the password.
                let again = try await Self.signIn(provider, sandbox, page: page, profile: "work")
                #expect(again.met.first == .login, "\(again.met)")
            }
        }
    }

    /// OpenID Connect Core §11: an `offline_access` refresh token outlives the provider session.
    /// LemonLDAP::NG honours the scope only with `prompt=consent`, and drops it silently
    /// otherwise: then the refresh token dies with the session like any other.
    @Test func anOfflineAccessRefreshTokenSurvivesRPLogout() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await LemonLDAPProvider.withProvider { provider in
            try await provider.withBrowser { page in
                try await provider.logInAtPortal(on: page)
                let offline = try await Self.signIn(
                    provider, sandbox, page: page, profile: "offline", scopes: ["openid", "offline_access"])
                #expect(offline.met.contains(.consent), "offline access is consented to: \(offline.met)")
                let prompt = Self.query(offline.url)["prompt"] ?? ""
                #expect(
                    prompt.split(separator: " ").contains("consent"),
                    "offline_access is asked for with prompt=consent (OpenID Connect Core §11); prompt: \(prompt)")
                _ = try await Self.signIn(provider, sandbox, page: page, profile: "online", scopes: ["openid"])

                let logout = try await Self.endSession(provider, sandbox, page: page, profile: "online")
                #expect(logout.status == 0, "\(logout.stderr)")
                #expect(logout.json["end_session"] as? String == "ended")

                let token = try await sandbox.run(["token", "--profile", "offline"] + Self.forceRefresh)
                try #require(token.status == 0, "the offline refresh token outlives the session: \(token.stderr)")
                let refreshed = try #require(try sandbox.storedEntry("offline"))
                let printedStored = token.stdout == refreshed.tokens.accessToken + "\n"
                let renewed = refreshed.tokens.accessToken != offline.entry.tokens.accessToken
                #expect(printedStored, "the token printed is the one stored")
                #expect(renewed, "a new access token")
                try await Self.expectTaken(refreshed.tokens.accessToken, by: provider)
            }
        }
    }

    // MARK: The client credentials grant

    @Test func theConfidentialClientSignsInAsItselfWithNoBrowser() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        // A browser that would record its run, had one been opened.
        sandbox.extraEnvironment["BROWSER"] = try sandbox.recordingBrowser()
        try await LemonLDAPProvider.withProvider { provider in
            let login = try sandbox.start([
                "login", "--client-credentials", "--issuer", provider.issuer.absoluteString, "--client-id",
                provider.machineClientID, "--client-secret", "-", "--scope", "openid", "--store", "file",
                "--profile", "machine",
            ])
            login.finishInput(Array((provider.machineClientSecret + "\n").utf8))
            let status = try await login.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "\(login.standardError)\n\(provider.recentLog())")
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/browser-url"), "no browser")
            let entry = try #require(try sandbox.storedEntry("machine"))
            #expect(entry.tokens.refreshToken == nil)
            let secretShown = login.standardError.contains(provider.machineClientSecret)
            #expect(!secretShown, "the client secret is not shown")
            #expect(!containsSecret(login.standardOutput + login.standardError, of: entry))

            let token = try await sandbox.run(["token", "--profile", "machine"])
            #expect(token.status == 0, "\(token.stderr)")
            let printedStored = token.stdout == entry.tokens.accessToken + "\n"
            #expect(printedStored, "the token printed is the one stored")
            let introspection = try await provider.introspect(entry.tokens.accessToken)
            #expect(introspection.active)
            #expect(introspection.clientID == provider.machineClientID)
        }
    }

    // MARK: Dynamic client registration

    @Test func aRegisteredClientSignsInOnTheBoundPortAndIsForgottenOnUnregister() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await LemonLDAPProvider.withProvider { provider in
            let arguments = [
                "login", "--register", "--issuer", provider.issuer.absoluteString, "--scope", "openid", "--store",
                "file", "--profile", "registered", "--browser", try sandbox.recordingBrowser(), "--timeout", "120",
            ]
            let (process, url, met) = try await provider.withBrowser { page in
                let (process, url) = try await Self.startForBrowser(arguments, in: sandbox)
                return (process, url, try await provider.act(at: url, on: page))
            }
            let status = try await process.waitForExit(timeout: .seconds(90))
            #expect(status == 0, "\(process.standardError)\n\(provider.recentLog())")
            #expect(met == [.login, .consent], "\(met)")
            let redirectURI = try #require(Self.query(url)["redirect_uri"].flatMap(URL.init(string:)))
            #expect(redirectURI.port != nil, "the registered redirect URI names the bound port: \(redirectURI)")

            let entry = try #require(try sandbox.storedEntry("registered"))
            let registration = try #require(entry.registration)
            #expect(entry.clientID == registration.clientID)
            #expect(registration.clientID != provider.publicClientID)
            #expect(process.standardError.contains("registered client \(registration.clientID)"))
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))
            let secretShown = registration.clientSecret.map { process.standardError.contains($0) } ?? false
            #expect(!secretShown, "the registered client's secret is not shown")
            try await Self.expectTaken(entry.tokens.accessToken, by: provider)

            // LemonLDAP::NG offers no RFC 7592 management: the client is forgotten here only.
            let logout = try await sandbox.run(["logout", "--profile", "registered", "--unregister", "--json"])
            #expect(logout.status == 0, "\(logout.stderr)")
            #expect(try jsonObject(logout.stdout)["unregistration"] as? String == "unsupported")
            #expect(logout.stderr.contains("stays registered there"))
            #expect(try sandbox.storedEntry("registered") == nil)
        }
    }

    // MARK: What LemonLDAP::NG lacks

    @Test func theFlowsLemonLDAPLacksAreRefusedPlainly() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        sandbox.extraEnvironment["BROWSER"] = try sandbox.recordingBrowser()
        try await LemonLDAPProvider.withProvider { provider in
            let login = [
                "login", "--issuer", provider.issuer.absoluteString, "--client-id", provider.publicClientID,
                "--redirect-uri", provider.redirectURI.absoluteString, "--scope", "openid", "--store", "file",
                "--profile", "lacking",
            ]
            // No device authorization endpoint (RFC 8628), no pushed authorization requests
            // (RFC 9126): refused before any browser opens.
            let device = try await sandbox.run(login + ["--device"])
            #expect(device.status == ExitStatus.providerError, "\(device.stderr)")
            #expect(device.stderr.contains("the provider has no device authorization endpoint"), "\(device.stderr)")
            let pushed = try await sandbox.run(login + ["--par", "always"])
            #expect(pushed.status == ExitStatus.providerError, "\(pushed.stderr)")
            #expect(
                pushed.stderr.contains("the provider has no pushed authorization request endpoint"), "\(pushed.stderr)")
            #expect(try sandbox.storedEntry("lacking") == nil)
            #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/browser-url"), "no browser opened")

            // No token exchange (RFC 8693): the provider's refusal, said as such.
            let machine = try sandbox.start([
                "login", "--client-credentials", "--issuer", provider.issuer.absoluteString, "--client-id",
                provider.machineClientID, "--client-secret", "-", "--store", "file", "--profile", "machine",
            ])
            machine.finishInput(Array((provider.machineClientSecret + "\n").utf8))
            try #require(try await machine.waitForExit() == 0, "\(machine.standardError)")
            let exchange = try await sandbox.run([
                "token", "--profile", "machine", "--audience", "https://api.example.com",
            ])
            #expect(exchange.status == ExitStatus.providerError, "\(exchange.stderr)")
            #expect(exchange.stderr.contains("the provider could not do the token exchange"), "\(exchange.stderr)")
            #expect(exchange.stdout.isEmpty)

            // No DPoP (RFC 9449): the sign-in goes through the browser, and the Bearer tokens
            // the provider answers with are refused, not stored.
            let (process, url) = try await Self.startForBrowser(
                login + ["--dpop", "--browser", try sandbox.recordingBrowser(), "--timeout", "120"], in: sandbox)
            _ = try await provider.withBrowser { page in try await provider.act(at: url, on: page) }
            let status = try await process.waitForExit(timeout: .seconds(90))
            #expect(status == ExitStatus.providerError, "\(process.standardError)")
            #expect(
                process.standardError.contains("a DPoP proof was sent, but the provider issued a 'Bearer' token"),
                "\(process.standardError)")
            #expect(try sandbox.storedEntry("lacking") == nil)
        }
    }
}
