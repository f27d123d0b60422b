// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuth
import WebAuthOAuth
import WebAuthPlatform
import WebAuthProcess
import WebAuthSignIn
import WebAuthTokenStore

/// Signs a profile in and stores the tokens with their client configuration: what `webauth
/// login` does, and what the credential helpers do when the profile has no usable sign-in and
/// a person is there.
///
/// The way is chosen by ``SignInPlan`` from ``LoginOptions`` and the situation (a display, a
/// browser, the provider's device flow); progress and prompts go to standard error and the
/// pasted redirect is read from standard input, so a caller that must keep them for itself
/// (git) points them at the terminal first (``ControllingTerminal``).
struct ProfileSignIn {
    /// The profile to store the tokens under.
    var profile: String
    /// How to sign in.
    var options: LoginOptions
    /// The stores to save in.
    var stores: TokenStores
    /// Whether the sign-in logs what it does (never secrets) on standard error.
    var verbose = false
    /// The environment: the browser selection's and the store's.
    var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The client's dynamic registration, stored with the tokens, when `login --register`
    /// registered the client for this sign-in.
    var registration: ClientRegistration? = nil
    /// With `login --agent-only`: the agent the tokens are given to, instead of a store.
    var agentOnly: AgentClient? = nil
    /// With `login --agent-only --forward`: the agent serves them on its forwarding socket too.
    var agentForward = false
    /// With `login --register`: the loopback listener bound before registering, whose redirect
    /// URI the provider registered; the browser sign-in takes it.
    var boundReceiver: BoundLoopbackReceiver? = nil

    /// What a sign-in stored.
    struct Outcome {
        /// The stored entry.
        var entry: StoredTokens
        /// The store's kind.
        var kind: TokenStoreKind
        /// The store's location.
        var location: String
        /// How the person signed in.
        var method: SignInPlan.Method
        /// The agent's socket, when the tokens went to the agent alone.
        var agentSocket: String? = nil

        /// The summary `login` shows.
        func summary(profile: String) -> LoginSummary {
            LoginSummary(
                profile: profile, entry: entry, kind: kind, location: location, method: method,
                agentSocket: agentSocket)
        }
    }

    /// Signs in with `configuration`, telling the person on `terminal`, and saves the tokens;
    /// says how it signs in on `lease`, for processes waiting for it.
    func run(
        configuration: ClientConfiguration, terminal: TerminalOutput, lease: SignInLease? = nil
    ) async throws -> Outcome {
        var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = verbose ? .debug : .critical
        let client = try OAuthClient(configuration: configuration, logger: logger)

        // Open the store first: a keyring that cannot be used should stop us before the
        // person signs in, not after. (For the agent alone: check that it answers.)
        let store: (any TokenStore)?
        if let agentOnly {
            // Refused before the person signs in, not after: the agent takes a configuration
            // that names its provider by the issuer alone.
            if let problem = AgentOnlyEntryRule.problem(in: configuration) {
                throw CommandFailure(
                    status: ExitStatus.invalidInput, code: "agentOnlyConfiguration",
                    message: "--agent-only cannot be used here: \(problem)",
                    fix:
                        "sign in to the store without --agent-only, then hand the profile to the agent with `webauth agent add \(profile)`"
                )
            }
            _ = try await agentOnly.status()
            store = nil
        } else {
            store = try await stores.storeForSaving()
        }

        let decision = try await decide(configuration: configuration, client: client, logger: logger)
        let (chosen, plan) = (decision.chosen, decision.plan)
        lease?.announce(command: nil, terminal: nil, method: plan.method.rawValue)
        if let reason = plan.reason { terminal.note(reason) }

        var flow = SignInFlow(client: client, terminal: terminal, timeout: SecondsOption.duration(options.timeout))
        flow.boundReceiver = boundReceiver
        let tokens: TokenSet
        do {
            switch (plan.method, chosen) {
            case (.clientCredentials, _):
                tokens = try await client.clientCredentials()
            case (.device, _):
                tokens = try await flow.device()
            case (.browser, let chosen?):
                tokens = try await flow.browser(chosen.browser, ephemeral: options.ephemeral)
            case (.browser, nil), (.pastedRedirect, _):
                let terminal = TerminalPresenter(sshDestination: decision.surroundings.sshDestination)
                tokens = try await flow.browser(terminal, ephemeral: options.ephemeral)
            }
        } catch let error as OAuthError
            where error.serverError?.code == .invalidClient
            && configuration.effectiveClientAuthentication == .privateKeyJWT
        {
            // The fix is the key, not a secret.
            throw CommandFailure.from(
                error, profile: profile, action: "sign-in", clientAuthentication: .privateKeyJWT)
        } catch let error as OAuthError
            where error.sessionError?.code == .callbackListenerFailed
            && ((try? Callback(redirectURI: configuration.redirectURI))?.loopbackEndpoint?.port ?? 0) != 0
        {
            // A fixed port: registered with the provider, which may take no other.
            let port = (try? Callback(redirectURI: configuration.redirectURI))?.loopbackEndpoint?.port ?? 0
            throw CommandFailure(
                status: ExitStatus.listenerFailed,
                code: error.sessionError?.code.description ?? "callbackListenerFailed",
                message: "port \(port) on the loopback address is taken, and this profile's redirect URI "
                    + "\(configuration.redirectURI.absoluteString) needs it: the provider may accept no other port",
                fix: "end the program that holds it (ss -ltnp 'sport = :\(port)' names it) and sign in again, or "
                    + "register a new client with `webauth login --register`")
        } catch let error as OAuthError
            where error.code == .server && options.prompt == "none"
            && [.loginRequired, .consentRequired, .interactionRequired].contains(error.serverError?.code)
        {
            // Nobody was asked: the provider could not sign in silently.
            let code = error.serverError.map { "\($0.code)" } ?? "login_required"
            throw CommandFailure(
                status: ExitStatus.providerRefused, code: code,
                message:
                    "the provider cannot sign in without asking the person (\(code)), and --prompt none forbids it",
                fix: "sign in again without --prompt none")
        }

        var entry = StoredTokens(tokens: tokens, configuration: configuration)
        let metadata = try? await client.metadata()
        entry.issuer = entry.issuer ?? metadata?.issuer ?? tokens.idTokenClaims?.issuer
        entry.tokenEndpoint = entry.tokenEndpoint ?? metadata?.tokenEndpoint?.absoluteString
        entry.registration = registration
        guard let store else {
            try await agentOnly?.add(profile: profile, entry: entry, forward: agentForward)
            return Outcome(
                entry: entry, kind: .file, location: "", method: plan.method, agentSocket: agentOnly?.socketPath)
        }
        let savedIn = try await stores.save(entry, profile: profile, in: store)
        return Outcome(entry: entry, kind: savedIn.kind, location: savedIn.location, method: plan.method)
    }

