import ArgumentParser
import Foundation
import Logging
import Synchronization
import WebAuth
import WebAuthOAuth
import WebAuthProcess
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

            \(ExitStatus.helpText)
            """
    )

    @Option(help: ProfileOptions.help, completion: ProfileOptions.completion)
    var profile: String = ProfileOptions.defaultProfile

    @Option(help: ArgumentHelp("The provider's issuer, discovered from its metadata.", valueName: "URL"))
    var issuer: String?

    @Option(
        help: ArgumentHelp(
            "A provider preset: \(ClientConfiguration.presetNames.joined(separator: ", ")).", valueName: "NAME"),
        completion: .list(ClientConfiguration.presetNames))
    var preset: String?

    @Option(
        name: .customLong("config"),
        help: ArgumentHelp("A JSON client configuration file.", valueName: "FILE"),
        completion: .file(extensions: ["json"]))
    var configFile: String?

    @Option(name: .customLong("client-id"), help: "The client ID (may come from --config).")
    var clientID: String?

    @Option(
        name: .customLong("client-secret"),
        help: ArgumentHelp(
            "The client secret, or - to read one line from standard input (default: WEBAUTH_CLIENT_SECRET).",
            valueName: "SECRET|-"))
    var clientSecret: String?

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp("A scope to ask for (repeatable; default with --issuer: openid).", valueName: "SCOPE"))
    var scopes: [String] = []

    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp("The registered redirect URI (default http://127.0.0.1/callback).", valueName: "URI"))
    var redirectURI: String?

    @Option(help: ArgumentHelp("The tenant, for --preset microsoft.", valueName: "ID"))
    var tenant: String?

    @Option(
        help: ArgumentHelp(
            "The browser: automatic, system, chromium, firefox, none, or a path (default: WEBAUTH_BROWSER, else automatic).",
            valueName: "BROWSER"),
        completion: .list(["automatic", "system", "chromium", "firefox", "none"]))
    var browser: String?

    @Flag(help: "Ask for an ephemeral browser session: no cookies in, none kept.")
    var ephemeral = false

    @Flag(help: "Use the device flow: confirm a code on another device.")
    var device = false

    @Flag(
        name: .customLong("no-browser"), help: "Print the URL instead of opening a browser; accept the pasted result.")
    var noBrowser = false

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 600

    @Option(
        help: ArgumentHelp(
            "Push the authorization request first (RFC 9126): auto (when the provider requires it), always or never.",
            valueName: "WHEN"))
    var par: PushedAuthorizationUse?

    @Flag(help: "Bind the tokens to a key stored with them (DPoP, RFC 9449), so a copied token is useless.")
    var dpop = false

    @OptionGroup var storeOption: StoreOption

    @Flag(help: "Print the result (or the error) as JSON on standard output; never a token.")
    var json = false

    @Flag(help: "Log what the sign-in does on standard error (never secrets).")
    var verbose = false

    func validate() throws {
        try ProfileOptions.validate(profile)
        let sources = [issuer != nil, preset != nil, configFile != nil].filter { $0 }.count
        guard sources == 1 else { throw ValidationError("Give exactly one of --issuer, --preset and --config.") }
        guard clientID != nil || configFile != nil else {
            throw ValidationError("--client-id is needed (or a --config file that has one).")
        }
        if let issuer, URL(string: issuer)?.host == nil {
            throw ValidationError("--issuer must be an absolute URL, such as https://accounts.example.com.")
        }
        if let redirectURI, URL(string: redirectURI)?.scheme == nil {
            throw ValidationError("--redirect-uri must be an absolute URI.")
        }
        try SecondsOption.validate(timeout, option: "--timeout")
        if let browser, BrowserChoice(browser) == nil {
            throw ValidationError("--browser must be automatic, system, chromium, firefox, none, or a path.")
        }
        if device && (noBrowser || browser != nil || ephemeral) {
            throw ValidationError("--device uses no browser here: leave out --no-browser, --browser and --ephemeral.")
        }
        if noBrowser && browser != nil { throw ValidationError("Give --no-browser or --browser, not both.") }
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
        let configuration = try clientConfiguration(
            secret: try LoginSecret.resolve(clientSecret, environment: environment, terminal: terminal))
        var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = verbose ? .debug : .critical
        let client = try OAuthClient(configuration: configuration, logger: logger)

        // Open the store first: a keyring that cannot be used should stop us before the
        // person signs in, not after.
        let stores = storeOption.stores(environment: environment)
        let store = try await stores.storeForSaving()

        var selection = BrowserSelection.fromEnvironment(environment)
        if let browser, let choice = BrowserChoice(browser) { selection.choice = choice }
        selection.logger = logger
        var situation = SignInPlan.Situation(
            deviceRequested: device, noBrowserRequested: noBrowser, opensBrowser: !selection.fallsBackToTerminal)
        if SignInPlan.needsProviderMetadata(situation) {
            situation.providerOffersDevice = try await client.metadata().deviceAuthorizationEndpoint != nil
        }
        let plan = SignInPlan.choose(situation)
        if let reason = plan.reason { terminal.note(reason) }

        let flow = SignInFlow(
            client: client, terminal: terminal, timeout: SecondsOption.duration(timeout))
        let tokens: TokenSet
        switch plan.method {
        case .device:
            tokens = try await flow.device()
        case .browser, .pastedRedirect:
            if plan.method == .pastedRedirect { selection.choice = .terminal }
            tokens = try await flow.browser(selection: selection, ephemeral: ephemeral)
        }

        var entry = StoredTokens(tokens: tokens, configuration: configuration)
        let metadata = try? await client.metadata()
        entry.issuer = entry.issuer ?? metadata?.issuer ?? tokens.idTokenClaims?.issuer
        entry.tokenEndpoint = entry.tokenEndpoint ?? metadata?.tokenEndpoint?.absoluteString
        let savedIn = try await stores.save(entry, profile: profile, in: store)
        LoginSummary(
            profile: profile, entry: entry, kind: savedIn.kind, location: savedIn.location, method: plan.method
        )
        .report(terminal: terminal, output: output)
    }

    /// The client configuration the options describe, with `secret` (already resolved).
    func clientConfiguration(secret: String?) throws -> ClientConfiguration {
        var configuration: ClientConfiguration
        let redirect = redirectURI.flatMap(URL.init(string:))
        if let configFile {
            configuration = try ClientConfiguration.load(from: URL(fileURLWithPath: configFile))
            if let clientID { configuration.clientID = clientID }
            if let secret { configuration.clientSecret = secret }
        } else if let preset {
            configuration = try ClientConfiguration.preset(
                named: preset, clientID: clientID ?? "", clientSecret: secret, tenant: tenant, redirectURI: redirect)
        } else {
            configuration = ClientConfiguration(
                issuer: issuer.flatMap(URL.init(string:)), clientID: clientID ?? "", clientSecret: secret,
                scopes: ["openid"])
        }
        let requested = scopes.flatMap { $0.split(separator: " ").map(String.init) }
        if !requested.isEmpty { configuration.scopes = requested }
        if let redirect { configuration.redirectURI = redirect }
        // Stored with the profile, so token, request, logout and the helpers use them too.
        if let par { configuration.usePushedAuthorization = par }
        if dpop { configuration.dpop = .persistent }
        return try configuration.validated()
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
            let interactive = isatty(STDIN_FILENO) == 1
            if interactive { terminal.line("Client secret (not shown): ") }
            guard let line = readLine(from: STDIN_FILENO, hidingInput: interactive), !line.isEmpty else {
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
        var saved = termios()
        let hidden = hidingInput && tcgetattr(descriptor, &saved) == 0
        var previousHandlers: [(Int32, sig_t?)] = []
        if hidden {
            echoRestoration = (descriptor, saved)
            previousHandlers = [SIGINT, SIGTERM, SIGHUP].map { ($0, signal($0, restoreEchoAndDie)) }
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(descriptor, TCSANOW, &quiet)
        }
        defer {
            if hidden {
                tcsetattr(descriptor, TCSANOW, &saved)
                for (number, handler) in previousHandlers { signal(number, handler) }
            }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 64 * 1024 {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self).trimmingTrailingReturn }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self).trimmingTrailingReturn
    }
}

/// The terminal settings to put back if a signal ends the process while echo is off.
///
/// Safe though global and mutable: written only by ``LoginSecret/readLine(from:hidingInput:)``
/// before it installs ``restoreEchoAndDie(_:)``, and read only by that handler.
nonisolated(unsafe) private var echoRestoration: (descriptor: Int32, settings: termios)?

/// A signal handler: puts the terminal's echo back, then dies of the signal as it would have.
/// Only async-signal-safe calls (`tcsetattr`, `signal`, `raise`).
private func restoreEchoAndDie(_ number: Int32) {
    if var restoration = echoRestoration {
        tcsetattr(restoration.descriptor, TCSANOW, &restoration.settings)
    }
    signal(number, SIG_DFL)
    raise(number)
}

extension String {
    /// The string without a trailing carriage return (a line typed on some terminals).
    fileprivate var trimmingTrailingReturn: String { hasSuffix("\r") ? String(dropLast()) : self }
}

extension PushedAuthorizationUse: ExpressibleByArgument {}
