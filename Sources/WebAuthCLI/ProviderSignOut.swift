// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuth
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTokenStore

/// The first step of `webauth logout --end-session`: signs the person out of the provider
/// (OpenID Connect RP-Initiated Logout 1.0) in a browser, with the profile's stored ID token as
/// `id_token_hint`, and waits for the provider to send the browser back with our `state`.
///
/// The ID token is on no command line: a browser webauth does not control gets a one-use
/// loopback page that posts the request, or with ``hintDelivery`` `.omitted` the end-session
/// address without the hint (``EndSessionRequest/HintDelivery``). The terminal is never used:
/// over SSH the page on this machine's loopback is out of the person's browser's reach, and the
/// address it would print carries the hint.
///
/// Whatever happens here, `logout` then revokes and forgets the tokens as without the flag: a
/// failure is returned, not thrown, so the local sign-out is never skipped. Only Ctrl-C or
/// SIGTERM stop the whole command (thrown, with nothing changed).
struct ProviderSignOut {
    /// The profile signing out.
    var profile: String
    /// Where the profile is stored.
    var stores: TokenStores
    /// `--browser`, if given.
    var browser: String?
    /// How long the person has to finish on the provider's page.
    var timeout: Duration
    /// How the ID token reaches the provider through a browser webauth does not control.
    var hintDelivery: EndSessionRequest.HintDelivery = .formPost
    /// Whether to log what happens (never secrets) on standard error.
    var verbose = false
    /// The environment: the browser selection's.
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// Ends the provider's session; `nil` when it ended, or when the profile is not stored at all
    /// (the sign-out that follows reports that). Otherwise the failure, with
    /// ``ExitStatus/endSessionFailed``, saying what went wrong.
    ///
    /// - Throws: A ``CommandFailure`` with the signal's status when Ctrl-C or SIGTERM cancel it.
    func run(terminal: TerminalOutput) async throws -> CommandFailure? {
        let entry: StoredTokens
        do {
            guard let found = try await stores.find(profile: profile) else { return nil }
            entry = found.entry
        } catch {
            return Self.failure(
                code: "unreadable",
                message: "the stored entry could not be read, so the provider's session could not be ended",
                fix: "sign out on the provider's own site by hand")
        }
        guard let configuration = entry.configuration else {
            return Self.failure(
                code: "noConfiguration",
                message: "the entry does not name its client, so the provider's session could not be ended",
                fix: "sign out on the provider's own site by hand")
        }
        guard let idToken = entry.tokens.idToken, !idToken.isEmpty else {
            return Self.failure(
                code: OAuthError.Code.noIDToken.rawValue,
                message:
                    "profile \"\(profile)\" has no ID token, which the provider needs to know which session to end",
                fix:
                    "sign out on the provider's own site; sign in with the openid scope to be able to use --end-session"
            )
        }
        var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = verbose ? .debug : .critical
        let client: OAuthClient
        do {
            client = try OAuthClient(configuration: configuration, logger: logger)
            // Known before any browser opens.
            _ = try await client.prepareEndSession(idTokenHint: idToken)
        } catch {
            return Self.failure(from: error, profile: profile)
        }
        guard let browser = chooseBrowser(configuration, logger: logger) else {
            return Self.failure(
                code: "noBrowser",
                message:
                    "no browser can be opened here, and the provider's sign-out address carries the ID token, which webauth never prints",
                fix: "sign out on the provider's own site, or name a browser with --browser")
        }
        return try await endSession(client, idToken: idToken, browser: browser, terminal: terminal)
    }

    /// The browser to open the page in: chosen as for signing in, but never the terminal (the
    /// address would show the ID token). A shared, not an ephemeral, browser session: the
    /// provider's cookie there is what is being ended.
    private func chooseBrowser(_ configuration: ClientConfiguration, logger: Logger) -> (any Browser)? {
        var selection = BrowserSelection.fromEnvironment(environment)
        if let browser, let choice = BrowserChoice(browser) { selection.choice = choice }
        selection.logger = logger
        let callback = (try? Callback(redirectURI: configuration.redirectURI)) ?? .loopback()
        let chosen = selection.choose(
            for: BrowserNeeds(
                callback: callback,
                callbackIsReceivable: SessionEnvironment.standardReceivers.contains { $0.canReceive(callback) }))
        guard !chosen.fallsBackToTerminal, !(chosen.browser is TerminalPresenter) else { return nil }
        return chosen.browser
    }

