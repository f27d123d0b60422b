// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuth
import WebAuthFastPath
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTokenStore

/// `webauth demo`: a complete OpenID Connect sign-in against the provider embedded in this
/// program, step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Sign in end to end against an OpenID Connect provider that runs inside this program.",
        discussion: """
            Starts an OpenID Connect provider on 127.0.0.1, reads its discovery document, makes \
            a PKCE pair, a state and a nonce, opens the sign-in page in your browser (sign in as \
            "demo", password "demo-password") — or, with no display or browser, lets a built-in \
            scripted browser play the person —, receives the redirect on a loopback listener, \
            checks it, exchanges the code, validates the ID token, asks UserInfo, stores the \
            tokens in a 0600 file, refreshes them (the provider rotates the refresh token) and \
            revokes them. Each step is printed with its time. Nothing leaves this machine and \
            nothing is kept: the token file is in a temporary directory removed at the end.
            """
    )

    @Flag(name: .customLong("no-browser"), help: "Let the built-in scripted browser sign in instead of you.")
    var noBrowser = false

    @Option(help: "Give up waiting for the browser after this many seconds.")
    var timeout: Double = 300

    @Flag(help: "Print a JSON report (steps and their milliseconds) on standard output.")
    var json = false

    func validate() throws {
        try SecondsOption.validate(timeout, option: "--timeout")
    }

    /// The options as arguments again, for `webauth-demo`.
    var arguments: [String] {
        (noBrowser ? ["--no-browser"] : []) + ["--timeout", String(timeout)] + (json ? ["--json"] : [])
    }

    func run() async throws {
        guard let providerType = DemoProgram.providerType else {
            DemoProgram.runDemoProgram(arguments: arguments)
        }
        let terminal = TerminalOutput()
        let steps = DemoSteps(terminal: terminal)
        let user = providerType.user
        let provider: any DemoProvider
        do {
            provider = try await providerType.start(
                displayName: "webauth demo provider",
                loginPageNote:
                    "This provider runs inside `webauth demo`. Sign in as \(user.username), password \(user.password).")
        } catch {
            terminal.error("the demo provider could not start: \((error as? any WebAuthError)?.message ?? "\(error)")")
            throw ExitCode(ExitStatus.failure)
        }
        steps.done("provider", "Started an OpenID Connect provider at \(provider.issuer.absoluteString)")

        let trap = InterruptTrap()
        let outcome: Result<DemoRun.Outcome, any Error>
        do {
            let run = try DemoRun(provider: provider, steps: steps, timeout: timeout, user: user)
            let browser = run.chooseBrowser(scriptedOnly: noBrowser)
            let cancel = CancelSwitch()
            // Ctrl-C cancels the browser session and whatever request is under way.
            let work = Task { try await run.signInAndOut(browser: browser, cancel: cancel) }
            let stop: @Sendable () -> Void = {
                cancel.fire()
                work.cancel()
            }
            outcome = await trap.whileTrapping(onSignal: stop) { await work.result }
        } catch {
            outcome = .failure(error)
        }
        await provider.shutdown()

        switch outcome {
        case .success(let result):
            if json {
                CommandOutput(json: true).emit(result.report(steps: steps.recorded))
            } else {
                CommandOutput(json: false).result(
                    "Signed in as \(result.subject) and signed out again; every check passed.")
            }
        case .failure(let error):
            let failure = CommandFailure.from(error, profile: "demo", action: "demo sign-in")
            steps.failed(failure.message)
            if json {
                var object: [String: Any] = ["code": failure.code, "message": failure.message]
                object["fix"] = failure.fix
                CommandOutput(json: true).emit(["error": object, "steps": DemoRun.stepsReport(steps.recorded)])
            }
            throw ExitCode(
                trap.received.map { $0 == SignalNumber.terminate ? ExitStatus.terminated : ExitStatus.interrupted }
                    ?? failure.status)
        }
    }
}

/// One run of the demo: the client side of a sign-in against the demo's provider, using the
/// package's public API the way an application would, with each step reported.
struct DemoRun: Sendable {
    /// What the demo ends with.
    struct Outcome: Sendable {
        var issuer: String
        var subject: String
        var browser: String

        /// The `--json` report.
        func report(steps: [(name: String, duration: Duration)]) -> [String: Any] {
            [
                "signed_in": true, "issuer": issuer, "subject": subject, "browser": browser,
                "steps": DemoRun.stepsReport(steps),
            ]
        }
    }

