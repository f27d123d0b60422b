// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Logging
import WebAuth
import WebAuthOAuth
import WebAuthPlatform
import WebAuthProcess
import WebAuthSignIn
import WebAuthTokenStore

/// `webauth login`: signs a profile in with OAuth 2.0 / OpenID Connect and stores the tokens.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in with OAuth 2.0 / OpenID Connect and store the tokens under a profile.",
        discussion: """
            Name the provider with exactly one of --issuer (discovered), --preset \
            (\(ClientConfiguration.presetNames.joined(separator: ", "))) or --config FILE (a JSON \
            client configuration, which may hold the client ID too):

              webauth login --issuer https://accounts.example.com --client-id my-cli \\
                  --scope openid --scope offline_access

            The sign-in runs in a browser (see --browser), or with --device on another device \
            with a code. With no display (over SSH, in a container) and no browser named, the \
            device flow is used when the provider offers it, else the URL is printed and the \
            address the browser ends on can be pasted back.

            The tokens and the client configuration go to the token store (--store), so that \
            `webauth token` can refresh and `webauth logout` revoke without these options. \
            Standard error gets a summary; no token is ever printed.

            Client secrets: the command line is visible to other users of this machine (ps), so \
            prefer --client-secret - (one line read from standard input), WEBAUTH_CLIENT_SECRET, \
            or a --config file readable only by you.

            One sign-in per profile at a time: while another process (a second login, a \
            credential helper) has a sign-in for the profile open, login says which process \
            and exits 1; with --wait it waits for that sign-in (up to --timeout) and reports \
            its tokens, or signs in itself if that sign-in fails.

            With --scope offline_access the request carries prompt=consent (OpenID Connect \
            Core §11) unless --prompt gives another; the summary says when the provider did not \
            grant offline access.

            With --register, a provider that offers dynamic client registration (RFC 7591) \
            gets a new native public client first — loopback redirect URI, no client secret, \
            PKCE; --register-auth for a confidential one — and the sign-in uses it; no \
            --client-id is needed. The listener is bound first and its redirect URI, port \
            included, is registered too, for providers that match redirect URIs exactly. The \
            registration is stored with the profile (its secrets beside the tokens), and \
            `webauth logout --unregister` deletes it at the provider where RFC 7592 allows:

              webauth login --issuer https://accounts.example.com --register

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @OptionGroup var options: LoginOptions

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print the result (or the error) as JSON on standard output; never a token.")
    var json = false

    @Flag(help: "Log what the sign-in does on standard error (never secrets).")
    var verbose = false

    @Flag(
        name: .customLong("agent-only"),
        help:
            "Give the tokens to the running agent (webauth agent) alone: nothing is written to the store, and they are gone when the agent stops."
    )
    var agentOnly = false

    @Flag(
        help:
            "With --agent-only: serve the tokens on the agent's forwarding socket too, the one to give to ssh -R or a container."
    )
    var forward = false

    @Flag(
        help:
            "When a sign-in for the profile is already open in another process, wait for it (up to --timeout) and use its tokens, instead of exiting 1."
    )
    var wait = false

    @Flag(
        help:
            "Say where this sign-in would happen (desktop, SSH, WSL, container, a $BROWSER helper), which browser and which way it would use, and why; without signing in."
    )
    var explain = false

    func validate() throws {
        try ProfileOptions.validate(profile)
        guard options.namesProvider else {
            throw ValidationError("Give exactly one of --issuer, --preset and --config.")
        }
        if forward, !agentOnly {
            throw ValidationError(
                "--forward goes with --agent-only; for a stored profile, use `webauth agent add \(profile) --forward`.")
        }
        if options.initialAccessTokenFile != nil, !options.register {
            throw ValidationError("--initial-access-token-file goes with --register.")
        }
        if options.registerAuthentication != nil, !options.register {
            throw ValidationError("--register-auth goes with --register.")
        }
        if options.register {
            guard options.issuer != nil, options.preset == nil, options.configFile == nil else {
                throw ValidationError("--register needs --issuer (the provider whose registration endpoint to use).")
            }
            guard options.clientID == nil, options.clientSecret == nil, !options.clientCredentials else {
                throw ValidationError(
                    "--register makes a new client: leave out --client-id, --client-secret and --client-credentials.")
            }
            guard options.clientAuthentication == nil else {
                throw ValidationError(
                    "--register chooses how the new client authenticates with --register-auth, not --client-auth.")
            }
            let method = options.registerAuthentication.map(ClientAuthenticationMethod.init(rawValue:)) ?? .none
            guard LoginOptions.registrationMethods.contains(method) else {
                throw ValidationError(
                    "--register-auth must be one of "
                        + LoginOptions.registrationMethods.map(\.rawValue).joined(separator: ", "))
            }
            if method == .privateKeyJWT, options.clientKeyFile == nil {
                throw ValidationError(
                    "--register-auth private_key_jwt needs --client-key FILE (the key the client signs with).")
            }
            if method != .privateKeyJWT, options.clientKeyFile != nil {
                throw ValidationError("--client-key goes with --register-auth private_key_jwt.")
            }
        }
    }

    func run() async throws {
        let output = CommandOutput(json: json)
        let terminal = TerminalOutput()
        do {
            try await signIn(output: output, terminal: terminal)
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "sign-in")
            output.failure(failure, terminal: terminal)
            throw ExitCode(failure.status)
        }
    }

    private func signIn(output: CommandOutput, terminal: TerminalOutput) async throws {
        let environment = ProcessInfo.processInfo.environment
        if explain { return try await self.explain(environment: environment, output: output) }
        if options.register {
            return try await registerAndSignIn(output: output, terminal: terminal, environment: environment)
        }
        let configuration = try options.clientConfiguration(
            secret: try LoginSecret.resolve(options.clientSecret, environment: environment, terminal: terminal))
        var signIn = ProfileSignIn(
            profile: profile, options: options, stores: storeOption.stores(environment: environment),
            verbose: verbose, environment: environment)
        if agentOnly {
            signIn.agentOnly = AgentClient(environment: environment)
            signIn.agentForward = forward
        }
        try await runAlone(signIn, output: output, terminal: terminal) { lease in
            try await signIn.run(configuration: configuration, terminal: terminal, lease: lease)
        }
    }

    /// Runs `body` as the profile's only sign-in (``ProfileSignIn/runAlone(terminal:command:openSignIn:storeAnswers:_:)``)
    /// and reports it; with `--wait`, a sign-in another process had open and finished is
    /// reported as this one's would be, after a line naming that process.
    private func runAlone(
        _ signIn: ProfileSignIn, output: CommandOutput, terminal: TerminalOutput,
        _ body: (SignInLease) async throws -> ProfileSignIn.Outcome
    ) async throws {
        switch try await signIn.runAlone(terminal: terminal, command: "login", openSignIn: wait ? .wait : .refuse, body)
        {
        case .signedIn(let outcome):
            outcome.summary(profile: profile).report(terminal: terminal, output: output)
        case .signedInElsewhere(let previous):
            guard let (store, entry) = try await signIn.stores.find(profile: profile) else {
                throw SignInTurn.holderFailure(profile: profile, previous)
            }
            terminal.note(
                "the sign-in in \(previous.map { "process \($0.pid)" } ?? "another process") stored the tokens; "
                    + "this command signed nobody in.")
            let method = previous?.method.flatMap(SignInPlan.Method.init(rawValue:)) ?? .browser
            LoginSummary(profile: profile, entry: entry, kind: store.kind, location: store.location, method: method)
                .report(terminal: terminal, output: output)
        }
    }
}

extension LoginCommand {
    /// `--explain`: the decision a sign-in would take here, and why, without signing in (the
    /// provider's metadata is fetched only when no flag or browser decides the way).
    private func explain(environment: [String: String], output: CommandOutput) async throws {
        let configuration = try options.clientConfiguration(
            secret: environment[SecretEnvironment.clientSecret].flatMap { $0.isEmpty ? nil : $0 })
        let signIn = ProfileSignIn(
            profile: profile, options: options, stores: storeOption.stores(environment: environment),
            environment: environment)
        let decision = try await signIn.decide(
            configuration: configuration, client: try OAuthClient(configuration: configuration), logger: .webAuthSilent)
        let browser: String
        switch decision.chosen {
        case nil: browser = "none: the client signs in as itself"
        case let chosen? where chosen.browser is TerminalPresenter: browser = "none: the URL is printed"
        case let chosen?: browser = chosen.browser.name
        }
        let plan = decision.plan
        let why = plan.reason ?? Self.flagReason(plan.method, options: options)
        if output.json {
            output.emit([
                "place": decision.surroundings.place.rawValue, "place_reason": decision.surroundings.why,
                "browser": browser, "method": plan.method.rawValue, "method_reason": why,
            ])
        } else {
            output.result(
                """
                where: \(decision.surroundings.place.rawValue) (\(decision.surroundings.why))
                browser: \(browser)
                sign-in: \(plan.method.rawValue) (\(why))
                """)
        }
    }

    /// Why `method` was taken when a flag or an opening browser decided it.
    private static func flagReason(_ method: SignInPlan.Method, options: LoginOptions) -> String {
        switch method {
        case .clientCredentials: "--client-credentials"
        case .device: "--device"
        case .pastedRedirect: options.noBrowser ? "--no-browser" : "no browser opens"
        case .browser: "a browser opens here"
        }
    }

    /// `--register`: registers a client, signs in with it and stores both; a sign-in that
    /// fails takes the fresh registration back.
    private func registerAndSignIn(
        output: CommandOutput, terminal: TerminalOutput, environment: [String: String]
    ) async throws {
        var registering = options
        registering.clientID = LoginRegistration.placeholderClientID
        let base = try registering.clientConfiguration(secret: nil)
        let initialAccessToken = try LoginRegistration.initialAccessToken(
            file: options.initialAccessTokenFile, terminal: terminal)
        var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = verbose ? .debug : .critical
        let signIn = ProfileSignIn(
            profile: profile, options: options, stores: storeOption.stores(environment: environment),
            verbose: verbose, environment: environment)
        // Registered holding the profile's sign-in lease: a sign-in open elsewhere is met first,
        // before a client is made that this command might not use.
        try await runAlone(signIn, output: output, terminal: terminal) { [options, logger] lease in
            // Listening first, so that the provider registers the redirect URI the browser will
            // be sent to, port included: not every provider takes any port (RFC 8252 §7.3).
            let bound = try await LoginRegistration.bindListener(for: base, device: options.device)
            do {
                let outcome = try await registerAndRun(
                    signIn, base: base, bound: bound, initialAccessToken: initialAccessToken, lease: lease,
                    terminal: terminal, environment: environment, logger: logger)
                await bound?.close()
                return outcome
            } catch {
                await bound?.close()
                throw error
            }
        }
    }

    /// Registers the client (with `bound`'s redirect URI too) and signs in with it; a sign-in
    /// that fails takes the fresh registration back.
    private func registerAndRun(
        _ signIn: ProfileSignIn, base: ClientConfiguration, bound: BoundLoopbackReceiver?,
        initialAccessToken: String?, lease: SignInLease, terminal: TerminalOutput, environment: [String: String],
        logger: Logger
    ) async throws -> ProfileSignIn.Outcome {
        let (registration, configuration) = try await LoginRegistration.register(
            base, method: options.registerAuthentication.map(ClientAuthenticationMethod.init(rawValue:)),
            bound: bound?.redirectURI, device: options.device, initialAccessToken: initialAccessToken,
            logger: logger)
        terminal.note(
            "registered client \(UntrustedText(registration.clientID).displayed(limit: 100)) at the provider"
                + (registration.isManageable ? "" : " (it offers no way to delete it later)"))
        for note in registration.notes { terminal.note("the provider's registration answer: \(note)") }
        var registered = signIn
        registered.registration = registration
        registered.boundReceiver = bound
        if agentOnly {
            registered.agentOnly = AgentClient(environment: environment)
            registered.agentForward = forward
        }
        do {
            return try await registered.run(configuration: configuration, terminal: terminal, lease: lease)
        } catch {
            let withdrawn = await LoginRegistration.withdraw(registration, issuer: base.issuer, logger: logger)
            throw LoginRegistration.refusedAsConfidential(error, registration: registration, withdrawn: withdrawn)
                ?? error
        }
    }
}

/// Where `--client-secret` comes from: the option, `-` for one line of standard input, or
/// `WEBAUTH_CLIENT_SECRET`.
enum LoginSecret {
    /// The secret, or `nil` when none is given.
    static func resolve(
        _ option: String?, environment: [String: String], terminal: TerminalOutput
    ) throws -> String? {
        switch option {
        case "-"?:
            let interactive = Terminal.isTerminal(Descriptor.standardInput)
            if interactive { terminal.line("Client secret (not shown): ") }
            guard let line = readLine(from: Descriptor.standardInput, hidingInput: interactive), !line.isEmpty else {
                throw CommandFailure(
                    status: ExitStatus.usage, code: "noClientSecret",
                    message: "--client-secret - found no secret on standard input",
                    fix: "pipe it in: webauth login … --client-secret - < secret-file")
            }
            return line
        case let value?:
            terminal.note(
                "a client secret on the command line is visible to other users of this machine; "
                    + "prefer --client-secret - or WEBAUTH_CLIENT_SECRET")
            return value
        case nil:
            return environment[SecretEnvironment.clientSecret].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// One line from `descriptor`, read a byte at a time so nothing after the newline is
    /// consumed (a pasted redirect may follow on the same input); echo off on a terminal, and
    /// back on however the read ends — Ctrl-C and SIGTERM included.
    static func readLine(from descriptor: Int32, hidingInput: Bool) -> String? {
        hidingInput ? Terminal.withoutEcho(descriptor) { readLine(from: descriptor) } : readLine(from: descriptor)
    }

    private static func readLine(from descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: [UInt8] = [0]
        while bytes.count < 64 * 1024 {
            guard (try? Descriptor.read(descriptor, into: &byte)) == 1 else { break }
            if byte[0] == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self).trimmingTrailingReturn }
            bytes.append(byte[0])
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self).trimmingTrailingReturn
    }
}

extension String {
    /// The string without a trailing carriage return (a line typed on some terminals).
    fileprivate var trimmingTrailingReturn: String { hasSuffix("\r") ? String(dropLast()) : self }
}