    private func endSession(
        _ client: OAuthClient, idToken: String, browser: any Browser, terminal: TerminalOutput
    ) async throws -> CommandFailure? {
        let status = StatusHolder()
        defer { status.stop() }
        // The standard receivers, with pages that speak of signing out.
        let environment = SessionEnvironment(
            browser: browser,
            receivers: [LoopbackReceiver(configuration: Self.listenerPages), DesktopSchemeReceiver()])
        let timeout = timeout
        let hintDelivery = hintDelivery
        let task = Task { () async throws -> Void in
            try await client.endSession(idTokenHint: idToken, hintDelivery: hintDelivery, environment: environment) {
                session in
                session.timeout = timeout
                session.progressHandler = { progress in Self.show(progress, terminal: terminal, status: status) }
            }
        }
        let trap = InterruptTrap()
        let cancel: @Sendable () -> Void = { task.cancel() }
        let result = await trap.whileTrapping(onSignal: cancel) { await task.result }
        status.stop()
        if let signal = trap.received {
            throw CommandFailure(
                status: signal == SignalNumber.terminate ? ExitStatus.terminated : ExitStatus.interrupted,
                code: "interrupted",
                message:
                    "the logout was cancelled (\(signal == SignalNumber.terminate ? "SIGTERM" : "Ctrl-C")); nothing was revoked or deleted"
            )
        }
        switch result {
        case .success:
            terminal.success("Signed out of the provider.")
            return nil
        case .failure(let error):
            if (error as? OAuthError)?.sessionError?.code == .timedOut {
                return Self.failure(
                    code: "timedOut",
                    message:
                        "the provider did not send the browser back within \(timeout.components.seconds) s, so its session may not have ended",
                    fix: Self.signOutByHand(at: client.configuration.issuer))
            }
            return Self.failure(from: error, profile: profile)
        }
    }

    /// How to finish signing out when webauth could not: by hand, at the provider. Not "run the
    /// command again": the profile is signed out here all the same, so a second run finds
    /// nothing to sign out with.
    static func signOutByHand(at issuer: URL?) -> String {
        guard let issuer, let host = issuer.host else { return "sign out on the provider's own site" }
        let origin = "\(issuer.scheme ?? "https")://\(host)\(issuer.port.map { ":\($0)" } ?? "")"
        return "sign out at the provider by hand: open \(origin) in the browser and sign out there"
    }

    /// What the loopback listener shows the browser when the provider sends it back.
    static let listenerPages = LoopbackReceiver.Configuration(
        successPage: .init(
            title: "Signed out", message: "Signed out — you can close this window and return to the terminal."),
        failurePage: .init(
            title: "Sign-out failed",
            message: "The provider did not sign you out. You can close this window and return to the terminal."),
        rejectedPage: .init(
            title: "Sign-out failed",
            message: "This answer was not expected. Close this window and try again from the terminal."))

    /// Shows a session's progress: lines, and a status line while waiting for the browser.
    private static func show(_ progress: SessionProgress, terminal: TerminalOutput, status: StatusHolder) {
        switch progress.phase {
        case .opening:
            terminal.line("Opening the provider's sign-out page with \(progress.browserName ?? "the browser")…")
        case .waiting:
            status.replace(
                with: terminal.startStatus("Waiting for the provider to send the browser back (Ctrl-C cancels)…"))
        case .notice:
            if let message = progress.message { terminal.note(message) }
        default:
            break
        }
    }

    /// A failure of this step.
    static func failure(code: String, message: String, fix: String?) -> CommandFailure {
        CommandFailure(status: ExitStatus.endSessionFailed, code: code, message: message, fix: fix)
    }

    /// A failure of this step from an error of the OAuth layer, with a fix that fits.
    static func failure(from error: any Error, profile: String) -> CommandFailure {
        var failure = CommandFailure.from(error, profile: profile, action: "sign-out")
        failure.status = ExitStatus.endSessionFailed
        if let error = error as? OAuthError {
            switch error.code {
            case .endpointUnavailable:
                failure.message =
                    "the provider has no end-session endpoint (OpenID Connect RP-Initiated Logout), so its session could not be ended here"
                failure.fix = "sign out on the provider's own site"
            case .stateMismatch:
                failure.fix = "the redirect may be forged; sign out on the provider's own site"
            default:
                break
            }
        }
        return failure
    }
}
