// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuth
import WebAuthOAuth
import WebAuthTokenStore

/// `webauth logout`: revokes a profile's tokens at the provider and forgets them here.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke a profile's tokens at the provider and delete them from the store.",
        discussion: """
            When the provider has a revocation endpoint (RFC 7009), the refresh token and then \
            the access token are revoked there. The stored entry is deleted in any case, also \
            when revoking fails; the exit status is then 13 and the message says why, since the \
            tokens may stay valid at the provider until they expire. A provider without a \
            revocation endpoint is noted, and the exit status is 0.

            With --end-session it first signs out of the provider too (OpenID Connect \
            RP-Initiated Logout): the provider's end-session page opens in a browser with the \
            stored ID token as hint, and webauth waits (up to --timeout) for the provider to send \
            the browser back with the state it sent. The ID token is never on a command line: a \
            browser webauth does not control (xdg-open, BROWSER, a --browser program) is sent to \
            a one-use page on 127.0.0.1, served only to your own user, which posts the request to \
            the provider; with --without-id-token-hint it opens the end-session address without \
            the hint instead, for a provider that refuses a posted form (django-oauth-toolkit \
            does), which then asks you to confirm. The tokens are then revoked and forgotten \
            whatever happened there; when signing out of the provider failed (no ID token stored, \
            no end-session endpoint, a wrong state, no answer in time) the message says so and the \
            exit status is 14. The provider must accept the profile's redirect URI as a \
            post-logout redirect URI.

            With --unregister, a client the profile registered with `webauth login --register` \
            is deleted at the provider too (RFC 7592), after the tokens are revoked, and then \
            forgotten. A provider that offers no deletion, or no longer knows the client, is \
            noted; a deletion that fails exits 13 and names the client ID, so that the \
            provider's administrator can remove it.

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print the outcome as JSON on standard output.")
    var json = false

    @Flag(
        name: .customLong("end-session"),
        help: "Sign out of the provider too, in a browser (OpenID Connect RP-Initiated Logout), before revoking.")
    var endSession = false

    @Option(
        help: ArgumentHelp(
            "With --end-session, the browser: automatic, system, chromium, firefox, or a path (default: WEBAUTH_BROWSER, else automatic).",
            valueName: "BROWSER"),
        completion: .list(["automatic", "system", "chromium", "firefox"]))
    var browser: String?

    @Flag(
        name: .customLong("without-id-token-hint"),
        help: ArgumentHelp(
            "With --end-session, send no ID token hint through a browser webauth does not control, instead of posting it from a one-use local page: for a provider that refuses posted sign-out forms."
        ))
    var withoutIDTokenHint = false

    @Option(help: "With --end-session, give up waiting for the provider after this many seconds.")
    var timeout: Double = Self.defaultTimeout

    /// How long `--end-session` waits for the provider by default: two minutes. The page there
    /// asks at most for a confirmation, and a provider that cannot send the browser back (a
    /// post-logout redirect URI it does not know) shows an error page and never will.
    static let defaultTimeout: Double = 120

    @Flag(help: "Log what signing out of the provider does on standard error (never secrets).")
    var verbose = false

    @Flag(help: "Also delete the client the profile registered with `login --register` (RFC 7592).")
    var unregister = false

    func validate() throws {
        try ProfileOptions.validate(profile)
        try SecondsOption.validate(timeout, option: "--timeout")
        if !endSession, browser != nil { throw ValidationError("--browser is used only with --end-session.") }
        if !endSession, withoutIDTokenHint {
            throw ValidationError("--without-id-token-hint is used only with --end-session.")
        }
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        let terminal = TerminalOutput()
        let signOut: TokenStores.SignOut
        var endSessionFailure: CommandFailure?
        var registration: ClientRegistration?
        do {
            let stores = storeOption.stores()
            // An unreadable entry holds no usable registration; signing out still deletes it.
            if unregister { registration = (try? await stores.find(profile: profile))?.entry.registration }
            if endSession {
                endSessionFailure = try await ProviderSignOut(
                    profile: profile, stores: stores, browser: browser, timeout: SecondsOption.duration(timeout),
                    hintDelivery: withoutIDTokenHint ? .omitted : .formPost, verbose: verbose
                ).run(terminal: terminal)
                // What happens to the tokens is said once, by the revocation's line below.
                if let endSessionFailure {
                    terminal.error(
                        "signing out of the provider failed: \(endSessionFailure.message)", fix: endSessionFailure.fix)
                }
            }
            signOut = try await stores.signOut(profile: profile)
        } catch {
            var failure = CommandFailure.from(error, profile: profile, action: "logout")
            if failure.code == "notSignedIn" {
                // A second logout: nothing to do, and signing in is not what was asked for.
                failure.message = "profile \"\(profile)\" is already signed out: nothing is stored for it"
                failure.fix = nil
            }
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }
        if signOut.forgottenByAgent { terminal.note("the agent holding profile \"\(profile)\" forgot it too.") }
        var revocationFailure: CommandFailure?
        switch signOut.revocation {
        case .revoked:
            terminal.success("Revoked the tokens at the provider and signed out of profile \"\(profile)\".")
        case .unsupported:
            terminal.note(
                "the provider has no revocation endpoint: the tokens were deleted here but stay valid at the "
                    + "provider until they expire.")
            terminal.success("Signed out of profile \"\(profile)\".")
        case .notPossible:
            terminal.note(
                "the entry does not name its client, so the tokens could not be revoked at the provider; "
                    + "they were deleted here.")
            terminal.success("Signed out of profile \"\(profile)\".")
        case .unreadable:
            terminal.note(
                "the stored entry could not be read, so nothing could be revoked at the provider; it was deleted "
                    + "here, and its tokens stay valid there until they expire.")
            terminal.success("Signed out of profile \"\(profile)\".")
        case .failed(let error):
            let failure = CommandFailure.from(error, profile: profile, action: "revocation")
            revocationFailure = failure
            terminal.error(
                "revoking the tokens at the provider failed: \(failure.message)",
                fix: "they were deleted here, but may stay valid at the provider until they expire")
        }
        var unregistration: Unregistration?
        if unregister { unregistration = await Self.unregister(registration, terminal: terminal) }
        if json {
            var object: [String: Any] = [
                "profile": profile, "deleted": true, "store": signOut.store.rawValue,
                "revocation": Self.name(of: signOut.revocation), "forgotten_by_agent": signOut.forgottenByAgent,
            ]
            if let revocationFailure {
                object["revocation_error"] = ["code": revocationFailure.code, "message": revocationFailure.message]
            }
            if endSession {
                object["end_session"] = endSessionFailure == nil ? "ended" : "failed"
                if let endSessionFailure {
                    object["end_session_error"] = [
                        "code": endSessionFailure.code, "message": endSessionFailure.message,
                    ]
                }
            }
            if let unregistration {
                object["unregistration"] = unregistration.name
                if case .failed(let failure) = unregistration {
                    object["unregistration_error"] = ["code": failure.code, "message": failure.message]
                }
            }
            output.emit(object)
        }
        // Tokens that may stay valid, or a client left registered, are the worse news, so their
        // status wins.
        if revocationFailure != nil { throw ExitCode(ExitStatus.revocationFailed) }
        if case .failed? = unregistration { throw ExitCode(ExitStatus.revocationFailed) }
        if endSessionFailure != nil { throw ExitCode(ExitStatus.endSessionFailed) }
    }

    /// The revocation's name in `--json` output.
    static func name(of revocation: TokenStores.Revocation) -> String {
        switch revocation {
        case .revoked: "revoked"
        case .unsupported: "unsupported"
        case .notPossible: "not_possible"
        case .unreadable: "unreadable"
        case .failed: "failed"
        }
    }
}

extension LogoutCommand {
    /// What `--unregister` did with the profile's client registration.
    enum Unregistration {
        /// The profile registered no client.
        case notRegistered
        /// Deleted at the provider (RFC 7592).
        case deleted
        /// The provider gave no way to delete it: forgotten here, still registered there.
        case unsupported
        /// The provider no longer knew the client or its registration access token.
        case alreadyGone
        /// Deleting failed: forgotten here, maybe still registered there.
        case failed(CommandFailure)

        /// The name in `--json` output.
        var name: String {
            switch self {
            case .notRegistered: "not_registered"
            case .deleted: "deleted"
            case .unsupported: "unsupported"
            case .alreadyGone: "already_gone"
            case .failed: "failed"
            }
        }
    }

    /// Deletes `registration` at the provider and tells the person how it went.
    static func unregister(_ registration: ClientRegistration?, terminal: TerminalOutput) async -> Unregistration {
        guard let registration else {
            terminal.note("the profile registered no client, so there was nothing to unregister")
            return .notRegistered
        }
        let client = UntrustedText(registration.clientID).displayed(limit: 100)
        guard registration.isManageable, let uri = registration.registrationClientURI else {
            terminal.note(
                "the provider gave no way to delete client \(client) (no RFC 7592 registration URI); it was forgotten "
                    + "here and stays registered there")
            return .unsupported
        }
        do {
            try await ClientRegistrar(issuer: registration.registrationEndpoint ?? uri).delete(registration)
            terminal.success("Deleted client \(client) at the provider.")
            return .deleted
        } catch let error where error.code == .registrationUnknown {
            terminal.note("the provider no longer knows client \(client); it was forgotten here")
            return .alreadyGone
        } catch let error where error.code == .endpointUnavailable {
            terminal.note(
                "the provider does not delete registrations; client \(client) was forgotten here and stays "
                    + "registered there")
            return .unsupported
        } catch {
            let failure = CommandFailure.from(error, profile: "", action: "client deletion")
            terminal.error(
                "deleting client \(client) at the provider failed: \(failure.message)",
                fix: "it was forgotten here; ask the provider's administrator to remove it")
            return .failed(failure)
        }
    }
}
