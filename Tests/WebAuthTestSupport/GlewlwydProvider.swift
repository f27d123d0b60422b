// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthEmbeddedProvider
public import WebAuthOAuth
import WebAuthPlatform
import WebAuthProcess
import WebAuthSignIn

/// glewlwyd — Debian's single sign-on server, a C implementation independent of this package —
/// for end-to-end tests of pushed authorization requests (RFC 9126; glewlwyd follows draft 05)
/// and DPoP (RFC 9449; glewlwyd follows draft 07).
///
/// `Tests/Fixtures/glewlwyd/launch.py` starts it on `127.0.0.1` with a fresh SQLite database
/// made from the package's schema, and configures it through its admin REST API: an OpenID
/// Connect plugin that requires pushed requests and DPoP nonces, a confidential client
/// (`client_secret_basic`) and a person who signs in on glewlwyd's own login page.
///
/// ```swift
/// try await GlewlwydProvider.withProvider { provider in
///     let tokens = try await provider.signIn(with: try provider.client())
/// }
/// ```
///
/// Where glewlwyd's draft-era behaviour differs from the RFCs (the tests follow the RFCs):
/// - its metadata has no `dpop_signing_alg_values_supported` (RFC 9449 §5.1), so the client
///   sends ES256 proofs because it is configured to;
/// - an authorization request that was not pushed is answered `403` with no body, where
///   RFC 9126 §5 leaves the error open and RFC 6749 would redirect with `invalid_request`;
/// - it registers exact redirect URIs only, so the client's loopback port is fixed, not any
///   port (RFC 8252 §7.3);
/// - revocation takes `client_secret_basic` only and checks no DPoP proof;
/// - a revoked refresh token is answered with a bare `400`, without the RFC 6749 §5.2 error body;
/// - its UserInfo endpoint takes a DPoP-bound access token with a proof signed by another key
///   (RFC 9449 §7.1 asks the resource server to check the proof's key against `cnf.jkt`); the
///   embedded provider refuses it, and the client never sends one.
/// - dynamic client registration (RFC 7591, RFC 7592), which the launcher turns on on request: see
///   ``withRegistration(_:_:)``.
///
/// JWT client authentication (RFC 7523 §2.2, OpenID Connect Core §9): the launcher also
/// registers a `private_key_jwt` client (``jwtKeyClientID``, with the JWKS of a P-256 key whose
/// private half is ``clientKeyFile``) and a `client_secret_jwt` client (``jwtSecretClientID``).
/// glewlwyd accepts both, ES256 and HS256, at the token, pushed authorization and revocation
/// endpoints, but:
/// - the assertion's `aud` must be the URL of the endpoint it is sent to (`…/token`, `…/par`,
///   `…/revoke`, `…/device_authorization`), not the issuer identifier that current guidance
///   asks for (RFC 7523 §3 allows the token endpoint's URL); an assertion for the issuer is
///   refused, so the client uses ``ClientAssertionAudience/endpoint``;
/// - a `private_key_jwt` assertion must name its key with `kid` (RFC 7523 does not require it),
///   and the key must be in the client's registered `jwks`;
/// - assertions are taken only when the plugin allows request objects
///   (`request-parameter-allow`); only then does the metadata list `client_secret_jwt` and
///   `private_key_jwt`;
/// - `exp` may lie up to an hour ahead (`request-maximum-exp`); `jti` is required and accepted once;
/// - a refused assertion at the token endpoint is answered with a bare `403`, without the RFC 6749
///   §5.2 `invalid_client` body;
/// - the client credentials grant needs the plugin's `allow-non-oidc`.
public final class GlewlwydProvider: Sendable {
    /// The issuer: `http://127.0.0.1:{port}/api/oidc`.
    public let issuer: URL
    /// The confidential client's ID.
    public let clientID: String
    /// Its secret.
    public let clientSecret: String
    /// The one redirect URI the client is registered with: `http://127.0.0.1:{port}/callback`.
    public let redirectURI: URL
    /// The person's username.
    public let username: String
    /// The person's password.
    public let password: String
    /// The launch's private directory: database, configuration, key, logs. Deleted by ``stop()``.
    public let dataDirectory: URL
    /// The `private_key_jwt` client's ID.
    public let jwtKeyClientID: String
    /// Its private key (PEM, mode 0600), inside ``dataDirectory``.
    public let clientKeyFile: URL
    /// The `kid` its key is registered under.
    public let clientKeyID: String
    /// The `client_secret_jwt` client's ID.
    public let jwtSecretClientID: String
    /// Its secret.
    public let jwtSecret: String