    /// The steps as `[{"step": name, "milliseconds": n}]`.
    static func stepsReport(_ steps: [(name: String, duration: Duration)]) -> [[String: Any]] {
        steps.map { ["step": $0.name, "milliseconds": $0.duration.milliseconds] }
    }

    let provider: any DemoProvider
    let steps: DemoSteps
    let timeout: Double
    let user: DemoUser
    let client: OAuthClient
    private let tokenRequests: TokenRequestObserver

    init(provider: any DemoProvider, steps: DemoSteps, timeout: Double, user: DemoUser) throws {
        self.provider = provider
        self.steps = steps
        self.timeout = timeout
        self.user = user
        let tokenRequests = TokenRequestObserver(sendingThrough: CurlTransport())
        self.tokenRequests = tokenRequests
        client = try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: provider.clientID,
                scopes: ["openid", "profile", "email", "offline_access"]),
            transport: tokenRequests)
    }

    /// The person's browser, or the scripted one when there is no display or browser (or when
    /// asked for).
    func chooseBrowser(scriptedOnly: Bool) -> any Browser {
        let found = BrowserSelection.fromEnvironment().browser(
            for: BrowserNeeds(callback: .loopback(), callbackIsReceivable: true))
        if !scriptedOnly, !(found is TerminalPresenter) {
            steps.note(
                "Your browser will show the provider's sign-in page: sign in as \(user.username), "
                    + "password \(user.password), then approve.")
            return found
        }
        steps.note(
            scriptedOnly
                ? "Using the built-in scripted browser (--no-browser); it signs in as \(user.username)."
                : "No display or browser found here: the built-in scripted browser signs in as \(user.username).")
        let steps = self.steps
        return provider.scriptedBrowser { step in steps.note("scripted browser: \(step)") }
    }

    func signInAndOut(browser: any Browser, cancel: CancelSwitch) async throws -> Outcome {
        let metadata = try await client.metadata()
        steps.done(
            "discovery",
            "Read its discovery document: issuer \(metadata.issuer ?? provider.issuer.absoluteString), authorization, token, JWKS, UserInfo "
                + "and revocation endpoints")

        guard let tokenEndpoint = metadata.tokenEndpoint else {
            throw OAuthError(code: .endpointUnavailable, message: "the provider has no token endpoint")
        }
        // The sign-in itself is `OAuthClient.signIn`, as in an application; the steps are
        // reported from its session and from the moment it asks the token endpoint.
        let steps = self.steps
        tokenRequests.onFirstRequest(to: tokenEndpoint) {
            steps.done("browser", "The browser came back to the loopback listener, which then closed")
            steps.done(
                "callback",
                "The redirect's state is ours and its iss names this provider (RFC 9207); it carries a code "
                    + "(not shown)")
        }
        let tokens = try await client.signIn(environment: .standard(browser: browser)) { session in
            steps.done("request", "Made a PKCE verifier and its S256 challenge, a state and a nonce (none shown)")
            session.timeout = SecondsOption.duration(timeout)
            session.progressHandler = { progress in
                switch progress.phase {
                case .listening:
                    steps.note("Listening for the callback at \(progress.redirectURI?.absoluteString ?? "?")")
                case .opening:
                    steps.note(
                        browser.name == provider.scriptedBrowserName
                            ? "Opening the sign-in page in the built-in scripted browser, which signs in as "
                                + "\(user.username)"
                            : "Opening the sign-in page with \(progress.browserName ?? "the browser")")
                case .waiting: steps.waiting("Waiting for the browser to come back… (Ctrl-C cancels)")
                case .notice: steps.note(progress.message ?? "")
                default: break
                }
            }
            cancel.onFire { session.cancel() }
        }
        guard let claims = tokens.idTokenClaims else {
            throw OAuthError(code: .invalidResponse, message: "the token response carried no ID token")
        }
        let keyID = tokens.idToken.flatMap(Self.keyID(ofJWT:)).map { "key \($0)" } ?? "the provider's key"
        steps.done(
            "token exchange",
            "Exchanged the code with the PKCE verifier, and validated the ID token: RS256 signature with \(keyID) "
                + "from the JWKS, iss, aud, exp, iat and nonce — subject \(claims.subject)")

        let info = try await client.userInfo(for: tokens)
        let who = [info.name, info.email.map { "<\($0)>" }].compactMap { $0 }.joined(separator: " ")
        steps.done("userinfo", "UserInfo: \(who.isEmpty ? info.subject : who); its sub matches the ID token's")

        let stored = try await storeAndReadBack(tokens)
        steps.done("storage", stored)

        let refreshed = try await client.refresh(tokens)
        let rotated = refreshed.refreshToken != nil && refreshed.refreshToken != tokens.refreshToken
        steps.done(
            "refresh",
            "Refreshed: a new access token" + (rotated ? ", and the provider rotated the refresh token" : ""))

        try await client.revoke(refreshed)
        guard let refreshToken = refreshed.refreshToken, !provider.isActive(refreshToken: refreshToken),
            !provider.isActive(accessToken: refreshed.accessToken)
        else {
            throw OAuthError(code: .invalidResponse, message: "the provider still accepts the revoked tokens")
        }
        steps.done("revocation", "Revoked the tokens (RFC 7009); the provider no longer accepts them")
        return Outcome(issuer: claims.issuer, subject: claims.subject, browser: browser.name)
    }

    /// Saves the tokens in a file store in a fresh temporary directory, reads them back,
    /// checks the file's mode, and removes the directory.
    private func storeAndReadBack(_ tokens: TokenSet) async throws -> String {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("webauth-demo-XXXXXX")
        var template = Array(temporary.path.utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TokenStoreError(code: .fileSystem, message: "could not create a temporary directory")
        }
        let root = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileTokenStore(directory: root + "/tokens")
        try await store.save(StoredTokens(tokens: tokens, configuration: client.configuration), profile: "demo")
        // Dates are stored to the second, so compare what a later command would use.
        guard let loaded = try await store.load(profile: "demo"), loaded.tokens.accessToken == tokens.accessToken,
            loaded.tokens.refreshToken == tokens.refreshToken, loaded.tokens.idToken == tokens.idToken
        else {
            throw TokenStoreError(code: .corrupt, message: "the tokens read back differ from the ones saved")
        }
        let file = root + "/tokens/demo.json"
        let mode =
            (try? FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            .map { "0" + String($0, radix: 8) } ?? "unknown"
        return "Stored the tokens in \(file) (mode \(mode), directory 0700, written atomically) and read them back"
    }

    /// The `kid` in a JWT's header, if it has one.
    static func keyID(ofJWT jwt: String) -> String? {
        guard let header = jwt.split(separator: ".").first else { return nil }
        var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }
}

