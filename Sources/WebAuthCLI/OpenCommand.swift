// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Logging
import WebAuth
import WebAuthFastPath
import WebAuthPlatform

/// `webauth open`: runs one web authentication session and prints the callback URL.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a sign-in page in a browser and print the callback URL it ends on.",
        discussion: """
            Give exactly one callback: --loopback[=PATH] (a listener on 127.0.0.1 with an \
            ephemeral port; a bare --loopback means /callback), --callback-scheme SCHEME, or \
            --callback-https HOST/PATH. With --loopback, {redirect_uri} in URL is replaced by the \
            percent-encoded redirect URI before the browser opens it:

              webauth open --loopback 'https://auth.example.com/authorize?client_id=cli&redirect_uri={redirect_uri}'

            Progress goes to standard error; the callback URL alone goes to standard output. \
            Ctrl-C cancels, releasing the port.

            \(ExitStatus.pointer)
            """
    )

    @Argument(help: "The sign-in (authorization) URL: https, or http to a loopback address.")
    var url: String

    @Option(
        name: .customLong("loopback"),
        help: ArgumentHelp("Receive the callback on a loopback listener at this exact path.", valueName: "PATH"))
    var loopbackPath: String?

    @Option(name: .customLong("loopback-port"), help: "The loopback port; 0 picks a free one.")
    var loopbackPort: Int = 0

    @Option(name: .customLong("callback-scheme"), help: "Wait for a callback to this custom URL scheme.")
    var callbackScheme: String?

    @Option(
        name: .customLong("callback-https"),
        help: ArgumentHelp("Wait for a callback to https://HOST/PATH.", valueName: "HOST/PATH"))
    var callbackHTTPS: String?

    @Option(help: "Give up after this many seconds.")
    var timeout: Double = 600

    @Flag(
        name: .customLong("no-browser"), help: "Print the URL instead of opening a browser; accept the pasted result.")
    var noBrowser = false

    @Option(
        help: ArgumentHelp(
            "The browser: automatic, system, chromium, firefox, none, or a path (default: WEBAUTH_BROWSER, else automatic).",
            valueName: "BROWSER"))
    var browser: String?

    @Flag(help: "Ask for an ephemeral browser session: no cookies in, none kept.")
    var ephemeral = false

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp("Send this header field with the first request (repeatable).", valueName: "NAME: VALUE"))
    var headers: [String] = []

    @Flag(help: "Run a controlled browser without a window.")
    var headless = false

    @Option(
        name: .customLong("browser-arg"),
        parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Pass this argument to a controlled browser (repeatable; adds to WEBAUTH_BROWSER_ARGS).", valueName: "ARG"))
    var browserArguments: [String] = []

    @Flag(help: "Print the result (or the error) as JSON on standard output.")
    var json = false

    @Flag(help: "Log what the session does on standard error (never secrets).")
    var verbose = false

    func validate() throws {
        let given = [loopbackPath != nil, callbackScheme != nil, callbackHTTPS != nil].filter { $0 }.count
        guard given == 1 else {
            throw ValidationError("Give exactly one of --loopback, --callback-scheme and --callback-https.")
        }
        try SecondsOption.validate(timeout, option: "--timeout")
        guard (0...65535).contains(loopbackPort) else { throw ValidationError("--loopback-port must be 0–65535.") }
        if let loopbackPath, !loopbackPath.hasPrefix("/") {
            throw ValidationError("--loopback PATH must start with '/'.")
        }
        if let browser, !SignInOptionSyntax.isBrowser(browser) {
            throw ValidationError(SignInOptionSyntax.Refusal.browser.message)
        }
        _ = try headerFields()
        let sample = RedirectTemplate.expand(url, redirectURI: URL(string: "http://127.0.0.1:1/callback")!)
        guard URL(string: sample) != nil else {
            throw ValidationError("'\(url)' is not a URL.")
        }
    }

    /// `--header` values as fields: `Name: value`, split at the first colon.
    func headerFields() throws -> [String: String] {
        var fields: [String: String] = [:]
        for header in headers {
            guard let colon = header.firstIndex(of: ":") else {
                throw ValidationError("--header needs 'Name: value', not '\(header)'.")
            }
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            fields[name] = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The browser selection: `--no-browser`, `--browser`, `--headless`, `--browser-arg` over the
    /// environment's `WEBAUTH_BROWSER` and `WEBAUTH_BROWSER_ARGS`.
    func browserSelection(logger: Logger) -> BrowserSelection {
        var selection = BrowserSelection.fromEnvironment()
        if let browser, let choice = BrowserChoice(browser) { selection.choice = choice }
        if noBrowser { selection.choice = .terminal }
        if headless { selection.headless = true }
        selection.extraArguments += browserArguments
        selection.logger = logger
        return selection
    }

    func makeCallback() throws -> Callback {
        if let loopbackPath { return .loopback(path: loopbackPath, port: loopbackPort) }
        if let callbackScheme, callbackScheme.contains(":") {
            throw ValidationError("--callback-scheme takes a scheme name, such as com.example.app, without ':'.")
        }
        let redirectURI =
            if let callbackScheme { callbackScheme + ":" } else {
                "https://" + (callbackHTTPS ?? "").replacingOccurrences(of: "https://", with: "")
            }
        guard let url = URL(string: redirectURI) else {
            throw ValidationError("'\(redirectURI)' is not a callback URL.")
        }
        do {
            return try Callback(redirectURI: url)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let callback = try makeCallback()
        let output = CommandOutput(json: json)
        var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = verbose ? .debug : .critical

        let template = url
        let environment = SessionEnvironment.standard(selection: browserSelection(logger: logger))
        let session = WebAuthSession(callback: callback, environment: environment) {
            redirectURI in
            URL(string: RedirectTemplate.expand(template, redirectURI: redirectURI)) ?? URL(string: "invalid:")!
        }
        session.timeout = SecondsOption.duration(timeout)
        session.logger = logger
        session.prefersEphemeralWebBrowserSession = ephemeral
        let fields = try headerFields()
        session.additionalHeaderFields = fields.isEmpty ? nil : fields
        session.progressHandler = { progress in output.progress(progress) }

        let trap = InterruptTrap()
        let result = await trap.whileTrapping(onSignal: session.cancel) {
            do throws(WebAuthenticationSessionError) {
                return Result<ReceivedCallback, WebAuthenticationSessionError>.success(try await session.authenticate())
            } catch {
                return .failure(error)
            }
        }

        switch result {
        case .success(let received):
            output.success(callbackURL: received.url, redirectURI: received.redirectURI)
        case .failure(let error):
            var status = ExitStatus.status(for: error)
            if let signal = trap.received, error.code == .canceledLogin {
                status = signal == SignalNumber.terminate ? ExitStatus.terminated : ExitStatus.interrupted
            }
            output.failure(error, status: status)
            throw ExitCode(status)
        }
    }
}
