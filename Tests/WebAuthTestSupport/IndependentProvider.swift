// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthEmbeddedProvider
import WebAuthPlatform
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An OAuth 2.0 / OpenID Connect provider written by others, for end-to-end tests: the Django
/// project in `Tests/Fixtures/django-provider`, which serves django-oauth-toolkit 3.4.1 on
/// `http://127.0.0.1:{port}` with a fresh SQLite database, signing key and test user per launch.
///
/// ```swift
/// try await IndependentProvider.withProvider { provider in
///     // provider.issuer is http://127.0.0.1:{port}/o; sign in as provider.username
/// }
/// ```
///
/// What it offers (see the fixture's README.md for the details):
/// - OpenID Connect with RS256 ID tokens, discovery at ``discoveryURL`` (which also names the
///   revocation, introspection and device authorization endpoints) and RFC 8414 metadata at
///   ``authorizationServerMetadataURL``;
/// - the authorization code grant with PKCE required (S256 only), for ``publicClientID`` and for
///   ``confidentialClientID`` (`client_secret_basic` or `client_secret_post`), both registered
///   with ``registeredRedirectURI`` — `http://127.0.0.1/callback`, which admits any port
///   (RFC 8252 §7.3) but only that path;
/// - the RFC 9207 `iss` parameter in authorization responses (unless turned off);
/// - rotating refresh tokens with reuse protection: presenting a rotated-out refresh token fails
///   with `invalid_grant` and revokes its whole family, the newest tokens included;
/// - revocation (RFC 7009), userinfo with profile and email claims, and the device authorization
///   grant (RFC 8628) for ``deviceClientID``;
/// - a sign-in page (``LoginPage``) and DOT's consent page (``ConsentPage``) for a browser.
///
/// It needs ``TestFixture/python`` with django-oauth-toolkit 3.4.1 (`scripts/test` installs it, and
/// tests that use it carry ``TestFixture/djangoProvider``'s trait); without it,
/// ``start(authorizationResponseIssuer:devicePollingInterval:accessTokenLifetime:python:timeout:)`` fails saying how to install
/// it. Every program runs through `Subprocess`; the server leads a process group of its own and
/// ``stop()`` ends it and deletes the launch's directory.
public final class IndependentProvider: Sendable {
    /// The issuer: `http://127.0.0.1:{port}/o`, exactly as the provider writes it.
    public let issuer: URL
    /// The port the provider listens on, on 127.0.0.1 only.
    public let port: Int
    /// The test user's username.
    public let username: String
    /// The test user's password.
    public let password: String
    /// A public client (no secret) for the authorization code grant; consent is asked every time.
    public let publicClientID: String
    /// A confidential client for the authorization code grant; consent is asked every time.
    public let confidentialClientID: String
    /// The plain secret of ``confidentialClientID`` (the provider keeps only its hash).
    public let confidentialClientSecret: String
    /// A public client for the device authorization grant.
    public let deviceClientID: String
    /// A confidential client for the client credentials grant (RFC 6749 §4.4) only.
    public let machineClientID: String
    /// The plain secret of ``machineClientID``.
    public let machineClientSecret: String
    /// The redirect URI both authorization-code clients are registered with. The provider
    /// accepts it with any port (RFC 8252 §7.3), so `http://127.0.0.1:{any}/callback` works;
    /// other paths, `localhost`, or an added query do not.
    public let registeredRedirectURI: URL
    /// The launch's private directory: database, keys, and ``logFile``. Deleted by ``stop()``.
    public let dataDirectory: URL

    private let server: Subprocess
    private let stopped = Locked(false)

    /// The scopes the provider knows: `openid`, `profile` and `email`.
    public static let scopes = ["openid", "profile", "email"]

    /// The sign-in page (Django's `LoginView` with the fixture's template).
    public enum LoginPage {
        /// Its path; the provider sends a browser that is not signed in here, with `next`.
        public static let path = "/accounts/login/"
        /// The username field's selector (`name="username"`).
        public static let usernameField = "input[name=username]"
        /// The password field's selector (`name="password"`).
        public static let passwordField = "input[name=password]"
        /// The submit button's selector.
        public static let submitButton = "#login-submit"
        /// An element that is there only after a failed attempt.
        public static let errorMessage = "#login-error"
    }

