// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import GtkWindowShim
import Synchronization
import WebAuth
import WebAuthCompat
import WebAuthOAuth

/// The app: the window's buttons, the URLs the desktop opens it with, and the sign-in, which is
/// seed 000's view model with the token exchange of an OpenID Connect client.
@MainActor
final class ExampleApp {
    let options: ExampleOptions
    /// Where the desktop's callback URLs go: the session waiting for the app's scheme.
    let receiver: ApplicationSchemeReceiver
    let browser: CancellableBrowser
    let client: OAuthClient
    let viewModel = ExampleSignInViewModel()
    private var signingIn = false

    init(options: ExampleOptions) throws {
        self.options = options
        receiver = ApplicationSchemeReceiver(schemes: [options.scheme])
        // The person's browser as the standard rules choose it for this app's sessions
        // (ephemeral, as the view model asks, with a scheme the app receives itself).
        browser = CancellableBrowser(
            BrowserSelection.fromEnvironment().browser(
                for: BrowserNeeds(
                    callback: .customScheme(options.scheme), prefersEphemeralSession: true, callbackIsReceivable: true))
        )
        client = try OAuthClient(
            configuration: ClientConfiguration(
                issuer: options.issuer, clientID: options.clientID, scopes: options.scopes,
                redirectURI: options.redirectURI, usePushedAuthorization: .never))
        AnilistAPIConfigurations.current.withLock {
            $0 = AnilistAPIConfigurations(id: options.clientID, redirectURL: options.redirectURI)
        }
        viewModel.received = { [unowned self] url, onMainThread in
            Task { @MainActor in self.finish(url, completionOnMainThread: onMainThread) }
        }
        _ = NotificationCenter.default.addObserver(forName: .signInFailed, object: nil, queue: nil) {
            [unowned self] note in
            let onMainThread = Thread.isMainThread
            let message = (note.object as? any Error).map { String(describing: $0) }
            let cancelled = (note.object as? ASWebAuthenticationSessionError)?.code == .canceledLogin
            Task { @MainActor in
                self.failed(message, cancelled: cancelled, completionOnMainThread: onMainThread)
            }
        }
    }

    /// The sessions' environment: the app's own scheme receiver and the person's browser.
    var environment: SessionEnvironment {
        SessionEnvironment(browser: browser, receivers: [receiver])
    }

    /// The window exists.
    func ready() {
        example_app_show_signed_out("Sign in at \(options.issuer.host ?? options.issuer.absoluteString)")
        if options.signInNow { signIn() }
    }

    /// "Sign in": prepares the request (PKCE, state, nonce), then runs the view model's sign-in.
    func signIn() {
        guard !signingIn else { return }
        signingIn = true
        example_app_show_waiting("Preparing the sign-in…")
        Task { @MainActor in
            do {
                let prepared = try await client.prepareAuthorization()
                AnilistAuthenticationURLBuilder.prepared.withLock { $0 = prepared }
                example_app_show_waiting("Continue in your browser. Cancel gives up.")
                say("waiting for the browser")
                ASWebAuthenticationSession.$environment.withValue(environment) {
                    (viewModel as any SeedSignIn).signIn()
                }
            } catch {
                signingIn = false
                example_app_show_signed_out("Could not start: \(error)")
                say("sign-in failed: \(error)")
            }
        }
    }

    /// "Cancel": the person gives up, as closing the browser.
    func cancelSignIn() {
        if !browser.closeByPerson() { say("no sign-in to cancel") }
    }

    /// "Sign out": revokes the tokens where the provider can (RFC 7009), and forgets them.
    func signOut() {
        guard let tokens = viewModel.tokens else { return }
        viewModel.tokens = nil
        example_app_show_signed_out("Signing out…")
        Task { @MainActor in
            let revoked = (try? await client.revoke(tokens)) != nil
            example_app_show_signed_out(revoked ? "Signed out" : "Signed out (the provider did not revoke the tokens)")
            say(revoked ? "signed out" : "signed out; the tokens were not revoked")
        }
    }

    /// The desktop opened the app with `uri`: the callback, handed to the waiting session.
    func open(_ uri: String) {
        guard let url = URL(string: uri), receiver.open(url) else {
            say("no sign-in was waiting for the URL the desktop opened")
            return
        }
    }

    /// The view model received the callback URL: check it and exchange the code.
    private func finish(_ url: URL, completionOnMainThread: Bool) {
        Task { @MainActor in
            defer { signingIn = false }
            guard let prepared = AnilistAuthenticationURLBuilder.prepared.withLock({ $0.take() }) else { return }
            do {
                let tokens = try await client.completeAuthorization(
                    prepared, received: ReceivedCallback(url: url, redirectURI: options.redirectURI))
                guard let claims = tokens.idTokenClaims else {
                    throw OAuthError(code: .invalidResponse, message: "the provider sent no ID token")
                }
                viewModel.tokens = tokens
                let name = claims.name ?? claims.preferredUsername ?? claims.subject
                example_app_show_signed_in(name, "Subject \(claims.subject) at \(claims.issuer)")
                say("signed in as \(claims.subject)")
                say("completion on main thread: \(completionOnMainThread ? "yes" : "no")")
                if options.quitWhenSignedIn { example_app_quit() }
            } catch {
                example_app_show_signed_out("Sign-in failed: \(error)")
                say("sign-in failed: \(error)")
            }
        }
    }

    /// The view model's sign-in ended with an error (cancelled, or failed).
    private func failed(_ message: String?, cancelled: Bool, completionOnMainThread: Bool) {
        signingIn = false
        AnilistAuthenticationURLBuilder.prepared.withLock { $0 = nil }
        let failure = "Sign-in failed: \(message ?? "no reason given")"
        example_app_show_signed_out(cancelled ? "Sign-in cancelled" : failure)
        say(cancelled ? "sign-in cancelled" : failure.lowercased())
        say("completion on main thread: \(completionOnMainThread ? "yes" : "no")")
    }

    /// One line on standard output, for people and tests.
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Seed 000's view model, receiving the callback URL where the article reads its token.
final class ExampleSignInViewModel: SignInViewModel {
    /// Called with the callback URL and whether the completion handler ran on the main thread.
    var received: ((URL, Bool) -> Void)?
    /// The signed-in person's tokens (in memory only).
    var tokens: TokenSet?

    /// The article parses an implicit grant's fragment here; this app exchanges a code.
    override func processResponseURL(url: URL) {
        received?(url, Thread.isMainThread)
    }
}
