// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import ArgumentParser
import Foundation
import WebAuth
import WebAuthFastPath
public import WebAuthOAuth

/// The options that say how to sign in: the provider and client (`--issuer`, `--preset`,
/// `--config`, `--client-id`, …) and the way (`--browser`, `--device`, `--no-browser`, …).
///
/// `webauth login` takes them, and so do the credential helpers (`git-credential`,
/// `exec-credential`), which sign in with them when the profile has no usable sign-in and
/// someone is there to sign in.
struct LoginOptions: ParsableArguments {
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
        name: .customLong("client-auth"),
        help: ArgumentHelp(
            "How the client authenticates: none, client_secret_basic, client_secret_post, client_secret_jwt or private_key_jwt (default: private_key_jwt with --client-key, client_secret_basic with a secret).",
            valueName: "METHOD"),
        completion: .list(ClientAuthenticationMethod.supported.map(\.rawValue)))
    var clientAuthentication: String?

    @Option(
        name: .customLong("client-key"),
        help: ArgumentHelp(
            "The private key (PEM or JWK, ES256/RS256/PS256) for private_key_jwt; readable by you alone (chmod 600). Only its path is stored with the profile.",
            valueName: "FILE"),
        completion: .file())
    var clientKeyFile: String?

    @Option(
        name: .customLong("client-assertion-audience"),
        help: ArgumentHelp(
            "The aud of JWT client assertions: issuer (the default), token-endpoint, endpoint (each request's own endpoint URL) or a URL.",
            valueName: "issuer|token-endpoint|endpoint|URL"))
    var clientAssertionAudience: String?

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp("A scope to ask for (repeatable; default with --issuer: openid).", valueName: "SCOPE"))
    var scopes: [String] = []

    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp("The registered redirect URI (default http://127.0.0.1/callback).", valueName: "URI"))
    var redirectURI: String?

    @Option(
        name: .customLong("tenant"),
        help: ArgumentHelp(
            "A tenant whose accounts may sign in, for a multi-tenant issuer such as Microsoft's (repeatable). With --preset microsoft, one tenant ID signs in to that tenant alone; common, organizations or consumers names the alias, and the other values are the allowed tenants.",
            valueName: "ID"))
    var tenants: [String] = []

    @Option(
        help: ArgumentHelp(
            "The authorization request's prompt: none, login, consent or select_account (default: consent when offline_access is asked for, otherwise no prompt).",
            valueName: "VALUE"),
        completion: .list(["none", "login", "consent", "select_account"]))
    var prompt: String?

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
    var timeout: Double = Self.defaultTimeout

    @Option(
        help: ArgumentHelp(
            "Push the authorization request first (RFC 9126): auto (when the provider requires it), always or never.",
            valueName: "WHEN"))
    var par: PushedAuthorizationUse?

    @Flag(help: "Bind the tokens to a key stored with them (DPoP, RFC 9449), so a copied token is useless.")
    var dpop = false

    @Flag(
        name: .customLong("client-credentials"),
        help:
            "Sign the client in as itself, with no person or browser (RFC 6749 §4.4; a confidential client). The profile asks again when its token expires."
    )
    var clientCredentials = false

    @Flag(
        help:
            "Register a new native client at the provider first (dynamic client registration, RFC 7591), then sign in with it. Needs --issuer."
    )
    var register = false

    @Option(
        name: .customLong("initial-access-token-file"),
        help: ArgumentHelp(
            "A file readable only by you holding the initial access token the provider wants for --register, or - for one line of standard input.",
            valueName: "FILE"),
        completion: .file())
    var initialAccessTokenFile: String?

    @Option(
        name: .customLong("register-auth"),
        help: ArgumentHelp(
            "With --register: how the new client authenticates at the token endpoint: none (the default: a public client, PKCE), client_secret_basic, client_secret_post, or private_key_jwt with --client-key.",
            valueName: "METHOD"),
        completion: .list(Self.registrationMethods.map(\.rawValue)))
    var registerAuthentication: String?

    /// The `--register-auth` values.
    static let registrationMethods: [ClientAuthenticationMethod] = [
        .none, .clientSecretBasic, .clientSecretPost, .privateKeyJWT,
    ]

    /// `--timeout` when it is not given.
    static let defaultTimeout: Double = 600

    /// How the full program reads the options' URLs: with Foundation's `URL`.
    static let urlReading: SignInOptionSyntax.URLReading = { text in
        URL(string: text).map { ($0.scheme, $0.host) }
    }

    /// Whether a provider is named: `--issuer`, `--preset` or `--config`.
    var namesProvider: Bool { issuer != nil || preset != nil || configFile != nil }

    /// Checks the options that are given; whether a provider must be named is the command's
    /// to say (`login` needs one, the credential helpers only when they sign in).
    func validate() throws {
        var given = SignInOptionSyntax.Given(
            issuer: issuer, preset: preset, config: configFile, clientID: clientID, redirectURI: redirectURI,
            browser: browser, par: par?.rawValue, timeout: timeout, device: device, noBrowser: noBrowser,
            ephemeral: ephemeral, clientCredentials: clientCredentials)
        given.register = register
        given.prompt = prompt
        // The fast path's check, so that the two programs take exactly the same options; URLs
        // read with Foundation's `URL`, which reads every one the fast path's `PlainURL` reads.
        if let refusal = SignInOptionSyntax.refusal(given, reading: Self.urlReading) {
            throw ValidationError(refusal.message)
        }
        try checkClientAuthenticationValues()
    }

    /// Refuses a `--client-auth` or `--client-assertion-audience` value that names nothing.
    func checkClientAuthenticationValues() throws {
        if let clientAuthentication,
            !ClientAuthenticationMethod.supported.contains(ClientAuthenticationMethod(rawValue: clientAuthentication))
        {
            throw ValidationError(
                "--client-auth must be one of "
                    + ClientAuthenticationMethod.supported.map(\.rawValue).joined(separator: ", "))
        }
        if let clientAssertionAudience, ClientAssertionAudience(clientAssertionAudience) == nil {
            throw ValidationError(
                "--client-assertion-audience must be issuer, token-endpoint, endpoint or an absolute URL")
        }
    }

    /// Refuses `--client-secret` for a command whose command line is kept in a configuration
    /// file (git's, a kubeconfig) and whose standard input belongs to the calling program.
    func refuseClientSecret(keptIn place: String) throws {
        guard clientSecret != nil else { return }
        throw ValidationError(
            "--client-secret cannot be used here: the command line is kept in \(place) and standard input is not "
                + "yours. Put the secret in a --config file readable only by you, or in WEBAUTH_CLIENT_SECRET.")
    }

    /// Refuses `--register` and `--initial-access-token-file` for a credential helper: it signs
    /// in with the profile's client, and registering a new client at each sign-in would leave
    /// clients behind at the provider.
    func refuseRegistration() throws {
        guard register || initialAccessTokenFile != nil || registerAuthentication != nil else { return }
        throw ValidationError(
            "--register is for webauth login: register and sign in there, then name the profile here.")
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
            if !tenants.isEmpty, preset.lowercased() != "microsoft" {
                throw ValidationError("--tenant applies to --preset microsoft, or to a multi-tenant --issuer")
            }
            let tenancy = try Self.microsoftTenancy(tenants)
            configuration = try ClientConfiguration.preset(
                named: preset, clientID: clientID ?? "", clientSecret: secret, tenant: tenancy.tenant,
                allowedTenants: tenancy.allowed, redirectURI: redirect)
        } else {
            configuration = ClientConfiguration(
                issuer: issuer.flatMap(URL.init(string:)), clientID: clientID ?? "", clientSecret: secret,
                scopes: ["openid"])
        }
        let requested = scopes.flatMap { $0.split(separator: " ").map(String.init) }
        if !requested.isEmpty { configuration.scopes = requested }
        if preset == nil, !tenants.isEmpty { configuration.allowedTenants = Set(tenants) }
        if let redirect { configuration.redirectURI = redirect }
        // Obeyed as given, none and login included; without it, offline_access brings consent.
        if let prompt { configuration.additionalAuthorizationParameters["prompt"] = prompt }
        // Stored with the profile, so token, request, logout and the helpers use them too.
        if let par { configuration.usePushedAuthorization = par }
        if dpop { configuration.dpop = .persistent }
        if clientCredentials { configuration.grant = .clientCredentials }
        try applyClientAuthentication(to: &configuration)
        if clientCredentials, configuration.clientSecret == nil, configuration.clientKeyFile == nil {
            throw CommandFailure(
                status: ExitStatus.usage, code: OAuthError.Code.invalidConfiguration.description,
                message: "the client credentials grant needs a confidential client, and no client secret was given",
                fix:
                    "give the secret in WEBAUTH_CLIENT_SECRET, on standard input with --client-secret -, or in a "
                    + "--config file readable only by you; or sign with --client-auth private_key_jwt --client-key FILE"
            )
        }
        return try configuration.validated()
    }

    /// Applies `--client-auth`, `--client-key` and `--client-assertion-audience`. The key file
    /// is named by its absolute path (the profile keeps the path, never the key) and read only
    /// when a client is made, where a file others can read is refused.
    func applyClientAuthentication(to configuration: inout ClientConfiguration) throws {
        try checkClientAuthenticationValues()
        if let clientAuthentication {
            configuration.clientAuthentication = ClientAuthenticationMethod(rawValue: clientAuthentication)
        }
        if let clientKeyFile {
            configuration.clientKeyFile = URL(fileURLWithPath: clientKeyFile).standardizedFileURL
        }
        if let audience = clientAssertionAudience.flatMap(ClientAssertionAudience.init) {
            configuration.clientAssertionAudience = audience
        }
    }

    /// `--tenant` values for `--preset microsoft`: the tenant in the issuer and the allowed
    /// tenants. One tenant ID is that tenant alone; an alias (`common`, `organizations`,
    /// `consumers`) is the issuer's tenant and the other values are the allowed ones; several
    /// tenant IDs without an alias sign in through `common`, allowing exactly those.
    static func microsoftTenancy(_ values: [String]) throws -> (tenant: String?, allowed: Set<String>?) {
        let aliases = values.filter { ClientConfiguration.microsoftTenantAliases.contains($0.lowercased()) }
        let others = Set(values.filter { !ClientConfiguration.microsoftTenantAliases.contains($0.lowercased()) })
        switch (aliases.count, others.count) {
        case (0, 0): return (nil, nil)
        case (0, 1): return (others.first, nil)
        case (0, _): return ("common", others)
        case (1, 0): return (aliases[0].lowercased(), nil)
        case (1, _): return (aliases[0].lowercased(), others)
        default:
            throw ValidationError(
                "--tenant names more than one of common, organizations and consumers; give one, then the allowed tenants"
            )
        }
    }

    /// The options as command-line arguments that parse back to these options, for a command
    /// line kept elsewhere (`git-credential setup` writes them into git's helper line): only
    /// what was given, the `--config` path made absolute (the command will run from another
    /// directory). Never `--client-secret`.
    var arguments: [String] {
        var arguments: [String] = []
        func add(_ name: String, _ value: String?) {
            if let value { arguments += [name, value] }
        }
        add("--issuer", issuer)
        add("--preset", preset)
        add("--config", configFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        add("--client-id", clientID)
        for scope in scopes { add("--scope", scope) }
        add("--redirect-uri", redirectURI)
        for tenant in tenants { add("--tenant", tenant) }
        add("--prompt", prompt)
        add("--browser", browser)
        if ephemeral { arguments.append("--ephemeral") }
        if device { arguments.append("--device") }
        if noBrowser { arguments.append("--no-browser") }
        add("--par", par?.rawValue)
        if dpop { arguments.append("--dpop") }
        if clientCredentials { arguments.append("--client-credentials") }
        add("--client-auth", clientAuthentication)
        add("--client-key", clientKeyFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        add("--client-assertion-audience", clientAssertionAudience)
        if timeout != Self.defaultTimeout {
            add("--timeout", timeout.rounded() == timeout ? String(Int(timeout)) : String(timeout))
        }
        return arguments
    }
}

extension PushedAuthorizationUse: ExpressibleByArgument {}