    /// django-oauth-toolkit's own consent page, shown at the authorization endpoint.
    public enum ConsentPage {
        /// Its path: the authorization endpoint's.
        public static let path = "/o/authorize/"
        /// The button that grants access (`name="allow"`, labelled "Authorize").
        public static let allowButton = "input[name=allow]"
        /// The button that refuses (labelled "Cancel"): the client gets `error=access_denied`.
        public static let cancelButton = "input[type=submit]:not([name=allow])"
    }

    /// django-oauth-toolkit's RP-initiated logout confirmation, at the end-session endpoint:
    /// shown only to a signed-in person (one who is not is signed out and sent back at once).
    public enum LogoutPage {
        /// Its path: the end-session endpoint's.
        public static let path = "/o/logout/"
        /// The button that confirms (`name="allow"`, labelled "Logout").
        public static let allowButton = "input[name=allow]"
    }

    /// The device verification pages: enter the user code, then accept or deny.
    public enum DevicePages {
        /// The user-code page (`verification_uri`; `verification_uri_complete` adds `?user_code=`).
        public static let userCodePath = "/o/device/"
        /// The user-code field (prefilled from `?user_code=`).
        public static let userCodeField = "input[name=user_code]"
        /// The user-code page's submit button ("Verify").
        public static let verifyButton = "form button[type=submit]"
        /// The confirmation page's path starts with this (`/o/device-confirm/{client_id}/{user_code}`).
        public static let confirmPathPrefix = "/o/device-confirm/"
        /// The button that approves the device.
        public static let acceptButton = "button[name=action][value=accept]"
        /// The button that refuses the device: polling then gets `access_denied`.
        public static let denyButton = "button[name=action][value=deny]"
        /// The page shown afterwards starts with this path (`/o/device-grant-status/…`); its
        /// `h1` reads "Device Authorized" or "Device Denied".
        public static let statusPathPrefix = "/o/device-grant-status/"
    }

    private init(
        issuer: URL, port: Int, fixture: FixtureOutput, dataDirectory: URL, server: Subprocess
    ) {
        self.issuer = issuer
        self.port = port
        self.username = fixture.username
        self.password = fixture.password
        self.publicClientID = fixture.publicClientID
        self.confidentialClientID = fixture.confidentialClientID
        self.confidentialClientSecret = fixture.confidentialClientSecret
        self.deviceClientID = fixture.deviceClientID
        self.machineClientID = fixture.machineClientID
        self.machineClientSecret = fixture.machineClientSecret
        self.registeredRedirectURI = URL(string: fixture.redirectURI)!
        self.dataDirectory = dataDirectory
        self.server = server
    }

    deinit {
        // A provider that was never stopped: end it without waiting, and clean up.
        if !stopped.withLock({ $0 }) {
            server.send(SIGKILL)
            try? FileManager.default.removeItem(at: dataDirectory)
        }
    }

    // MARK: - Addresses

    /// `http://127.0.0.1:{port}`.
    public var origin: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The OpenID Connect discovery document: `{issuer}/.well-known/openid-configuration`.
    public var discoveryURL: URL { endpoint(".well-known/openid-configuration") }
    /// The RFC 8414 metadata of the issuer: `/.well-known/oauth-authorization-server/o`.
    public var authorizationServerMetadataURL: URL {
        origin.appendingPathComponent(".well-known/oauth-authorization-server/o")
    }
    /// `{issuer}/authorize/`.
    public var authorizationEndpoint: URL { endpoint("authorize/") }
    /// `{issuer}/token/`.
    public var tokenEndpoint: URL { endpoint("token/") }
    /// `{issuer}/userinfo/`.
    public var userinfoEndpoint: URL { endpoint("userinfo/") }
    /// `{issuer}/.well-known/jwks.json`.
    public var jwksURI: URL { endpoint(".well-known/jwks.json") }
    /// `{issuer}/revoke_token/` (RFC 7009).
    public var revocationEndpoint: URL { endpoint("revoke_token/") }
    /// `{issuer}/introspect/` (RFC 7662; needs a token with the right to introspect).
    public var introspectionEndpoint: URL { endpoint("introspect/") }
    /// `{issuer}/device-authorization/` (RFC 8628).
    public var deviceAuthorizationEndpoint: URL { endpoint("device-authorization/") }
    /// The device verification page, `{issuer}/device/`.
    public var deviceVerificationURI: URL { endpoint("device/") }
    /// The sign-in page.
    public var loginURL: URL { origin.appendingPathComponent("accounts/login/") }