    /// How a sign-in would go, decided before anything is shown to the person.
    struct Decision {
        /// Where it happens.
        var surroundings: SignInSurroundings
        /// The browser chosen for the session, and whether it is the terminal the automatic
        /// choice falls back to; `nil` for a client signing in as itself.
        var chosen: (browser: any Browser, fallsBackToTerminal: Bool)?
        /// The way.
        var plan: SignInPlan
    }

    /// Chooses the browser once, for this sign-in's needs (to be handed to the session), and
    /// the way to sign in; asks the provider's metadata only when no flag or browser decides.
    func decide(configuration: ClientConfiguration, client: OAuthClient, logger: Logger) async throws -> Decision {
        var selection = BrowserSelection.fromEnvironment(environment)
        if let browser = options.browser, let choice = BrowserChoice(browser) { selection.choice = choice }
        selection.logger = logger
        let chosen =
            configuration.grant == .clientCredentials ? nil : selection.choose(for: browserNeeds(configuration))
        var situation = SignInPlan.Situation(
            clientCredentials: configuration.grant == .clientCredentials, deviceRequested: options.device,
            noBrowserRequested: options.noBrowser, opensBrowser: chosen.map { !$0.fallsBackToTerminal } ?? false)
        if SignInPlan.needsProviderMetadata(situation) {
            situation.providerOffersDevice = try await client.metadata().deviceAuthorizationEndpoint != nil
        }
        return Decision(surroundings: selection.surroundings, chosen: chosen, plan: SignInPlan.choose(situation))
    }

    /// What this sign-in's session asks of its browser: the configured callback, caught by a
    /// standard receiver when one can, and an ephemeral session with `--ephemeral`.
    private func browserNeeds(_ configuration: ClientConfiguration) -> BrowserNeeds {
        let callback = (try? Callback(redirectURI: configuration.redirectURI)) ?? .loopback()
        return BrowserNeeds(
            callback: callback, prefersEphemeralSession: options.ephemeral,
            callbackIsReceivable: SessionEnvironment.standardReceivers.contains { $0.canReceive(callback) })
    }

    // MARK: One sign-in per profile

    /// How a sign-in meets one another process has open for the same profile.
    enum OpenSignIn: Sendable {
        /// Wait for it, then take its tokens or, when it failed, take over.
        case wait
        /// Fail at once, saying where it is open (`login` without `--wait`).
        case refuse
    }