    private let launcher: Subprocess
    private let stopped = Locked(false)

    /// The fixture's launcher, found from this file.
    static let launchPy: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/WebAuthTestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/glewlwyd/launch.py").path

    /// What the launcher wrote to `fixture.json`.
    private struct FixtureOutput: Decodable {
        var issuer: String
        var clientID: String
        var clientSecret: String
        var redirectURI: String
        var username: String
        var password: String
        var jwtKeyClientID: String
        var clientKeyFile: String
        var clientKeyID: String
        var jwtSecretClientID: String
        var jwtSecret: String
    }

    private init(fixture: FixtureOutput, dataDirectory: URL, launcher: Subprocess) {
        issuer = URL(string: fixture.issuer)!
        clientID = fixture.clientID
        clientSecret = fixture.clientSecret
        redirectURI = URL(string: fixture.redirectURI)!
        username = fixture.username
        password = fixture.password
        jwtKeyClientID = fixture.jwtKeyClientID
        clientKeyFile = URL(fileURLWithPath: fixture.clientKeyFile)
        clientKeyID = fixture.clientKeyID
        jwtSecretClientID = fixture.jwtSecretClientID
        jwtSecret = fixture.jwtSecret
        self.dataDirectory = dataDirectory
        self.launcher = launcher
    }

    deinit {
        if !stopped.withLock({ $0 }) {
            launcher.send(SIGKILL)
            try? FileManager.default.removeItem(at: dataDirectory)
        }
    }

    /// A client for the fixture's confidential client, with pushed requests and DPoP
    /// (a persistent key) as `configure` leaves them.
    public func client(_ configure: (inout ClientConfiguration) -> Void = { _ in }) throws -> OAuthClient {
        var configuration = ClientConfiguration(
            issuer: issuer, clientID: clientID, clientSecret: clientSecret, scopes: ["openid"],
            redirectURI: redirectURI, usePushedAuthorization: .automatic, dpop: .persistent)
        configure(&configuration)
        return try OAuthClient(configuration: configuration)
    }

    /// A client for the `private_key_jwt` client (its key read from ``clientKeyFile``, named by
    /// ``clientKeyID``; `aud` the URL of each endpoint, as glewlwyd wants), with pushed
    /// requests and DPoP as `configure` leaves them.
    public func privateKeyJWTClient(
        _ configure: (inout ClientConfiguration) -> Void = { _ in }
    ) throws -> OAuthClient {
        var configuration = ClientConfiguration(
            issuer: issuer, clientID: jwtKeyClientID, scopes: ["openid"], redirectURI: redirectURI,
            clientAuthentication: .privateKeyJWT, usePushedAuthorization: .automatic, dpop: .persistent,
            clientKey: try ClientAssertionKey.load(from: clientKeyFile, keyID: clientKeyID),
            clientAssertionAudience: .endpoint)
        configure(&configuration)
        return try OAuthClient(configuration: configuration)
    }

    /// A client for the `client_secret_jwt` client (`aud` the URL of each endpoint), with
    /// pushed requests and DPoP as `configure` leaves them.
    public func clientSecretJWTClient(
        _ configure: (inout ClientConfiguration) -> Void = { _ in }
    ) throws -> OAuthClient {
        var configuration = ClientConfiguration(
            issuer: issuer, clientID: jwtSecretClientID, clientSecret: jwtSecret, scopes: ["openid"],
            redirectURI: redirectURI, clientAuthentication: .clientSecretJWT, usePushedAuthorization: .automatic,
            dpop: .persistent, clientAssertionAudience: .endpoint)
        configure(&configuration)
        return try OAuthClient(configuration: configuration)
    }

    /// The end of glewlwyd's log, for a failing test's message.
    public func recentLog(lines: Int = 40) -> String {
        IndependentProvider.tail(of: dataDirectory.appendingPathComponent("glewlwyd.log"), lines: lines)
    }

    // MARK: - Starting and stopping

