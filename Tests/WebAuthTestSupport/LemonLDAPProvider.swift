// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import HTTPTypes
import WebAuthCore
import WebAuthEmbeddedProvider
import WebAuthPlatform
import WebAuthProcess

/// LemonLDAP::NG — Debian's web single sign-on in Perl, an implementation independent of this
/// package — as an OpenID Connect provider for end-to-end tests of `webauth` run as processes.
///
/// `Tests/Fixtures/lemonldap/launch.py` starts the package's FastCGI server behind nginx on
/// `127.0.0.1`, everything (configuration, sessions, logs, nginx's files, the signing key) in a
/// private directory, and configures it through LemonLDAP::NG's own files: `lemonldap-ng.ini`
/// and the File backend's `lmConf-1.json`. People sign in on the portal's real login page
/// (the Demo backend: `dwho`/`dwho`, `rtyler`/`rtyler`) and consent on its real consent page.
///
/// ```swift
/// try await LemonLDAPProvider.withProvider { provider in
///     // provider.issuer is http://127.0.0.1:{port}
/// }
/// ```
///
/// What its metadata advertises, and so what the tests cover: the authorization code grant
/// (PKCE required of ``publicClientID``), refresh tokens, `offline_access`, the client
/// credentials grant (``machineClientID``), RP-initiated logout, dynamic client registration,
/// and introspection. It has no device authorization endpoint, no pushed authorization requests,
/// no DPoP, no revocation endpoint and no token exchange.
///
/// Where LemonLDAP::NG (2.16, Debian 12's package) differs from the specifications:
/// - it compares redirect URIs exactly, so the public client's loopback port is fixed
///   (``redirectURI``), not any port (RFC 8252 §7.3);
/// - it honours `offline_access` only when the request also carries `prompt=consent` (or the
///   client skips consent), as OpenID Connect Core §11 says, and otherwise drops the scope
///   silently: the refresh token then dies with the provider session;
/// - it reads HTTP Basic client credentials without form-decoding them (RFC 6749 §2.3.1), and
///   only as far as the first `+`, `/` or `=` of their Base64: a client whose ID or secret has a
///   character that form-encoding changes, or whose credentials encode to a `+` or `/`, is
///   refused (`invalid_client`); `client_secret_post` works. The fixture's secret is chosen to
///   pass; the secrets registration hands out (30 characters from `[A-Za-z0-9./]`) mostly fail;
/// - its registration answer sends `client_id_issued_at` as a JSON string, not a number
///   (RFC 7591 §3.2.1), and `logo_uri` as `null`; it ignores `token_endpoint_auth_method` and
///   registers every client as confidential with a secret, without saying which method (RFC 7591
///   §2's default, `client_secret_basic`, applies), and offers no management (RFC 7592); two
///   registrations in the same second overwrite each other (the client is stored as
///   `register-<time>`);
/// - a sign-in that starts at an authorization request leaves its address in the browser's
///   `lemonldappdata` cookie, and an RP-initiated logout in that browser then ends at the portal
///   instead of the `post_logout_redirect_uri` (see ``logInAtPortal(on:within:)``);
/// - a token exchange request (RFC 8693) is answered `invalid_request`, not
///   `unsupported_grant_type` (RFC 6749 §5.2);
/// - its metadata lists neither `none` among `token_endpoint_auth_methods_supported`, though
///   public clients are taken, nor `offline_access` among `scopes_supported`.
public final class LemonLDAPProvider: Sendable {
    /// The issuer: `http://127.0.0.1:{port}`.
    public let issuer: URL
    /// nginx's port.
    public let port: Int
    /// The public client: PKCE required, refresh tokens and `offline_access` allowed.
    public let publicClientID: String
    /// The confidential client allowed the client credentials grant.
    public let machineClientID: String
    /// Its secret.
    public let machineClientSecret: String
    /// The public client's one redirect URI, also its post-logout redirect URI:
    /// `http://127.0.0.1:{redirect port}/callback`.
    public let redirectURI: URL
    /// The person who signs in.
    public let username: String
    /// Their password.
    public let password: String
    /// How long access tokens live, in seconds.
    public let accessTokenLifetime: Int
    /// The launch's private directory. Deleted by ``stop()``.
    public let dataDirectory: URL

    private let launcher: Subprocess
    private let stopped = Locked(false)

    /// The fixture's launcher, found from this file.
    static let launchPy: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/WebAuthTestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/lemonldap/launch.py").path

    /// What the launcher wrote to `fixture.json`.
    private struct FixtureOutput: Decodable {
        var issuer: String
        var port: Int
        var publicClientID: String
        var machineClientID: String
        var machineClientSecret: String
        var redirectURI: String
        var username: String
        var password: String
        var accessTokenSeconds: Int
    }

