// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuthCredentialHelpers
import WebAuthFastPath
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTokenStore

/// `webauth exec-credential`: the client-go exec credential plugin (kubectl, the Kubernetes
/// client libraries). Prints an `ExecCredential` holding the profile's ID token, or its access
/// token, refreshed first when it expires within `--min-validity`.
struct ExecCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec-credential",
        abstract: "Print a Kubernetes ExecCredential with a fresh token (a client-go exec credential plugin).",
        discussion: """
            kubectl and the Kubernetes client libraries run this from a kubeconfig's \
            users[].user.exec and read the ExecCredential it prints on standard output, in the \
            apiVersion that KUBERNETES_EXEC_INFO asks for (client.authentication.k8s.io/v1 or \
            v1beta1). The token is the ID token by default, as API servers configured with \
            --oidc-issuer-url expect, or the access token with --token-type access; \
            status.expirationTimestamp is when it expires.

            A token expiring within --min-validity seconds is refreshed first, under the \
            profile's lock.

            Signing in: when the profile has no usable sign-in (never signed in, expired with no \
            refresh token, or a refresh token the provider refuses), the command signs in only \
            if the client runs it interactively (KUBERNETES_EXEC_INFO's spec.interactive: \
            kubectl at a terminal with interactiveMode IfAvailable or Always), by the same rules \
            as `webauth login`, with prompts on standard error and only the ExecCredential on \
            standard output. It signs in with the stored profile's own client configuration \
            when there is one, which wins over the login options in args; else with those. Not \
            run interactively, it opens nothing, fails (status 8, or 9 for a refused refresh \
            token) and says to run `webauth login --profile NAME`. \
            --client-secret is refused here: use a --config file or WEBAUTH_CLIENT_SECRET. \
            Runs that need a sign-in at once share one: the others wait for it (up to \
            --timeout) and answer with its tokens.

              users:
              - name: work
                user:
                  exec:
                    apiVersion: client.authentication.k8s.io/v1
                    command: webauth
                    args: [exec-credential, --profile, work, --issuer, https://id.example.com,
                           --client-id, kube-cli, --scope, openid, --scope, offline_access]
                    interactiveMode: IfAvailable

            Binding the token to clusters: with --cluster-server URL (repeatable), the token \
            goes only to those API servers. The client must then say which cluster it asks \
            for — provideClusterInfo: true in the exec section, so that KUBERNETES_EXEC_INFO \
            carries spec.cluster.server — and it must be one of them; otherwise nothing is \
            printed and the command fails with status 7, naming the server. Servers compare \
            as URLs: scheme and host without regard to case, the default port filled in \
            (https://k8s.example.com is https://k8s.example.com:443), the path exactly, a \
            trailing / aside. Without --cluster-server every cluster is answered.

                    args: [exec-credential, --profile, work,
                           --cluster-server, https://k8s.example.com:6443]
                    provideClusterInfo: true

            A KUBERNETES_EXEC_INFO that is not an ExecCredential, or asks for another apiVersion, \
            fails with status 7.

            \(ExitStatus.pointer)
            """
    )

    /// Which token `status.token` carries.
    enum TokenType: String, ExpressibleByArgument, CaseIterable {
        /// The ID token (a JWT the API server checks against the provider's keys).
        case id
        /// The access token (for API servers that check it, for example with UserInfo).
        case access
    }

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @Option(
        name: .customLong("token-type"),
        help: ArgumentHelp("The token to hand out: id (the default) or access.", valueName: "id|access"))
    var tokenType: TokenType = .id

    @Option(
        name: .customLong("min-validity"),
        help: ArgumentHelp("Refresh when the token expires within this many seconds.", valueName: "SECONDS"))
    var minimumValidity: Double = 60

    @Option(
        name: .customLong("cluster-server"),
        help: ArgumentHelp(
            "Answer only for this API server (its kubeconfig clusters[].cluster.server); repeatable. Needs provideClusterInfo: true.",
            valueName: "URL"))
    var clusterServers: [String] = []

    @OptionGroup var storeOption: StoreOption

    @OptionGroup(title: "Sign-in options (when the profile has no usable sign-in and the run is interactive)")
    var login: LoginOptions

    func validate() throws {
        try ProfileOptions.validate(profile)
        try SecondsOption.validate(minimumValidity, option: "--min-validity", allowsZero: true)
        try login.refuseClientSecret(keptIn: "the kubeconfig")
        try login.refuseRegistration()
        for server in clusterServers where ClusterServerBinding.normalized(server) == nil {
            throw ValidationError(
                "--cluster-server takes an API server's https URL, such as https://k8s.example.com:6443, not '\(server)'"
            )
        }
    }

    func run() async throws {
        let output = CommandOutput(json: false)
        do {
            let request: ExecCredentialRequest
            do {
                request = try ExecCredentialRequest(
                    execInfo: ProcessInfo.processInfo.environment["KUBERNETES_EXEC_INFO"])
            } catch {
                throw CommandFailure(
                    status: ExitStatus.invalidInput, code: error.code.description, message: error.message,
                    fix: "run this command from a kubeconfig's users[].user.exec")
            }
            try checkCluster(request.clusterServer)
            let credential: ExecCredential
            do {
                credential = try await self.credential(apiVersion: request.apiVersion)
            } catch {
                let failure = CommandFailure.from(error, profile: profile, action: "refresh")
                guard ProfileSignIn.cures(failure) else { throw failure }
                try await signIn(after: failure, interactive: request.interactive) {
                    (try? await self.credential(apiVersion: request.apiVersion)) != nil
                }
                credential = try await self.credential(apiVersion: request.apiVersion)
            }
            output.exact(try credential.encoded())
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "refresh")
            output.failure(failure, terminal: TerminalOutput())
            throw ExitCode(failure.status)
        }
    }

    /// Throws unless the token may go to `server`, the cluster the client asks for (see
    /// ``ClusterServerBinding``).
    func checkCluster(_ server: String?) throws {
        let allowed = clusterServers.joined(separator: ", ")
        switch ClusterServerBinding.decision(server: server, allowed: clusterServers) {
        case .allowed:
            return
        case .noClusterInfo:
            throw CommandFailure(
                status: ExitStatus.invalidInput, code: "noClusterInfo",
                message:
                    "the Kubernetes client did not say which cluster it asks for, and profile \"\(profile)\" answers only for \(allowed)",
                fix: "set provideClusterInfo: true in the kubeconfig's exec section")
        case .notAllowed:
            throw CommandFailure(
                status: ExitStatus.invalidInput, code: "clusterNotAllowed",
                message:
                    "the Kubernetes client asks for a token for \(server ?? ""), and profile \"\(profile)\" answers only for \(allowed)",
                fix:
                    "if this cluster should get the profile's token, add --cluster-server \(server ?? "") to the exec args"
            )
        }
    }

    /// Signs the profile in, with prompts on standard error (client-go connects it to the
    /// terminal for an interactive run), when the run is `interactive` and there is a
    /// configuration to sign in with; else throws `failure`, its fix saying what to do.
    ///
    /// One sign-in among all the runs the client starts at once: the others wait for it, then
    /// answer when `storeAnswers` says the store answers.
    private func signIn(
        after failure: CommandFailure, interactive: Bool, storeAnswers: @escaping () async -> Bool
    ) async throws {
        let environment = ProcessInfo.processInfo.environment
        let stores = storeOption.stores(environment: environment)
        let signIn = ProfileSignIn(profile: profile, options: login, stores: stores, environment: environment)
        let configuration: ClientConfiguration
        do {
            guard let found = try signIn.configuration(stored: try? await stores.find(profile: profile)?.entry) else {
                throw ProfileSignIn.nothingToSignInWith(failure, profile: profile, where: "exec-credential (in args)")
            }
            configuration = found
        } catch {
            throw CommandFailure.from(error, profile: profile, action: "sign-in")
        }
        guard interactive else {
            var explained = failure
            explained.fix =
                (failure.fix.map { $0 + "; " } ?? "")
                + "exec-credential signs in by itself only when run interactively (interactiveMode IfAvailable "
                + "or Always, at a terminal)"
            throw explained
        }
        let terminal = TerminalOutput()
        terminal.note("\(failure.message); signing in for the Kubernetes client.")
        do {
            _ = try await signIn.runAlone(
                terminal: terminal, command: "exec-credential", openSignIn: .wait, storeAnswers: storeAnswers
            ) { lease in
                let outcome = try await signIn.run(configuration: configuration, terminal: terminal, lease: lease)
                outcome.summary(profile: profile).report(terminal: terminal, output: CommandOutput(json: false))
                return outcome
            }
        } catch {
            throw CommandFailure.from(error, profile: profile, action: "sign-in")
        }
    }

    /// The credential for `apiVersion`, from tokens fresh for `--min-validity`.
    func credential(apiVersion: ExecCredentialAPIVersion) async throws -> ExecCredential {
        let stores = storeOption.stores()
        let minimum = SecondsOption.duration(minimumValidity)
        let started = Date()
        let tokens = try await stores.freshTokens(profile: profile, minimumValidity: minimum)
        // An ID token is no access token and binds nothing; a DPoP-bound access token cannot go out.
        if tokenType == .access, tokens.isDPoPBound {
            throw CommandFailure.dpopBound(profile: profile, consumer: "kubectl")
        }
        switch tokenType {
        case .access:
            return ExecCredential(apiVersion: apiVersion, token: tokens.accessToken, expiration: tokens.expiresAt)
        case .id:
            let fresh = try await freshIDToken(
                tokens, justRefreshed: tokens.receivedAt >= started, stores: stores, minimumValidity: minimum)
            return ExecCredential(apiVersion: apiVersion, token: fresh.token, expiration: fresh.expiration)
        }
    }

    /// The ID token of `tokens` when it is valid for `minimumValidity`; else the one a refresh
    /// brings, failing when the refresh brings none. Tokens `justRefreshed` (the access token
    /// needed it) are not refreshed again: their ID token is handed out while it is unexpired.
    func freshIDToken(
        _ tokens: TokenSet, justRefreshed: Bool, stores: TokenStores, minimumValidity: Duration
    ) async throws -> (token: String, expiration: Date) {
        guard let idToken = tokens.idToken, let claims = tokens.idTokenClaims else {
            throw CommandFailure(
                status: ExitStatus.notSignedIn, code: "noIDToken",
                message: "profile \"\(profile)\" holds no ID token",
                fix: "sign in with the openid scope, or use --token-type access")
        }
        let deadline = Date().addingTimeInterval(self.minimumValidity)
        if claims.expiresAt > deadline { return (idToken, claims.expiresAt) }
        if justRefreshed {
            guard claims.expiresAt > Date() else { throw noNewIDToken }
            return (idToken, claims.expiresAt)
        }
        let provider = try await stores.accessTokenProvider(profile: profile, refreshMargin: minimumValidity)
        let refreshed = try await provider.refreshNow()
        guard let newToken = refreshed.idToken, newToken != idToken, let newClaims = refreshed.idTokenClaims else {
            throw noNewIDToken
        }
        return (newToken, newClaims.expiresAt)
    }

    /// The ID token is (nearly) expired and refreshing brought no new one.
    var noNewIDToken: CommandFailure {
        CommandFailure(
            status: ExitStatus.providerError, code: "noNewIDToken",
            message: "the ID token of profile \"\(profile)\" expires soon and the refresh brought no new one",
            fix: "sign in again with \(CommandFailure.loginCommand(profile: profile)), or use --token-type access")
    }
}
