// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

// The C library's `stat` and the like, which this toolchain's Foundation declares through
// CoreFoundation and CDispatch: the modules that member-import visibility asks for.
#if canImport(CDispatch)
    import CDispatch
    import CoreFoundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A private home for `webauth` token commands: `HOME`, `XDG_STATE_HOME` and `XDG_CONFIG_HOME`
/// in a fresh temporary directory, no display, no browser, no D-Bus session (so `automatic`
/// means the file store). Removed by ``remove()``.
struct ProfileSandbox {
    let root: String
    /// `XDG_STATE_HOME`, where the token files and the profile index live.
    let stateHome: String
    /// More environment variables, such as a keyring's D-Bus address.
    var extraEnvironment: [String: String] = [:]

    /// A sandbox whose state lives in `stateHome` (such as a small file system a test fills),
    /// else in `state` below its root.
    init(stateHome: String? = nil) throws {
        var template = Array("/tmp/webauth-cli-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CLITestError("mkdtemp failed") }
        root = String(cString: made)
        self.stateHome = stateHome ?? root + "/state"
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
    var tokenDirectory: String { stateHome + "/webauth/tokens" }
    var indexPath: String { stateHome + "/webauth/profiles.json" }

    func entryPath(_ profile: String = "default") -> String { "\(tokenDirectory)/\(profile).json" }
    /// The token agent's socket (`WEBAUTH_AGENT_SOCK`): the sandbox's own, so that no agent
    /// outside it answers.
    var agentSocket: String { root + "/agent.sock" }

    /// The environment the commands run with.
    var environment: [String: String] {
        [
            "HOME": root, "XDG_STATE_HOME": stateHome, "XDG_CONFIG_HOME": root + "/config",
            "DBUS_SESSION_BUS_ADDRESS": "", "NO_COLOR": "1", "WEBAUTH_CLIENT_SECRET": "",
            "WEBAUTH_AGENT_SOCK": agentSocket,
        ].merging(extraEnvironment) { $1 }
    }

    /// Signs `profile` in at `provider` with `webauth login --device` (the provider approves at
    /// once) into the file store, and returns the stored entry.
    func signInWithDevice(
        _ provider: EmbeddedProvider, profile: String = "default", extra: [String] = []
    ) async throws -> StoredTokens {
        let login = try await run(
            provider.loginArguments(["--device", "--store", "file", "--profile", profile] + extra))
        try #require(login.status == 0, "login failed: \(login.stderr)")
        return try #require(try storedEntry(profile))
    }

    /// Runs `webauth` with `arguments` in the sandbox.
    func run(_ arguments: [String], timeout: Duration = .seconds(120)) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = try CLIProcess(arguments, environment: environment)
        let status = try await process.waitForExit(timeout: timeout)
        return (status, process.standardOutput, process.standardError)
    }

    /// Starts `webauth` with `arguments` in the sandbox, standard input open.
    func start(_ arguments: [String]) throws -> CLIProcess {
        try CLIProcess(arguments, environment: environment, keepStandardInputOpen: true)
    }

    /// The stored entry of `profile`, read straight from its file.
    func storedEntry(_ profile: String = "default") throws -> StoredTokens? {
        guard let data = FileManager.default.contents(atPath: entryPath(profile)) else { return nil }
        return try StoredTokens.decode(data, profile: profile, location: entryPath(profile))
    }

    /// A browser that records its environment (`browser-env`), its whole command line
    /// (`browser-argv`, one argument a line) and the URL it was given (`browser-url`) in the
    /// sandbox, and does nothing else: for `BROWSER` or `--browser`.
    func recordingBrowser() throws -> String {
        let browser = root + "/fake-browser"
        let script = """
            #!/bin/sh
            env > "\(root)/browser-env.tmp" && mv "\(root)/browser-env.tmp" "\(root)/browser-env"
            tr '\\0' '\\n' < /proc/$$/cmdline > "\(root)/browser-argv.tmp" && mv "\(root)/browser-argv.tmp" "\(root)/browser-argv"
            printf '%s' "$1" > "\(root)/browser-url.tmp" && mv "\(root)/browser-url.tmp" "\(root)/browser-url"
            """
        guard
            FileManager.default.createFile(
                atPath: browser, contents: Data(script.utf8), attributes: [.posixPermissions: 0o700])
        else { throw CLITestError("cannot write \(browser)") }
        return browser
    }

    /// The permission bits of `path`.
    func mode(of path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}

extension EmbeddedProvider {
    /// The client ID the tests sign in as.
    static let cliClientID = "webauth-cli-tests"

    /// The provider the command-line tests sign in to: the client ``cliClientID`` (public, or
    /// confidential with `secret`), device polling every second, ID tokens that live 600 s
    /// and access tokens an hour, and device authorizations approved for `user` (the demo
    /// user unless given) at once — `webauth login --device` signs in without a browser.
    static func withCLIProvider(
        secret: String? = nil, user: User = .demo, clock: Clock = .system,
        isolation: isolated (any Actor)? = #isolation, _ body: (EmbeddedProvider) async throws -> Void
    ) async throws {
        let configuration = Configuration(
            users: [user],
            clients: [
                Client(
                    id: cliClientID, secret: secret,
                    redirectURIs: [URL(string: "http://127.0.0.1/callback")!, URL(string: "http://[::1]/callback")!])
            ], idTokenLifetime: .seconds(600), devicePollingInterval: .seconds(1), clock: clock)
        try await withProvider(configuration) { provider in
            provider.approveDeviceAuthorizations(as: user)
            try await body(provider)
        }
    }

    /// `webauth login` arguments for this provider.
    func loginArguments(_ extra: [String] = []) -> [String] {
        [
            "login", "--issuer", issuer.absoluteString, "--client-id", Self.cliClientID, "--scope", "openid",
            "--scope", "offline_access",
        ]
            + extra
    }

    /// Revokes `token` at `/revoke`, as another device or an administrator would.
    func revokeFromElsewhere(_ token: String) async throws {
        let body = "token=\(token)&token_type_hint=refresh_token&client_id=\(Self.cliClientID)"
        let request =
            "POST /revoke HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
        let response = try await RawHTTPClient.exchange(port: port, bytes: Array(request.utf8))
        guard response.status == 200 else { throw CLITestError("revocation answered \(response.status)") }
    }

    /// Plays the person at `authorizationURL` in a browser that cannot reach the redirect URI:
    /// signs in as the first configured user, approves, and returns the address the provider
    /// redirected to, for pasting.
    func redirectToPaste(from authorizationURL: URL) async throws -> String {
        let user = configuration.users.first ?? .demo
        let agent = ScriptedUserAgent(username: user.username, password: user.password)
        return try await agent.redirectAddress(from: authorizationURL).absoluteString
    }

    /// The refresh requests to `/token` so far, oldest first; `error` is `nil` for each one
    /// the provider accepted. (A refresh token presented twice revokes its grant and is
    /// answered `invalid_grant`.)
    var refreshRequests: [LoggedRequest] {
        requests(to: .token).filter { $0.grantType == "refresh_token" }
    }
}

/// Whether `text` contains any of the entry's secrets.
func containsSecret(_ text: String, of entry: StoredTokens) -> Bool {
    let secrets = [entry.tokens.accessToken, entry.tokens.refreshToken, entry.tokens.idToken].compactMap { $0 }
    return secrets.contains { !$0.isEmpty && text.contains($0) }
}

/// Parses one JSON object from `text`.
func jsonObject(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], "not a JSON object: \(text)")
}

/// A pseudo-terminal pair: what a program sees as its terminal (``secondary``) and the side a
/// test reads and types on (``primary``). ``closeBoth()`` when done.
struct PseudoTerminal {
    let primary: Int32
    let secondary: Int32

    init() throws {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        guard openpty(&primary, &secondary, nil, nil, nil) == 0 else { throw CLITestError("openpty failed") }
        self.primary = primary
        self.secondary = secondary
    }

    func closeBoth() {
        close(primary)
        close(secondary)
    }
}