    /// How ``runAlone(terminal:command:openSignIn:storeAnswers:_:)`` ended.
    enum Ending {
        /// This process signed in.
        case signedIn(Outcome)
        /// No sign-in here: the one another process had open stored the tokens (`previous`
        /// is its record), or the store answers already.
        case signedInElsewhere(previous: SignInLease.Record?)
    }

    /// Runs `signIn` as the only interactive sign-in of the profile among all of this user's
    /// processes (see ``SignInLease`` and ``SignInTurn``): with the lease free, it runs at
    /// once; held by another process, this one says so once on `terminal` and waits for it
    /// without CPU (up to `--timeout`) when `openSignIn` is ``OpenSignIn/wait``, then answers
    /// from the store if that sign-in stored tokens, or signs in itself if it failed.
    ///
    /// - Parameters:
    ///   - command: This command's name, told to the waiters.
    ///   - storeAnswers: Whether the store answers the caller now, asked once the lease is
    ///     this process's (a credential helper); `nil` to sign in whatever the store holds
    ///     unless a sign-in waited for stored tokens (`login`).
    ///   - signIn: The sign-in, run holding the lease.
    func runAlone(
        terminal: TerminalOutput, command: String, openSignIn: OpenSignIn,
        storeAnswers: (() async -> Bool)? = nil, _ signIn: (SignInLease) async throws -> Outcome
    ) async throws -> Ending {
        let timeout = SecondsOption.duration(options.timeout)
        let lease: SignInLease
        var waited = false
        switch try SignInLease.attempt(profile: profile, environment: environment) {
        case .acquired(let free):
            lease = free
        case .held(let holder):
            switch SignInTurn.arrival(leaseIsHeld: true, waitsForOpenSignIn: openSignIn == .wait) {
            case .refuse: throw SignInTurn.alreadyOpen(profile: profile, holder: holder)
            case .lead, .wait: break
            }
            terminal.note(SignInTurn.waitingNote(profile: profile, holder: holder, timeout: timeout))
            guard
                let taken = try await SignInLease.wait(profile: profile, environment: environment, timeout: timeout)
            else { throw SignInTurn.waitTimedOut(profile: profile, holder: holder, timeout: timeout) }
            (lease, waited) = (taken, true)
        }
        let answers: Bool? = if let storeAnswers { await storeAnswers() } else { nil }
        switch SignInTurn.next(
            profile: profile, waited: waited, storeAnswers: answers, previous: lease.previous, mayPrompt: true)
        {
        case .useStored:
            lease.release()
            return .signedInElsewhere(previous: lease.previous)
        case .fail(let failure):
            lease.release()
            throw failure
        case .signIn(let note):
            if let note { terminal.note(note) }
        }
        lease.announce(command: command, terminal: Terminal.name(Descriptor.standardError), method: nil)
        do {
            let outcome = try await signIn(lease)
            lease.finish(.signedIn)
            return .signedIn(outcome)
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "sign-in")
            lease.finish(.failed(status: failure.status, code: failure.code, message: failure.message))
            throw error
        }
    }

    // MARK: Signing in for a credential helper

    /// Whether signing in again would cure `failure`: the profile is not signed in, was saved
    /// without its configuration, its token expired with no refresh token, or the provider
    /// refused the refresh token (`invalid_grant`: expired or revoked). Not a profile that
    /// lacks an ID token: signing in the same way would not bring one.
    static func cures(_ failure: CommandFailure) -> Bool {
        let codes = [
            "notSignedIn", "noConfiguration", OAuthError.Code.noRefreshToken.rawValue,
            OAuthServerError.Code.invalidGrant.rawValue,
        ]
        return codes.contains(failure.code)
    }

    /// The configuration a credential helper signs in with: the stored profile's own (it wins),
    /// else the one `options` describe (the client secret from `WEBAUTH_CLIENT_SECRET` or the
    /// `--config` file); `nil` when neither exists.
    func configuration(stored: StoredTokens?) throws -> ClientConfiguration? {
        if let configuration = stored?.configuration { return configuration }
        guard options.namesProvider else { return nil }
        let secret = environment[SecretEnvironment.clientSecret].flatMap { $0.isEmpty ? nil : $0 }
        return try options.clientConfiguration(secret: secret)
    }

    /// The failure a credential helper reports when it has nothing to sign in with:
    /// `failure`'s message, and a fix naming both ways on (`webauth login`, or the login
    /// options on the helper's own command line, `where`).
    static func nothingToSignInWith(_ failure: CommandFailure, profile: String, where place: String) -> CommandFailure {
        var explained = failure
        explained.fix =
            "run \(CommandFailure.loginCommand(profile: profile)), or give \(place) the login options "
            + "(--issuer URL --client-id ID, --preset NAME or --config FILE) to sign in by itself"
        return explained
    }
}
