// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuth
import WebAuthTokenStore

/// Who signs a profile in when several processes need it at once, and what the others do,
/// decided from what each process knows: one process holds the profile's ``SignInLease`` and
/// signs in; the others wait for it, then take its tokens, take over, or fail with its reason.
///
/// A process that may not prompt (no terminal, `GIT_TERMINAL_PROMPT=0`, a non-interactive
/// Kubernetes client) never comes here: it answers as it would with no sign-in open, at once.
enum SignInTurn {
    /// What a process that needs a sign-in does, the lease being free or held.
    enum Arrival: Equatable, Sendable {
        /// Take the lease and sign in.
        case lead
        /// Wait for the holder (a credential helper, `login --wait`).
        case wait
        /// Say that a sign-in is open and stop (`login` without `--wait`).
        case refuse
    }

    /// A free lease is taken; a held one is waited for when `waitsForOpenSignIn`, else refused.
    static func arrival(leaseIsHeld: Bool, waitsForOpenSignIn: Bool) -> Arrival {
        guard leaseIsHeld else { return .lead }
        return waitsForOpenSignIn ? .wait : .refuse
    }

    /// What a process does once the lease is its own.
    enum Next: Sendable {
        /// Answer with the stored tokens: the sign-in it waited for stored them (or, for a
        /// credential helper, the store answers anyway).
        case useStored
        /// Sign in; `note` says why, when this process takes over from a holder that ended
        /// without signing in.
        case signIn(note: String?)
        /// Fail as the holder did.
        case fail(CommandFailure)
    }

    /// What the process holding the lease now does.
    ///
    /// - Parameters:
    ///   - profile: The profile.
    ///   - waited: Whether it waited for another holder (rather than finding the lease free).
    ///   - storeAnswers: Whether the store now answers the caller; `nil` when the caller does
    ///     not ask the store (`login`, which signs in again whatever the store holds), and
    ///     goes by the previous holder's outcome instead.
    ///   - previous: The previous holder's record, as it left it.
    ///   - mayPrompt: Whether this process may sign in itself.
    static func next(
        profile: String, waited: Bool, storeAnswers: Bool?, previous: SignInLease.Record?, mayPrompt: Bool
    ) -> Next {
        if storeAnswers == true { return .useStored }
        guard waited else { return .signIn(note: nil) }
        if storeAnswers == nil, previous?.outcome?.signedIn == true { return .useStored }
        guard mayPrompt else { return .fail(holderFailure(profile: profile, previous)) }
        return .signIn(note: takeOverNote(previous))
    }

    /// The holder's failure as this process's: its status, code and message (said to be the
    /// other process's); status 1 when it ended without a word.
    static func holderFailure(profile: String, _ previous: SignInLease.Record?) -> CommandFailure {
        let process = previous.map { "process \($0.pid)" } ?? "another process"
        guard let outcome = previous?.outcome, !outcome.signedIn else {
            return CommandFailure(
                status: ExitStatus.failure, code: "signInEnded",
                message: "the sign-in for profile \"\(profile)\" in \(process) ended without a result",
                fix: "run \(CommandFailure.loginCommand(profile: profile))")
        }
        return CommandFailure(
            status: outcome.status, code: outcome.code ?? "signInFailed",
            message: "the sign-in for profile \"\(profile)\" in \(process) failed: \(shown(outcome.message))",
            fix: "run \(CommandFailure.loginCommand(profile: profile))")
    }

    /// Why this process signs in after the holder it waited for: said on its terminal.
    static func takeOverNote(_ previous: SignInLease.Record?) -> String {
        let process = previous.map { "process \($0.pid)" } ?? "another process"
        let why: String
        switch previous?.outcome {
        case nil: why = "ended without a result (it was stopped)"
        case let outcome? where outcome.signedIn: why = "ended, but its tokens do not answer here"
        case let outcome?: why = "failed: \(shown(outcome.message))"
        }
        return "the sign-in in \(process) \(why); signing in here instead."
    }

    /// What a waiter says once, on its own terminal: which process signs in, where, and how.
    static func waitingNote(profile: String, holder: SignInLease.Record?, timeout: Duration) -> String {
        "a sign-in for profile \"\(profile)\" is open in \(describe(holder)): waiting for it to finish "
            + "(up to \(timeout.components.seconds) s; Ctrl-C stops waiting)."
    }

    /// `login` without `--wait` when a sign-in is open: status 1.
    static func alreadyOpen(profile: String, holder: SignInLease.Record?) -> CommandFailure {
        CommandFailure(
            status: ExitStatus.failure, code: "signInOpen",
            message: "a sign-in for \(profile) is already open in \(describe(holder))",
            fix: "finish it there, or add --wait to wait for it and use its tokens")
    }

    /// A waiter whose `--timeout` passed before the holder ended.
    static func waitTimedOut(profile: String, holder: SignInLease.Record?, timeout: Duration) -> CommandFailure {
        CommandFailure(
            status: ExitStatus.timedOut, code: "timedOut",
            message:
                "the sign-in for profile \"\(profile)\" open in \(describe(holder)) did not finish within "
                + "\(timeout.components.seconds) s",
            fix: "finish it there, or run the command again (with a longer --timeout)")
    }

    /// "process N (webauth git-credential on /dev/pts/3, a browser page)".
    static func describe(_ holder: SignInLease.Record?) -> String {
        guard let holder else { return "another process" }
        var details: [String] = []
        if let command = holder.command {
            details.append("webauth \(shown(command))" + (holder.terminal.map { " on \(shown($0))" } ?? ""))
        } else if let terminal = holder.terminal {
            details.append("on \(shown(terminal))")
        }
        details.append(methodPhrase(holder.method))
        return "process \(holder.pid) (\(details.joined(separator: ", ")))"
    }

    /// How the holder signs in, in words.
    static func methodPhrase(_ method: String?) -> String {
        switch method.flatMap(SignInPlan.Method.init(rawValue:)) {
        case .browser?: "a browser page"
        case .device?: "a device code"
        case .pastedRedirect?: "a printed URL whose redirect is pasted back"
        case .clientCredentials?: "the client signing in as itself"
        case nil: "choosing how to sign in"
        }
    }

    /// Text from the record, read from a file: shown as untrusted.
    private static func shown(_ text: String?) -> String {
        UntrustedText(text ?? "no reason given").displayed(limit: 300)
    }
}