    /// The server's log (requests and errors), for a failing test's message.
    public var logFile: URL { dataDirectory.appendingPathComponent("server.log") }

    /// The last `lines` lines of ``logFile``.
    public func recentLog(lines: Int = 40) -> String {
        Self.tail(of: logFile, lines: lines)
    }

    private func endpoint(_ path: String) -> URL {
        // appendingPathComponent drops a trailing slash on Linux; the provider's paths need it.
        URL(string: issuer.absoluteString + "/" + path)!
    }

    // MARK: - Starting and stopping

    /// Starts a provider on a free loopback port and waits until its discovery document answers.
    ///
    /// Takes a few seconds: the first start in a process also makes the migrated database that
    /// later starts copy; each start creates the user and clients anew.
    ///
    /// - Parameters:
    ///   - authorizationResponseIssuer: Whether authorization responses carry RFC 9207's `iss`.
    ///   - devicePollingInterval: The `interval` the device authorization endpoint announces, in
    ///     seconds (RFC 8628 says 5; the provider does not enforce it or send `slow_down`).
    ///   - accessTokenLifetime: How long access tokens live, in seconds (an hour unless given).
    ///   - python: The Python interpreter; `nil` for ``TestFixture/python``.
    ///   - timeout: How long the whole start may take.
    /// - Throws: ``IndependentProviderError`` when `python3` or django-oauth-toolkit is missing
    ///   (naming ``installCommand``), or the provider does not come up in time (with the end of
    ///   its log).
    public static func start(
        authorizationResponseIssuer: Bool = true,
        devicePollingInterval: Int = 1,
        accessTokenLifetime: Int = 3600,
        python: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> IndependentProvider {
        let deadline = ContinuousClock.now + timeout
        let python = try python ?? findPython()
        try await checkPackages(python: python, until: deadline)
        let database = try await migratedDatabase(python: python)

        let dataDirectory = try makePrivateDirectory("webauth-provider")
        do {
            try database.write(to: dataDirectory.appendingPathComponent(databaseName))
            let environment = fixtureEnvironment(dataDirectory: dataDirectory).merging([
                "WEBAUTH_FIXTURE_ISS_PARAMETER": authorizationResponseIssuer ? "1" : "0",
                "WEBAUTH_FIXTURE_DEVICE_INTERVAL": String(devicePollingInterval),
                "WEBAUTH_FIXTURE_ACCESS_TOKEN_SECONDS": String(accessTokenLifetime),
            ]) { $1 }

            // The user and clients are made while the server starts: it needs the database
            // only once requests come.
            async let created = run(python, [managePy, "webauth_fixture"], environment: environment, until: deadline)
            let (server, port): (Subprocess, Int)
            do {
                (server, port) = try await startServer(
                    python: python, environment: environment,
                    logFile: dataDirectory.appendingPathComponent("server.log"),
                    until: deadline)
            } catch {
                _ = try? await created
                throw error
            }
            do {
                let fixture = try parseFixture(try await created)
                return IndependentProvider(
                    issuer: URL(string: "http://127.0.0.1:\(port)/o")!, port: port, fixture: fixture,
                    dataDirectory: dataDirectory, server: server)
            } catch {
                await server.terminate(grace: .seconds(2))
                throw error
            }
        } catch {
            try? FileManager.default.removeItem(at: dataDirectory)
            throw error
        }
    }

    /// What `manage.py webauth_fixture` made, or why it failed.
    private static func parseFixture(_ created: Completed) throws -> FixtureOutput {
        guard Subprocess.exitCode(of: created.status) == 0 else {
            throw IndependentProviderError(
                "`manage.py webauth_fixture` failed (\(Subprocess.describe(status: created.status))):\n"
                    + created.standardError.suffix(4000))
        }
        do {
            return try JSONDecoder().decode(FixtureOutput.self, from: Data(created.standardOutput.utf8))
        } catch {
            throw IndependentProviderError(
                "`manage.py webauth_fixture` printed no fixture JSON (\(error)): \(created.standardOutput.prefix(500))")
        }
    }

    /// Starts `runserver` on a free port and waits until it answers. A port found free can be
    /// taken by another test before the server binds it, so a busy port means another try.
    private static func startServer(
        python: String, environment: [String: String], logFile: URL, until deadline: ContinuousClock.Instant
    ) async throws -> (Subprocess, Int) {
        var environment = environment
        var lastFailure: (any Error)?
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            environment["WEBAUTH_FIXTURE_PORT"] = String(port)
            try? FileManager.default.removeItem(at: logFile)
            let server = try Subprocess(
                executable: python,
                arguments: [managePy, "runserver", "127.0.0.1:\(port)", "--noreload", "--insecure", "--skip-checks"],
                environment: environment, output: logFile.path)
            do {
                try await waitUntilServing(server, port: port, logFile: logFile, until: deadline)
                return (server, port)
            } catch {
                lastFailure = error
                await server.terminate(grace: .seconds(2))
                guard tail(of: logFile, lines: 40).contains("already in use"), ContinuousClock.now < deadline else {
                    throw error
                }
            }
        }
        throw lastFailure ?? IndependentProviderError("the provider did not start")
    }

