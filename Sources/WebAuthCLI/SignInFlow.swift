// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTokenStore

/// The interactive part of `webauth login`: a browser session or the device flow, with
/// progress on standard error, Ctrl-C and SIGTERM cancelling, and `--timeout`.
struct SignInFlow: Sendable {
    /// The client signing in.
    let client: OAuthClient
    /// Where progress goes.
    let terminal: TerminalOutput
    /// How long the person has.
    let timeout: Duration
    /// A receiver that listens already, tried before the standard ones: the loopback listener
    /// bound before a dynamic registration, whose port the provider registered.
    var boundReceiver: (any CallbackReceiver)? = nil

    /// Signs in through a browser session in `browser`, chosen once by the caller (the
    /// terminal presenter for a pasted redirect).
    func browser(_ browser: any Browser, ephemeral: Bool) async throws -> TokenSet {
        let status = StatusHolder()
        defer { status.stop() }
        let (client, terminal, timeout) = (client, terminal, timeout)
        var standard = SessionEnvironment.standard(browser: browser)
        if let boundReceiver { standard.receivers.insert(boundReceiver, at: 0) }
        let environment = standard
        return try await runTrapped(CancellableSignIn()) {
            Task {
                try await client.signIn(environment: environment) { session in
                    session.timeout = timeout
                    session.prefersEphemeralWebBrowserSession = ephemeral
                    session.progressHandler = { progress in
                        Self.show(progress, terminal: terminal, status: status)
                    }
                }
            }
        }
    }

    /// Signs in with the device authorization grant: shows the code and where to confirm it,
    /// then polls until the person approves, refuses, the code expires or `timeout` passes.
    func device() async throws -> TokenSet {
        let (client, terminal) = (client, terminal)
        let authorization = try await client.startDeviceAuthorization()
        showInstructions(for: authorization)
        let expired = TimeoutFlag()
        let work = CancellableSignIn()
        let timer = Task { [timeout] in
            try await Task.sleep(for: timeout)
            expired.set()
            work.cancel()
        }
        defer { timer.cancel() }
        let minutes = max(1, Int((authorization.expiresAt.timeIntervalSinceNow / 60).rounded()))
        let status = StatusHolder()
        defer { status.stop() }
        do {
            return try await runTrapped(work) {
                status.replace(
                    with: terminal.startStatus(
                        "Waiting for approval (the code expires in \(minutes) min; Ctrl-C cancels)…"))
                return Task { try await client.pollDeviceAuthorization(authorization) }
            }
        } catch  where expired.isSet {
            // Whatever the cancelled poll ended with (a cancelled request, say), the cause is the
            // time limit.
            throw CommandFailure(
                status: ExitStatus.timedOut, code: "timedOut",
                message: "the device was not approved within \(timeout.components.seconds) s",
                fix: "run the command again (with a longer --timeout)")
        }
    }

    /// The code and the page, prominently, on standard error.
    private func showInstructions(for authorization: DeviceAuthorization) {
        let code = authorization.userCode
        for line in ["", "To sign in, open this page in a browser on any device:", ""] { terminal.line(line) }
        if let complete = authorization.verificationURIComplete {
            terminal.line("    ", emphasizing: complete.absoluteString)
            terminal.line("")
            terminal.line("and check that it shows the code  ", emphasizing: code)
            terminal.line("(or open \(authorization.verificationURI.absoluteString) and enter the code).")
        } else {
            terminal.line("    ", emphasizing: authorization.verificationURI.absoluteString)
            terminal.line("")
            terminal.line("and enter the code  ", emphasizing: code)
        }
        terminal.line("")
    }

    /// Starts the sign-in `start` makes once Ctrl-C and SIGTERM are trapped (so that nothing
    /// that says "Ctrl-C cancels" runs before they are), and waits for it; either signal
    /// cancels it, and a cancellation by signal ends with the signal's exit status.
    private func runTrapped(
        _ work: CancellableSignIn, _ start: () -> Task<TokenSet, any Error>
    ) async throws -> TokenSet {
        let trap = InterruptTrap()
        let cancel: @Sendable () -> Void = { work.cancel() }
        let result = await trap.whileTrapping(onSignal: cancel) { await work.run(start).result }
        switch result {
        case .success(let tokens):
            return tokens
        case .failure(let error):
            guard let signal = trap.received else { throw error }
            throw CommandFailure(
                status: signal == SignalNumber.terminate ? ExitStatus.terminated : ExitStatus.interrupted,
                code: "interrupted",
                message: "the sign-in was cancelled (\(signal == SignalNumber.terminate ? "SIGTERM" : "Ctrl-C"))")
        }
    }

    /// Shows a session's progress: lines, and a status line while waiting for the browser.
    private static func show(_ progress: SessionProgress, terminal: TerminalOutput, status: StatusHolder) {
        let inTerminal = progress.browserName == TerminalPresenter.browserName
        switch progress.phase {
        case .listening:
            if let redirectURI = progress.redirectURI {
                terminal.line("Listening for the redirect at \(redirectURI.absoluteString)")
            }
        case .opening where !inTerminal:
            terminal.line("Opening the sign-in page with \(progress.browserName ?? "the browser")…")
        case .waiting where !inTerminal:
            status.replace(with: terminal.startStatus("Waiting for the browser to come back (Ctrl-C cancels)…"))
        case .waiting:
            terminal.line("Waiting for the redirect… (Ctrl-C cancels)")
        case .notice:
            if let message = progress.message { terminal.note(message) }
        default:
            break
        }
    }
}

/// The status line a session's progress handler started, so the flow can remove it.
final class StatusHolder: Sendable {
    private let line = Locked<StatusLine?>(nil)

    /// Shows `new` instead of the current status line.
    func replace(with new: StatusLine) {
        line.withLock { line in
            line?.stop()
            line = new
        }
    }

    /// Removes the status line.
    func stop() {
        line.withLock { line in
            line?.stop()
            line = nil
        }
    }
}

/// The task a sign-in runs in, cancellable before it exists: a cancel that comes first
/// cancels the task as soon as it starts.
final class CancellableSignIn: Sendable {
    private let state = Locked<(task: Task<TokenSet, any Error>?, cancelled: Bool)>((nil, false))

    /// Starts the task `make` makes (cancelled at once if ``cancel()`` came first).
    func run(_ make: () -> Task<TokenSet, any Error>) -> Task<TokenSet, any Error> {
        let task = make()
        let cancelledAlready = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelledAlready { task.cancel() }
        return task
    }

    /// Cancels the task, now or as soon as it starts.
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// Set once `--timeout` has passed.
final class TimeoutFlag: Sendable {
    private let value = Locked(false)

    /// Marks the time as up.
    func set() { value.withLock { $0 = true } }

    /// Whether the time is up.
    var isSet: Bool { value.withLock { $0 } }
}
