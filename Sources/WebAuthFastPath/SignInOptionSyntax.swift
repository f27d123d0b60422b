// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

/// The sign-in options (`webauth login`'s) and their one check: the full program's parser
/// (`LoginOptions`) refuses exactly what ``refusal(_:reading:)`` refuses, with its message, and
/// the fast path reads the same options where `git-credential` and `exec-credential` carry them
/// on their command lines — `git-credential setup` writes them into git's helper line, a
/// kubeconfig lists them in `args`. The full program reads their URLs with Foundation's `URL`,
/// the fast path with ``PlainURL``, which reads fewer (and those the same way).
///
/// A cached token does not depend on them: the full program uses them only to sign in, and a
/// stored profile's own configuration wins. But the full program checks them before it reads
/// anything, and refuses a command line whose options are wrong. So the fast path skips them only
/// when they are sure to pass (``accepts(_:)``): each option as often as it may be given, a flag
/// without a value, a value that is not empty and does not start with `-`, a `--timeout` in
/// plain digits, and no ``refusal(_:reading:)``. `--client-secret`, which the helpers refuse,
/// is not known here at all. Any doubt is `false`: the full program decides.
///
/// ```swift
/// SignInOptionSyntax.accepts(["--issuer": ["https://id.example.com"], "--client-id": ["cli"]])  // true
/// SignInOptionSyntax.refusal(.init(issuer: "https://id.example.com"), reading: SignInOptionSyntax.plainURLReading)  // .noClientID
/// ```
package enum SignInOptionSyntax {
    /// What an option takes.
    package enum Arity: Sendable, Hashable {
        /// No value: `--device`.
        case flag
        /// One value, once: `--issuer URL`.
        case value
        /// One value, as often as wanted: `--scope SCOPE`.
        case repeatable
    }

    /// Every sign-in option the fast path knows, with what it takes. An array, not a
    /// dictionary: see ``GivenOptions``.
    package static let options: [(name: String, arity: Arity)] = [
        ("--issuer", .value), ("--preset", .value), ("--config", .value), ("--client-id", .value),
        ("--scope", .repeatable), ("--redirect-uri", .value), ("--tenant", .repeatable), ("--browser", .value),
        ("--ephemeral", .flag), ("--device", .flag), ("--no-browser", .flag), ("--timeout", .value), ("--par", .value),
        ("--dpop", .flag), ("--client-credentials", .flag), ("--client-auth", .value), ("--client-key", .value),
        ("--client-assertion-audience", .value), ("--prompt", .value),
    ]

    /// What the sign-in option `name` takes; `nil` for a name that is not one of ``options``.
    package static func arity(of name: String) -> Arity? {
        options.first { $0.name == name }?.arity
    }

    /// The `--browser` values besides a path (anything with a `/`), in lower case.
    package static let browserNames: Set<String> = [
        "automatic", "auto", "system", "default", "none", "terminal", "chromium", "chrome", "firefox",
    ]

    /// The `--par` values.
    package static let pushedAuthorizationValues: Set<String> = ["auto", "always", "never"]

    /// Whether `value` is a `--browser`: one of the names (in any case) or a path. The full
    /// program's parser calls it too.
    package static func isBrowser(_ value: String) -> Bool {
        browserNames.contains(value.lowercased()) || value.contains("/")
    }

    /// Whether `value` is a `--prompt`: OpenID Connect's space-separated `prompt` values (`none`,
    /// `login`, `consent`, `select_account`, or a provider's own), each of letters, digits, `_`
    /// and `-`, and `none` alone (OpenID Connect Core §3.1.2.1). The full program's parser calls
    /// it too.
    package static func isPrompt(_ value: String) -> Bool {
        let words = value.split(separator: " ", omittingEmptySubsequences: false)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-".utf8)
        guard !words.isEmpty, words.count <= 8,
            words.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 && $0.utf8.allSatisfy(allowed.contains) })
        else { return false }
        return !words.contains("none") || words.count == 1
    }

    /// How the options' URLs are read: a string's scheme and host, or `nil` when it is not a
    /// URL. The full program reads them with Foundation's `URL`; the fast path with
    /// ``plainURLReading``, which reads fewer (and those the same), so that it leaves a URL in
    /// any other form to the full program.
    package typealias URLReading = @Sendable (String) -> (scheme: String?, host: String?)?

    /// ``PlainURL``'s reading, the fast path's: its program carries no Foundation `URL`.
    package static let plainURLReading: URLReading = { text in PlainURL(text).map { ($0.scheme, $0.host) } }

    /// Whether `value` is an `--issuer`: an absolute URL with a host, written only with the
    /// characters RFC 3986 allows (``isURIText(_:)``), as `read` reads it. The one check of the
    /// option: the full program's parser calls it too, so the two cannot disagree.
    package static func isIssuer(_ value: String, reading read: URLReading) -> Bool {
        guard isURIText(value), let host = read(value)?.host else { return false }
        return !host.isEmpty
    }

    /// Whether `value` is a `--redirect-uri`: an absolute URI, written only with the characters
    /// RFC 3986 allows (``isURIText(_:)``), as `read` reads it. The full program's parser calls
    /// it too.
    package static func isRedirectURI(_ value: String, reading read: URLReading) -> Bool {
        isURIText(value) && read(value)?.scheme != nil
    }

    /// Whether every character of `value` is one RFC 3986 allows in a URI — unreserved,
    /// reserved, or `%` and two hexadecimal digits — so that no URL parser has a space, a `|`,
    /// a quote or a control character to accept, encode or refuse in its own way.
    package static func isURIText(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty else { return false }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            guard uriBytes.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    /// RFC 3986's unreserved and reserved characters.
    private static let uriBytes = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// The sign-in options as given, after parsing: what both programs check.
    package struct Given: Sendable, Hashable {
        package var issuer: String?
        package var preset: String?
        package var config: String?
        package var clientID: String?
        package var redirectURI: String?
        package var browser: String?
        package var par: String?
        /// `--timeout` in seconds, when given (the full program's default passes).
        package var timeout: Double?
        package var device = false
        package var noBrowser = false
        package var ephemeral = false
        /// `--client-credentials`: the client signs in as itself, with no person.
        package var clientCredentials = false
        /// `--register` (`webauth login` only): the provider gives the client ID. The fast path
        /// never sets it: it does not know the option, so a line with it is the full program's.
        package var register = false
        /// `--prompt`: the authorization request's `prompt`.
        package var prompt: String?

        /// Options with the values given here.
        package init(
            issuer: String? = nil, preset: String? = nil, config: String? = nil, clientID: String? = nil,
            redirectURI: String? = nil, browser: String? = nil, par: String? = nil, timeout: Double? = nil,
            device: Bool = false, noBrowser: Bool = false, ephemeral: Bool = false, clientCredentials: Bool = false
        ) {
            self.issuer = issuer
            self.preset = preset
            self.config = config
            self.clientID = clientID
            self.redirectURI = redirectURI
            self.browser = browser
            self.par = par
            self.timeout = timeout
            self.device = device
            self.noBrowser = noBrowser
            self.ephemeral = ephemeral
            self.clientCredentials = clientCredentials
        }
    }

    /// Why options are refused; ``message`` is the full program's usage error.
    package enum Refusal: Error, Sendable, Hashable {
        /// More than one of `--issuer`, `--preset` and `--config`.
        case severalProviders
        /// `--issuer` or `--preset` without `--client-id`.
        case noClientID
        /// An `--issuer` that ``isIssuer(_:reading:)`` refuses.
        case issuer
        /// A `--redirect-uri` that ``isRedirectURI(_:reading:)`` refuses.
        case redirectURI
        /// A `--timeout` that is not a positive number of seconds, at most a year.
        case timeout
        /// A `--browser` that ``isBrowser(_:)`` refuses.
        case browser
        /// A `--par` other than `auto`, `always` and `never`.
        case pushedAuthorization
        /// A `--prompt` that ``isPrompt(_:)`` refuses.
        case prompt
        /// `--device` with `--no-browser`, `--browser` or `--ephemeral`.
        case deviceWithBrowser
        /// `--no-browser` with `--browser`.
        case noBrowserWithBrowser
        /// `--client-credentials` with a way for a person to sign in.
        case clientCredentialsWithPerson

        /// The sentence the full program prints.
        package var message: String {
            switch self {
            case .severalProviders: "Give exactly one of --issuer, --preset and --config."
            case .noClientID: "--client-id is needed (or a --config file that has one)."
            case .issuer:
                "--issuer must be an absolute URL with only the characters URLs allow (spaces and | percent-encoded), "
                    + "such as https://accounts.example.com."
            case .redirectURI:
                "--redirect-uri must be an absolute URI with only the characters URIs allow (spaces and | "
                    + "percent-encoded)."
            case .timeout: SecondsRule.refusal(option: "--timeout", allowsZero: false)
            case .browser: "--browser must be automatic, system, chromium, firefox, none, or a path."
            case .pushedAuthorization: "--par must be auto, always or never."
            case .prompt:
                "--prompt must be none, login, consent or select_account (several separated by spaces; none alone)."
            case .deviceWithBrowser: "--device uses no browser here: leave out --no-browser, --browser and --ephemeral."
            case .noBrowserWithBrowser: "Give --no-browser or --browser, not both."
            case .clientCredentialsWithPerson:
                "--client-credentials signs the client in as itself, with no person: leave out --device, --no-browser, "
                    + "--browser and --ephemeral."
            }
        }
    }

    /// The first reason `given` is refused, in the order the full program reports them, with
    /// URLs read by `read`; `nil` when both programs take it. The one check of the combinations
    /// and values: the full program's parser asks it too.
    package static func refusal(_ given: Given, reading read: URLReading) -> Refusal? {
        let sources = [given.issuer, given.preset, given.config].count(where: { $0 != nil })
        guard sources <= 1 else { return .severalProviders }
        if sources == 1, given.clientID == nil, given.config == nil, !given.register { return .noClientID }
        if let issuer = given.issuer, !isIssuer(issuer, reading: read) { return .issuer }
        if let redirect = given.redirectURI, !isRedirectURI(redirect, reading: read) { return .redirectURI }
        if let timeout = given.timeout, !SecondsRule.isValid(timeout, allowsZero: false) { return .timeout }
        if let browser = given.browser, !isBrowser(browser) { return .browser }
        if let par = given.par, !pushedAuthorizationValues.contains(par) { return .pushedAuthorization }
        if let prompt = given.prompt, !isPrompt(prompt) { return .prompt }
        if given.clientCredentials, given.device || given.noBrowser || given.browser != nil || given.ephemeral {
            return .clientCredentialsWithPerson
        }
        if given.device, given.noBrowser || given.browser != nil || given.ephemeral { return .deviceWithBrowser }
        if given.noBrowser, given.browser != nil { return .noBrowserWithBrowser }
        return nil
    }

    /// Whether `given` — each option's values in order, an empty list for a flag, as written on
    /// a command line — passes the full program's checks for sure: each option as often as it
    /// may be given, values that are not empty and do not start with `-`, a `--timeout` in
    /// plain decimal digits, URLs in ``PlainURL``'s form, and no ``refusal(_:reading:)``.
    package static func accepts(_ given: GivenOptions) -> Bool {
        for option in given.options {
            let values = option.values
            guard let arity = arity(of: option.name) else { return false }
            switch arity {
            case .flag: guard values.isEmpty else { return false }
            case .value: guard values.count == 1 else { return false }
            case .repeatable: guard !values.isEmpty else { return false }
            }
            guard values.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") }) else { return false }
        }
        func value(_ name: String) -> String? { given[name]?.first }
        var timeout: Double?
        if let text = value("--timeout") {
            guard let seconds = SecondsRule.seconds(text) else { return false }
            timeout = seconds
        }
        var options = Given(
            issuer: value("--issuer"), preset: value("--preset"), config: value("--config"),
            clientID: value("--client-id"), redirectURI: value("--redirect-uri"), browser: value("--browser"),
            par: value("--par"), timeout: timeout, device: given["--device"] != nil,
            noBrowser: given["--no-browser"] != nil, ephemeral: given["--ephemeral"] != nil,
            clientCredentials: given["--client-credentials"] != nil)
        options.prompt = value("--prompt")
        return refusal(options, reading: plainURLReading) == nil
    }
}
