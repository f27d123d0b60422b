// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuthCredentialHelpers
import WebAuthFastPath
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTokenStore

/// `webauth git-credential`: git's credential helper (gitcredentials(7)), answering with a
/// profile's fresh access token; and `webauth git-credential setup HOST`, which configures git
/// to use it.
struct GitCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "git's credential helper: answer git with a profile's fresh access token.",
        discussion: """
            Set it up for a host once:

              webauth git-credential setup github.com --profile github

            which records github.com with profile github (in the profile index, \
            $XDG_STATE_HOME/webauth/profiles.json) and runs `git config --global` to make this \
            program the helper for https://github.com (an empty helper line first, so no other \
            helper answers for it). git then runs \
            `webauth git-credential --profile github get|store|erase`:

              get    answers username= (--username, else the provider's convention: \
            x-access-token for GitHub, oauth2 otherwise), password= (the access token, refreshed \
            under the profile's lock when it expires within 60 s) and password_expiry_utc=
              store  keeps nothing
              erase  marks the stored access token expired, if it is the one git sends, so the \
            next get refreshes it; it does not sign out

            A profile answers only for the hosts it is bound to: those setup recorded for it, \
            and those the helper line names with --profile-for (repeatable): --profile-for HOST \
            answers HOST with --profile's profile, --profile-for HOST=NAME with profile NAME, so \
            one helper line can serve several hosts. HOST is host or host:port as git sends it, \
            compared without regard to case; a port makes another host (git.example.com:8443 \
            is not git.example.com), and git's path is not considered. git asks every helper \
            its configuration names for a URL (a hand-written credential.helper for every \
            host, a submodule's included): any other host gets no answer and one line on \
            standard error saying what to run to allow it. A profile set up before hosts were \
            recorded has none: run setup again, or add --profile-for.

            Signing in from git: when the profile has no usable sign-in (never signed in, \
            expired with no refresh token, or a refresh token the provider refuses), git runs \
            the helper from a terminal and GIT_TERMINAL_PROMPT is not 0, get signs in there, \
            by the same rules as `webauth login` (a browser, or the device flow where no \
            browser can open), with every prompt on the terminal (/dev/tty) and only the answer \
            on standard output. It signs in with the stored profile's own client configuration \
            when there is one, which wins over the helper line's; else with the login options \
            on the helper line, which setup writes there:

              webauth git-credential setup git.example.com --profile work \\
                  --issuer https://id.example.com --client-id git-cli --scope openid \\
                  --scope offline_access

            When several helpers need a sign-in for the profile at once (git fetch --jobs 8), \
            one signs in and the others say on their terminal that they wait for it, then \
            answer with its tokens; if it fails or is cancelled, one of them takes over.

            --client-secret is refused here (git's configuration is no place for a secret): \
            use a --config file readable only by you, or WEBAUTH_CLIENT_SECRET.

            Other operations are ignored, as the protocol says. A token is sent for https, or \
            for http to a loopback host only. With no usable sign-in and no terminal (or \
            GIT_TERMINAL_PROMPT=0, or nothing to sign in with), get answers nothing and exits \
            0 (git then asks elsewhere), with a line on standard error saying what to run. A \
            helper line that cannot be parsed (an unknown option, say) exits 64 and answers \
            nothing; nothing stored is touched. The refresh token never goes to git, and no \
            token is ever written to standard error or the terminal.

            \(ExitStatus.pointer)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @Option(
        name: .customLong("profile-for"),
        help: ArgumentHelp(
            "Also answer git for HOST (host or host:port): with profile NAME, or --profile's; repeatable.",
            valueName: "HOST[=NAME]"))
    var profilesForHosts: [String] = []

    @Option(
        help: ArgumentHelp("The username to answer git with (default: the provider's convention).", valueName: "NAME"))
    var username: String?

    @OptionGroup var storeOption: StoreOption

    @Option(
        name: .customLong("file"),
        help: ArgumentHelp("setup: write to this git configuration file instead of the global one.", valueName: "PATH"))
    var configurationFile: String?

    @OptionGroup(title: "Sign-in options (get, when the profile has no usable sign-in; setup writes them)")
    var login: LoginOptions

    @Argument(help: ArgumentHelp("What git asks (get, store, erase), or setup.", valueName: "operation"))
    var operation: String

    @Argument(
        help: ArgumentHelp(
            "setup: the host (host or host:port, or http://127.0.0.1:PORT) to answer for.", valueName: "host"))
    var host: String?

    func validate() throws {
        try ProfileOptions.validate(profile)
        if operation == "setup" {
            guard let host else { throw ValidationError("setup needs the host: webauth git-credential setup HOST") }
            guard GitCredentialSetup.target(from: host) != nil else {
                throw ValidationError(
                    "'\(host)' is not a plain host or host:port, such as github.com or git.example.com:8443 (or http://127.0.0.1:PORT)"
                )
            }
        } else if host != nil {
            throw ValidationError("only setup takes a host")
        }
        for mapping in profilesForHosts {
            guard let named = GitHostBinding.ProfileFor(argument: mapping) else {
                throw ValidationError(
                    "--profile-for takes HOST or HOST=NAME with a plain host or host:port, not '\(mapping)'")
            }
            if let name = named.profile { try ProfileOptions.validate(name) }
        }
        try login.refuseClientSecret(keptIn: "git's configuration")
        try login.refuseRegistration()
        if let username, username.isEmpty || username.contains(where: \.isNewline) || username.contains("\0") {
            throw ValidationError("--username must be one non-empty line")
        }
    }

    func run() async throws {
        let terminal = TerminalOutput()
        if operation == "setup", let host, let target = GitCredentialSetup.target(from: host) {
            let setup = GitCredentialSetup(
                scheme: target.scheme, host: target.host, profile: profile, store: storeOption.selection,
                configurationFile: configurationFile, loginArguments: login.arguments)
            do {
                // Recorded first: when it fails, git's configuration is left as it was.
                do {
                    try await ProfileIndex().recordGitHost(target.host, for: profile)
                } catch {
                    throw CommandFailure.from(error, profile: profile, action: "setup")
                }
                let written = try setup.write()
                CommandOutput(json: false).result(
                    written + "Recorded: profile \"\(profile)\" answers git for \(target.host.lowercased())")
                // Found nothing (an unreadable store says nothing either way).
                if login.arguments.isEmpty, case .some(.none) = try? await storeOption.stores().find(profile: profile) {
                    terminal.note(
                        "profile \"\(profile)\" is not signed in, and no sign-in options were given: git gets "
                            + "nothing from webauth until you run `webauth login --profile \(profile) …`")
                }
            } catch let failure as CommandFailure {
                terminal.error(failure.message, fix: failure.fix)
                throw ExitCode(failure.status)
            }
            return
        }
        // The protocol: a helper ignores operations it does not know (newer git may add some).
        guard let operation = GitCredentialOperation(rawValue: operation) else { return }
        var profile = profile
        do {
            let asked = try GitCredential(reading: StandardStreams.readInput(limit: GitCredential.maximumInputLength))
            if operation == .get, !Self.mayCarryToken(asked) {
                terminal.note(
                    "webauth sends no token for \(asked.protocol ?? "an unnamed protocol")://\(asked.host ?? ""): only https, or http to a loopback host"
                )
                return
            }
            // A host the profile is not bound to is not ours to answer: nothing for git, and for
            // get one line saying how to allow it.
            let index = ProfileIndex()
            switch binding.decision(forHost: asked.host, recordedHosts: index.gitHosts(of:)) {
            case .answer(let chosen):
                profile = chosen
            case .refuse(let refused):
                if operation == .get {
                    terminal.note(GitHostBinding.refusalMessage(host: asked.host, profile: refused))
                }
                return
            }
            switch operation {
            case .get: try await answer(asked, profile: profile, terminal: terminal)
            case .store: break  // the tokens are in the store already; git's copy is not kept
            case .erase:
                if let password = asked.password {
                    try await storeOption.stores().expireAccessToken(profile: profile, ifItIs: password)
                }
            }
        } catch let error as CredentialHelperError {
            terminal.error("git's input was not acceptable: \(error.message)")
            throw ExitCode(ExitStatus.invalidInput)
        } catch let error as ExitCode {
            throw error
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "refresh")
            terminal.error(failure.message, fix: failure.fix)
            throw ExitCode(failure.status)
        }
    }

    /// Answers `get` on standard output; answers nothing (git's "I don't know") when there is
    /// no sign-in to answer with, saying why on standard error.
    private func answer(_ asked: GitCredential, profile: String, terminal: TerminalOutput) async throws {
        let stores = storeOption.stores()
        let (tokens, entry): (TokenSet, StoredTokens?)
        var fromAgent: AgentClient.Tokens?
        do {
            let fresh = try await stores.agentOrStoredTokens(profile: profile, minimumValidity: .seconds(60))
            fromAgent = fresh.agent
            (tokens, entry) = (fresh.tokens, fresh.agent == nil ? try await stores.find(profile: profile)?.entry : nil)
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "refresh")
            guard ProfileSignIn.cures(failure) else { throw failure }
            guard let signedIn = try await signIn(for: asked, after: failure, profile: profile, stores: stores) else {
                return
            }
            (tokens, entry) = (signedIn.tokens, signedIn)
        }
        guard !tokens.isDPoPBound else {
            let failure = CommandFailure.dpopBound(profile: profile, consumer: "git")
            terminal.note("git gets no credential from webauth: \(failure.message); \(failure.fix ?? "")")
            return
        }
        let answer = GitCredential(
            username: username
                ?? fromAgent.map {
                    GitCredential.conventionalUsername(
                        providerName: $0.providerName, tokenEndpointHost: $0.tokenEndpointHost)
                } ?? Self.conventionalUsername(for: entry?.configuration),
            password: tokens.accessToken, passwordExpiry: tokens.expiresAt)
        do {
            CommandOutput(json: false).exact(try answer.encoded())
        } catch {
            throw CommandFailure(
                status: ExitStatus.providerError, code: error.code.description,
                message: "the provider's token cannot be given to git: \(error.message)")
        }
    }

    /// Signs `profile` in on the terminal, when git allows prompts and there is a terminal and
    /// a configuration to sign in with, and returns the stored entry. Otherwise declines: `nil`
    /// with a line on standard error (git's "I don't know") when `failure` is that the profile
    /// is not signed in, else `failure` itself.
    private func signIn(
        for asked: GitCredential, after failure: CommandFailure, profile: String, stores: TokenStores
    ) async throws -> StoredTokens? {
        let environment = ProcessInfo.processInfo.environment
        func decline(_ failure: CommandFailure) throws -> StoredTokens? {
            guard failure.status == ExitStatus.notSignedIn else { throw failure }
            TerminalOutput().note("git gets no credential from webauth: \(failure.message); \(failure.fix ?? "")")
            return nil
        }
        guard ControllingTerminal.gitAllowsPrompts(environment: environment),
            let terminal = ControllingTerminal.current()
        else { return try decline(failure) }
        let signIn = ProfileSignIn(profile: profile, options: login, stores: stores, environment: environment)
        let configuration: ClientConfiguration
        do {
            guard let found = try signIn.configuration(stored: try? await stores.find(profile: profile)?.entry) else {
                return try decline(
                    ProfileSignIn.nothingToSignInWith(failure, profile: profile, where: "the helper line"))
            }
            configuration = found
        } catch {
            throw CommandFailure.from(error, profile: profile, action: "sign-in")
        }
        let url = "\(asked.protocol ?? "https")://\(asked.host ?? "")"
        do {
            let ending = try await terminal.attached {
                let onTerminal = TerminalOutput()
                onTerminal.note("git asks webauth for a credential for \(url): \(failure.message); signing in.")
                // One sign-in among all the helpers git runs at once: the others wait for it.
                return try await signIn.runAlone(
                    terminal: onTerminal, command: "git-credential", openSignIn: .wait,
                    storeAnswers: {
                        (try? await stores.freshTokens(profile: profile, minimumValidity: .seconds(60))) != nil
                    }
                ) { lease in
                    let outcome = try await signIn.run(configuration: configuration, terminal: onTerminal, lease: lease)
                    outcome.summary(profile: profile).report(terminal: onTerminal, output: CommandOutput(json: false))
                    return outcome
                }
            }
            switch ending {
            case .signedIn(let outcome): return outcome.entry
            case .signedInElsewhere: return try await stores.find(profile: profile)?.entry
            }
        } catch {
            throw CommandFailure.from(error, profile: profile, action: "sign-in")
        }
    }

    /// The hosts this helper line binds its profiles to (see ``GitHostBinding``).
    var binding: GitHostBinding {
        GitHostBinding(profile: profile, profileFor: profilesForHosts.compactMap(GitHostBinding.ProfileFor.init))
    }

    /// The username git is answered with when `--username` is not given: `x-access-token` for
    /// GitHub (what its git server expects with an OAuth token), `oauth2` for everyone else
    /// (GitLab's convention, and what most forges accept).
    static func conventionalUsername(for configuration: ClientConfiguration?) -> String {
        GitCredential.conventionalUsername(
            providerName: configuration?.name, tokenEndpointHost: configuration?.endpoints.token?.host)
    }

    /// Whether a token may answer `asked`: https, or http to a loopback host.
    static func mayCarryToken(_ asked: GitCredential) -> Bool {
        switch asked.protocol?.lowercased() {
        case "https": return true
        case "http": return GitCredentialSetup.isLoopback(asked.host ?? "")
        default: return false
        }
    }
}