    /// Stops the server (its whole process group) and deletes ``dataDirectory``. Safe to call
    /// more than once.
    public func stop() async {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard first else { return }
        await server.terminate(grace: .seconds(3))
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// Starts a provider, runs `body` with it, and stops it however `body` ends.
    ///
    /// - Parameters:
    ///   - authorizationResponseIssuer: Whether authorization responses carry RFC 9207's `iss`.
    ///   - devicePollingInterval: The device grant's announced polling interval, in seconds.
    ///   - accessTokenLifetime: How long access tokens live, in seconds.
    ///   - python: The Python interpreter; `nil` for the default.
    ///   - isolation: Where `body` runs: the caller's actor, if any.
    ///   - body: The test.
    /// - Returns: What `body` returns.
    public static func withProvider<Result>(
        authorizationResponseIssuer: Bool = true,
        devicePollingInterval: Int = 1,
        accessTokenLifetime: Int = 3600,
        python: String? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (IndependentProvider) async throws -> Result
    ) async throws -> Result {
        let provider = try await start(
            authorizationResponseIssuer: authorizationResponseIssuer, devicePollingInterval: devicePollingInterval,
            accessTokenLifetime: accessTokenLifetime, python: python)
        return try await withShutdown(of: provider, shutdown: { await $0.stop() }, body)
    }

    /// Waits until the discovery document answers 200, the server exits, or `deadline` passes.
    private static func waitUntilServing(
        _ server: Subprocess, port: Int, logFile: URL, until deadline: ContinuousClock.Instant
    ) async throws {
        let request = Array(
            ("GET /o/.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Connection: close\r\n\r\n").utf8)
        var answered = false
        _ = await eventually(within: deadline - .now) {
            if server.hasExited { return true }
            let reply = try? await RawHTTPClient.exchange(port: port, bytes: request, timeout: .seconds(5))
            answered = reply?.status == 200
            return answered
        }
        if answered { return }
        if server.hasExited {
            throw IndependentProviderError(
                "the provider's server exited while starting:\n\(tail(of: logFile, lines: 40))")
        }
        throw IndependentProviderError(
            "the provider did not answer on port \(port) in time:\n\(tail(of: logFile, lines: 40))")
    }

    // MARK: - Python

    /// The fixture's `manage.py`, found from this file: `Tests/Fixtures/django-provider/manage.py`.
    static let managePy: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/WebAuthTestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/django-provider/manage.py").path

    /// The command that installs what the provider needs (`Tests/Fixtures/requirements.txt`, into
    /// the virtual environment ``TestFixture/pythonEnvironment``), then runs the tests.
    public static let installCommand = "scripts/test"

    /// ``TestFixture/python``, or an error naming what to install.
    private static func findPython() throws -> String {
        guard let python = TestFixture.python else {
            throw IndependentProviderError(
                "python3 not found on PATH; the independent OAuth provider needs Python 3 with "
                    + "django-oauth-toolkit: install Python 3, then run `\(installCommand)`")
        }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw IndependentProviderError("\(python) (WEBAUTH_TEST_PYTHON) is not an executable file")
        }
        return python
    }