    private init(fixture: FixtureOutput, dataDirectory: URL, launcher: Subprocess) throws {
        guard let issuer = URL(string: fixture.issuer), let redirectURI = URL(string: fixture.redirectURI) else {
            throw IndependentProviderError("LemonLDAP::NG's fixture.json holds no usable URLs")
        }
        self.issuer = issuer
        self.redirectURI = redirectURI
        port = fixture.port
        publicClientID = fixture.publicClientID
        machineClientID = fixture.machineClientID
        machineClientSecret = fixture.machineClientSecret
        username = fixture.username
        password = fixture.password
        accessTokenLifetime = fixture.accessTokenSeconds
        self.dataDirectory = dataDirectory
        self.launcher = launcher
    }

    deinit {
        if !stopped.withLock({ $0 }) {
            launcher.send(SIGKILL)
            try? FileManager.default.removeItem(at: dataDirectory)
        }
    }

    /// The UserInfo endpoint.
    public var userinfoEndpoint: URL { issuer.appendingPathComponent("oauth2/userinfo") }
    /// The introspection endpoint (RFC 7662).
    public var introspectionEndpoint: URL { issuer.appendingPathComponent("oauth2/introspect") }

    /// The end of the portal's log and of nginx's error log, for a failing test's message.
    public func recentLog(lines: Int = 40) -> String {
        "llng.log:\n" + IndependentProvider.tail(of: dataDirectory.appendingPathComponent("llng.log"), lines: lines)
            + "\nnginx-error.log:\n"
            + IndependentProvider.tail(of: dataDirectory.appendingPathComponent("nginx-error.log"), lines: 10)
    }

    // MARK: - Starting and stopping

    /// Starts LemonLDAP::NG on free loopback ports and waits until its discovery document answers.
    ///
    /// The ports are free when chosen, but nginx binds its own only after the launcher has made
    /// a 2048-bit key, a moment later; on a machine running many tests at once another test's
    /// listener can take it in between, and nginx exits ("Address already in use" in its error
    /// log). That launch is retried once, on fresh ports; any other failure, or a second one,
    /// is thrown with the logs of every attempt.
    ///
    /// - Parameter timeout: How long each launch may take.
    /// - Throws: ``IndependentProviderError`` when python3 is missing, or the launch fails or
    ///   takes longer than `timeout` (with the end of its logs).
    public static func start(timeout: Duration = .seconds(90)) async throws -> LemonLDAPProvider {
        let launcher = FixtureLauncher(
            name: "LemonLDAP::NG", script: launchPy, directoryPrefix: "webauth-lemonldap",
            portLog: "nginx-error.log", portTakenMessage: "Address already in use", grace: .seconds(3),
            logs: { directory in
                "launch.log:\n"
                    + IndependentProvider.tail(of: directory.appendingPathComponent("launch.log"), lines: 30)
                    + "\nllng.log:\n"
                    + IndependentProvider.tail(of: directory.appendingPathComponent("llng.log"), lines: 30)
                    + "\nnginx-error.log:\n"
                    + IndependentProvider.tail(of: directory.appendingPathComponent("nginx-error.log"), lines: 10)
            })
        return try await launcher.start(timeout: timeout) { data, directory, process in
            try LemonLDAPProvider(
                fixture: try JSONDecoder().decode(FixtureOutput.self, from: data), dataDirectory: directory,
                launcher: process)
        }
    }

    /// Stops nginx and the FastCGI server (the launcher's whole process group) and deletes
    /// ``dataDirectory``. Safe to call more than once.
    public func stop() async {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        await launcher.terminate(grace: .seconds(5))
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// Starts LemonLDAP::NG, runs `body` with it, and stops it however `body` ends.
    public static func withProvider<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (LemonLDAPProvider) async throws -> Result
    ) async throws -> Result {
        let provider = try await start()
        return try await withShutdown(of: provider, shutdown: { await $0.stop() }, body)
    }

    // MARK: - Checks from outside

    /// The HTTP status of the UserInfo endpoint asked with `accessToken`, and the `sub` it
    /// answered (when it answered 200): whether the provider still takes the token.
    public func userInfo(accessToken: String) async throws -> (status: Int, subject: String?) {
        let answer = try await RawHTTPClient.request(
            method: "GET", url: userinfoEndpoint, headerFields: [.authorization: "Bearer \(accessToken)"])
        let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        return (answer.status, answer.status == 200 ? object?["sub"] as? String : nil)
    }

    /// What the introspection endpoint (RFC 7662) says of `token`, asked as the confidential
    /// client (`client_secret_post`: LemonLDAP::NG does not form-decode HTTP Basic credentials):
    /// `active`, and the `client_id` it was issued to.
    public func introspect(_ token: String) async throws -> (active: Bool, clientID: String?) {
        let form = FormEncoding.encode([
            ("token", token), ("client_id", machineClientID), ("client_secret", machineClientSecret),
        ])
        let answer = try await RawHTTPClient.request(
            method: "POST", url: introspectionEndpoint,
            headerFields: [.contentType: "application/x-www-form-urlencoded"], body: Array(form.utf8))
        guard answer.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        else {
            throw IndependentProviderError("LemonLDAP::NG's introspection endpoint answered \(answer.status)")
        }
        return (object["active"] as? Bool == true, object["client_id"] as? String)
    }
}