    /// Starts glewlwyd on free loopback ports and waits until it is configured.
    ///
    /// The port is free when it is chosen, but glewlwyd binds it only after the launcher has
    /// made the database and a 2048-bit key, seconds later on a loaded machine; on one running
    /// many tests at once (the sanitizer runs) another test's listener can take the port in
    /// between, and glewlwyd exits with status 2 ("MHD - Failed to bind to port …: Address
    /// already in use" in its log). That launch is retried once, on fresh ports; any other
    /// failure, or a second one, is thrown with the logs of every attempt.
    ///
    /// - Parameters:
    ///   - timeout: How long each launch may take.
    ///   - launchEnvironment: Variables for the launcher on top of this process's environment,
    ///     such as `WEBAUTH_GLEWLWYD_REGISTRATION` (``withRegistration(_:_:)``).
    /// - Throws: ``IndependentProviderError`` when glewlwyd, python3 or openssl is missing, or
    ///   the launch fails or takes longer than `timeout` (with the end of its logs).
    public static func start(
        timeout: Duration = .seconds(90), launchEnvironment: [String: String] = [:]
    ) async throws -> GlewlwydProvider {
        // The launcher's output (its error last), glewlwyd's standard output, and glewlwyd's
        // log, which alone says why it stopped; MHD, its HTTP server, logs a port taken there.
        let launcher = FixtureLauncher(
            name: "glewlwyd", script: launchPy, directoryPrefix: "webauth-glewlwyd", environment: launchEnvironment,
            portLog: "glewlwyd.log", portTakenMessage: "Failed to bind to port", grace: .seconds(2),
            logs: { directory in
                IndependentProvider.tail(of: directory.appendingPathComponent("launch.log"), lines: 30) + "\n"
                    + IndependentProvider.tail(of: directory.appendingPathComponent("glewlwyd.out"), lines: 20)
                    + "\nglewlwyd.log:\n"
                    + IndependentProvider.tail(of: directory.appendingPathComponent("glewlwyd.log"), lines: 20)
            })
        return try await launcher.start(timeout: timeout) { data, directory, process in
            GlewlwydProvider(
                fixture: try JSONDecoder().decode(FixtureOutput.self, from: data), dataDirectory: directory,
                launcher: process)
        }
    }

    /// Stops glewlwyd (the launcher's whole process group) and deletes ``dataDirectory``.
    public func stop() async {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        await launcher.terminate(grace: .seconds(3))
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// Starts glewlwyd, runs `body` with it, and stops it however `body` ends.
    public static func withProvider<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (GlewlwydProvider) async throws -> Result
    ) async throws -> Result {
        let provider = try await start()
        return try await withShutdown(of: provider, shutdown: { await $0.stop() }, body)
    }

    // MARK: - The person

    /// Signs in with `client` in a headless Chromium, playing the person on glewlwyd's login
    /// page (username, password, then Continue), and returns the tokens.
    package func signIn(with client: OAuthClient) async throws -> TokenSet {
        try await BrowserTurns.withTurn {
            do {
                return try await ChromiumPageDriver.signIn(with: client) { page in
                    try await self.logIn(on: page)
                }
            } catch let error as OAuthError {
                throw IndependentProviderError("sign-in failed: \(error)\nglewlwyd's log:\n\(recentLog())")
            }
        }
    }

    /// The login page: a React application, so the fields are set through the input's own
    /// value setter (React ignores a plain assignment), then OK, then Continue.
    package func logIn(on page: ChromiumPage, within limit: Duration = .seconds(60)) async throws {
        try await page.waitForPage(path: "/login.html", within: limit)
        try await page.waitForElement("#password", within: limit)
        let script = """
            (() => {
                const set = (element, value) => {
                    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(element, value);
                    element.dispatchEvent(new Event('input', { bubbles: true }));
                };
                const username = document.querySelector('#username');
                if (!username.disabled) set(username, \(ChromiumPage.literal(self.username)));
                set(document.querySelector('#password'), \(ChromiumPage.literal(self.password)));
                return 'ok';
            })()
            """
        _ = try await page.evaluate(script)
        try await page.click("#loginbut")
        try await page.waitForElement("button.btn-success", within: limit)
        try await page.click("button.btn-success")
    }
}