    /// The SQLite database's file name in a data directory (see the fixture's settings).
    private static let databaseName = "provider.sqlite3"

    /// Migrated empty databases, by interpreter: migrating takes seconds, copying a file none.
    private static let migratedDatabases = Locked<[String: Task<Data, any Error>]>([:])

    /// A freshly migrated database (`manage.py migrate` on an empty one), made once per
    /// interpreter and process; a failure is not kept, so the next start tries again.
    private static func migratedDatabase(python: String) async throws -> Data {
        let task = migratedDatabases.withLock { tasks in
            if let task = tasks[python] { return task }
            let task = Task { try await makeMigratedDatabase(python: python) }
            tasks[python] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            migratedDatabases.withLock { tasks in if tasks[python] == task { tasks[python] = nil } }
            throw error
        }
    }

    private static func makeMigratedDatabase(python: String) async throws -> Data {
        let directory = try makePrivateDirectory("webauth-provider-migrations")
        defer { try? FileManager.default.removeItem(at: directory) }
        let migrated = try await run(
            python, [managePy, "migrate", "--verbosity", "0", "--no-input"],
            environment: fixtureEnvironment(dataDirectory: directory), until: .now + .seconds(120))
        guard Subprocess.exitCode(of: migrated.status) == 0 else {
            throw IndependentProviderError(
                "`manage.py migrate` failed (\(Subprocess.describe(status: migrated.status))):\n"
                    + migrated.standardError.suffix(4000))
        }
        return try Data(contentsOf: directory.appendingPathComponent(databaseName))
    }

    /// The environment of the fixture's commands, with its data in `dataDirectory`.
    private static func fixtureEnvironment(dataDirectory: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DJANGO_SETTINGS_MODULE"] = "webauth_fixture.settings"
        environment["WEBAUTH_FIXTURE_DATA_DIR"] = dataDirectory.path
        environment["WEBAUTH_FIXTURE_PORT"] = "0"  // the server's own is set when it starts
        environment["PYTHONDONTWRITEBYTECODE"] = "1"  // nothing written into the source tree
        environment["PYTHONUNBUFFERED"] = "1"
        return environment
    }

    /// A new directory, mode 0700, in the temporary directory.
    static func makePrivateDirectory(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return directory
    }