/// A signal handler's way to cancel whatever is running now.
final class CancelSwitch: Sendable {
    private let state = Locked<(fired: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    /// Runs `action` when the switch fires (at once if it already has).
    func onFire(_ action: @escaping @Sendable () -> Void) {
        let fired = state.withLock { state in
            state.action = action
            return state.fired
        }
        if fired { action() }
    }

    /// Fires the switch.
    func fire() {
        let action = state.withLock { state in
            state.fired = true
            return state.action
        }
        action?()
    }
}

/// The demo's progress lines on standard error, each step with how long it took; the steps
/// and their durations are kept for `--json`.
final class DemoSteps: Sendable {
    private let terminal: TerminalOutput
    private let state = Locked<State>(State())

    private struct State {
        var last = ContinuousClock.now
        var recorded: [(name: String, duration: Duration)] = []
        var waiting: StatusLine?
    }

    init(terminal: TerminalOutput) { self.terminal = terminal }

    /// The steps so far and how long each took.
    var recorded: [(name: String, duration: Duration)] { state.withLock { $0.recorded } }

    /// A step finished: `✔ message (N ms)`.
    func done(_ name: String, _ message: String) {
        let duration = state.withLock { state in
            let now = ContinuousClock.now
            defer { state.last = now }
            state.recorded.append((name, now - state.last))
            return now - state.last
        }
        stopWaiting()
        terminal.success("\(message) (\(Self.format(duration)))")
    }

    /// Something on the way.
    func note(_ message: String) { terminal.line("  " + message) }

    /// A wait with a status line (a spinner on a terminal).
    func waiting(_ message: String) {
        let line = terminal.startStatus("  " + message)
        state.withLock { $0.waiting = line }
    }

    /// Ends the status line, if one is shown.
    func stopWaiting() { state.withLock { $0.waiting.take() }?.stop() }

    /// The demo failed.
    func failed(_ message: String) {
        stopWaiting()
        terminal.error(message)
    }

    private static func format(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        return milliseconds < 10 ? String(format: "%.1f ms", milliseconds) : "\(Int(milliseconds.rounded())) ms"
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
