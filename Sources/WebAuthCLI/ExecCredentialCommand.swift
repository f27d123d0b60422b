import ArgumentParser
import Foundation
import WebAuthCredentialHelpers
import WebAuthOAuth
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
            profile's lock. A profile that is not signed in is never signed in from here: the \
            command fails and says to run `webauth login --profile NAME`.

              users:
              - name: work
                user:
                  exec:
                    apiVersion: client.authentication.k8s.io/v1
                    command: webauth
                    args: [exec-credential, --profile, work]
                    interactiveMode: Never

            A KUBERNETES_EXEC_INFO that is not an ExecCredential, or asks for another apiVersion, \
            fails with status 7.

            \(ExitStatus.helpText)
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

    @OptionGroup var storeOption: StoreOption

    func validate() throws {
        try ProfileOptions.validate(profile)
        try SecondsOption.validate(minimumValidity, option: "--min-validity", allowsZero: true)
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
            let credential = try await credential(apiVersion: request.apiVersion)
            writeFully(STDOUT_FILENO, try credential.encoded())
        } catch {
            let failure = CommandFailure.from(error, profile: profile, action: "refresh")
            output.failure(failure, terminal: TerminalOutput())
            throw ExitCode(failure.status)
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