    /// Fails, naming the install command, unless django-oauth-toolkit 3.4.1 and an oauthlib
    /// before 4 (whose device authorization response DOT 3.4.1 cannot handle) are importable.
    private static func checkPackages(python: String, until deadline: ContinuousClock.Instant) async throws {
        let script = """
            import importlib.metadata as m
            for name in ("django-oauth-toolkit", "Django", "oauthlib"):
                try:
                    print(name, m.version(name))
                except m.PackageNotFoundError:
                    print(name, "missing")
            """
        let result = try await run(
            python, ["-c", script], environment: ProcessInfo.processInfo.environment, until: deadline)
        var versions: [String: String] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { versions[String(parts[0])] = String(parts[1]) }
        }
        let toolkit = versions["django-oauth-toolkit"] ?? "missing"
        let oauthlib = versions["oauthlib"] ?? "missing"
        let django = versions["Django"] ?? "missing"
        guard toolkit == "3.4.1", django != "missing", oauthlib != "missing", !oauthlib.hasPrefix("4.") else {
            throw IndependentProviderError(
                "\(python) has django-oauth-toolkit \(toolkit), Django \(django), oauthlib \(oauthlib); the "
                    + "independent OAuth provider needs django-oauth-toolkit 3.4.1 with oauthlib 3.x: run `\(installCommand)`"
                    + (result.standardError.isEmpty ? "" : "\n\(result.standardError.suffix(2000))"))
        }
    }

    /// What `manage.py webauth_fixture` prints.
    private struct FixtureOutput: Decodable {
        var username: String
        var password: String
        var redirectURI: String
        var publicClientID: String
        var confidentialClientID: String
        var confidentialClientSecret: String
        var deviceClientID: String
        var machineClientID: String
        var machineClientSecret: String

        enum CodingKeys: String, CodingKey {
            case username, password
            case redirectURI = "redirect_uri"
            case publicClientID = "public_client_id"
            case confidentialClientID = "confidential_client_id"
            case confidentialClientSecret = "confidential_client_secret"
            case deviceClientID = "device_client_id"
            case machineClientID = "machine_client_id"
            case machineClientSecret = "machine_client_secret"
        }
    }

    /// What a short-lived program left.
    private struct Completed {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs a short-lived program without blocking a thread of the concurrency pool; ends it (and
    /// its process group) if it is still running at `deadline`.
    private static func run(
        _ executable: String, _ arguments: [String], environment: [String: String],
        until deadline: ContinuousClock.Instant
    ) async throws -> Completed {
        let process = try Subprocess(
            executable: executable, arguments: arguments, environment: environment, standardOutput: .pipe,
            standardError: .pipe)
        let bound = watchdog(after: deadline - .now) { await process.terminate(grace: .seconds(2)) }
        async let output = collect(process.standardOutput)
        async let errors = collect(process.standardError)
        let status = await process.exitStatus()
        bound.cancel()
        let completed = Completed(status: status, standardOutput: await output, standardError: await errors)
        if await bound.value {
            throw IndependentProviderError(
                "`\(([executable] + arguments).joined(separator: " "))` did not finish in time:\n"
                    + completed.standardError.suffix(2000))
        }
        return completed
    }

    private static func collect(_ stream: AsyncStream<[UInt8]>?) async -> String {
        guard let stream else { return "" }
        var bytes: [UInt8] = []
        for await chunk in stream { bytes += chunk }
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Helpers

    /// A port that was free on 127.0.0.1 a moment ago (bound to port 0, read, released).
    static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw IndependentProviderError("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw IndependentProviderError("cannot bind 127.0.0.1:0: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw IndependentProviderError("getsockname failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func tail(of file: URL, lines: Int) -> String {
        guard let data = try? Data(contentsOf: file) else { return "(no log)" }
        let text = String(decoding: data.suffix(64 * 1024), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

/// The independent provider could not be started or used.
public struct IndependentProviderError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates an error saying `description`.
    public init(_ description: String) { self.description = description }
}

extension IndependentProvider {
    /// Waits for the sign-in page in `page` and signs in — as the test user unless told otherwise.
    ///
    /// Returns once the form is submitted; the page then goes where the provider sends it
    /// (`next`: the consent page, the device page).
    package func signIn(
        on page: ChromiumPage, username: String? = nil, password: String? = nil, within limit: Duration = .seconds(30)
    ) async throws {
        try await page.waitForPage(path: LoginPage.path, within: limit)
        try await page.fill(LoginPage.usernameField, with: username ?? self.username)
        try await page.fill(LoginPage.passwordField, with: password ?? self.password)
        try await page.click(LoginPage.submitButton)
    }

    /// Waits for the consent page in `page` and clicks "Authorize" (or "Cancel" when `allow` is
    /// false). The provider then redirects to the client's redirect URI.
    package func grantConsent(on page: ChromiumPage, allow: Bool = true, within limit: Duration = .seconds(30))
        async throws
    {
        try await page.waitForPage(path: ConsentPage.path, within: limit)
        let button = allow ? ConsentPage.allowButton : ConsentPage.cancelButton
        try await page.waitForElement(button, within: limit)
        try await page.click(button)
    }
}
