// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore

/// Which browser sessions use: chosen explicitly, or picked per session from what it needs.
///
/// An explicit choice wins — from the API, `webauth --browser`, `WEBAUTH_BROWSER`, or `$BROWSER`
/// (which chooses the system browser with that command). Otherwise ``BrowserChoice/automatic``
/// decides per session:
///
/// 1. In WSL (see `SignInSurroundings`), a session that needs nothing the person's own browser
///    lacks opens in the Windows default browser (`wslview`, else `explorer.exe`).
/// 2. With no display (SSH, containers): the terminal — the URL is printed and the redirect can
///    be pasted — since a person cannot use a browser that has no window.
/// 3. A session with a custom-scheme or `https` callback goes to the person's web-authentication
///    browser, when one is registered (`webauth browser register`) and declares what the session
///    needs (see `AuthenticationBrowserCapabilities`).
/// 4. A session that needs nothing the person's own browser lacks — not ephemeral, no extra
///    header fields, a callback a receiver catches (loopback, a registered scheme) — opens in
///    the person's default browser, whose existing sign-ins are the single sign-on people expect.
/// 5. A session that needs more (ephemeral, extra header fields, an `https` or unregistered
///    custom-scheme callback) uses a browser the session controls: Chromium if installed, else
///    Firefox.
/// 6. With neither, the person's browser again; the session then reports the preferences it
///    cannot honour, or fails at start naming a missing requirement and how to get it.
///
/// ```swift
/// let selection = BrowserSelection(choice: .chromium, headless: true)
/// let environment = SessionEnvironment.standard(selection: selection)
/// ```
public struct BrowserSelection: Sendable {
    /// The choice.
    public var choice: BrowserChoice
    /// For controlled browsers: `true` for headless, `false` for a window, `nil` for "a window
    /// when there is a display".
    public var headless: Bool?
    /// For controlled browsers: more command-line arguments (a proxy, say).
    public var extraArguments: [String]
    /// The environment to read (`PATH`, `DISPLAY`, `$BROWSER`, …) and to give browsers.
    public var environment: [String: String]
    /// Where the chosen browser logs.
    public var logger: Logger
    /// What the machine tells about where the sign-in happens (``surroundings``); a test
    /// presents another machine through it.
    public var hostFacts: any HostFacts

    /// Creates a selection; `hostFacts` defaults to this machine's, read with `environment`.
    public init(
        choice: BrowserChoice = .automatic,
        headless: Bool? = nil,
        extraArguments: [String] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        logger: Logger = .webAuthSilent,
        hostFacts: (any HostFacts)? = nil
    ) {
        self.choice = choice
        self.headless = headless
        self.extraArguments = extraArguments
        self.environment = environment
        self.logger = logger
        self.hostFacts = hostFacts ?? SystemHostFacts(environment: environment)
    }

    /// Where the sign-in happens, from ``hostFacts``: what the automatic choice goes by.
    public var surroundings: SignInSurroundings { SignInSurroundings(hostFacts) }

    /// The terminal for these ``surroundings``: over SSH it also prints the `ssh -L` line that
    /// brings a loopback redirect from the person's own computer.
    public var terminal: TerminalPresenter { TerminalPresenter(sshDestination: surroundings.sshDestination) }

    /// The selection the environment asks for: `WEBAUTH_BROWSER` (`system`, `chromium`,
    /// `firefox`, `none` or a path) and `WEBAUTH_BROWSER_ARGS` (arguments separated by spaces,
    /// no quoting) — else automatic.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> BrowserSelection {
        let choice = environment["WEBAUTH_BROWSER"].flatMap { $0.isEmpty ? nil : BrowserChoice($0) } ?? .automatic
        let arguments = (environment["WEBAUTH_BROWSER_ARGS"] ?? "").split(separator: " ").map(String.init)
        return BrowserSelection(choice: choice, extraArguments: arguments, environment: environment)
    }

    /// The browser for a session with `needs`.
    public func browser(for needs: BrowserNeeds) -> any Browser {
        switch choice.kind {
        case .system: return SystemBrowser.desktopDefault(environment: environment)
        case .terminal: return terminal
        case .chromium(let path): return chromium(path)
        case .firefox(let path): return firefox(path)
        case .command(let command):
            return SystemBrowser(commands: [command], searchPath: environment["PATH"], logger: logger)
        case .automatic: return automatic(for: needs)
        }
    }

    /// Whether the automatic choice, finding no display and no usable `$BROWSER`, would print
    /// the URL (and take the pasted redirect) instead of opening a browser. An explicit choice —
    /// `none` included — is never a fallback. Callers that have another way to sign in without
    /// a browser window (the device flow) ask this rather than reading the display themselves.
    public var fallsBackToTerminal: Bool {
        guard case .automatic = choice.kind, !DisplayEnvironment(environment: environment).hasDisplay else {
            return false
        }
        return browser(for: BrowserNeeds(callback: .loopback(), callbackIsReceivable: true)) is TerminalPresenter
    }

    /// A browser chosen once for a session with `needs`, and whether it is the terminal the
    /// automatic choice falls back to (``fallsBackToTerminal``, for those needs). A caller that
    /// must know both before it starts the session — to sign in another way when no browser
    /// would open — chooses with this and hands the browser to the session
    /// (`SessionEnvironment.standard(browser:)`), so the rules run once per sign-in.
    public func choose(for needs: BrowserNeeds) -> (browser: any Browser, fallsBackToTerminal: Bool) {
        let browser = browser(for: needs)
        guard case .automatic = choice.kind, browser is TerminalPresenter else { return (browser, false) }
        return (browser, !DisplayEnvironment(environment: environment).hasDisplay)
    }

    private func automatic(for needs: BrowserNeeds) -> any Browser {
        let system = SystemBrowser.desktopDefault(environment: environment)
        if let variable = environment["BROWSER"], !variable.isEmpty, system.availableCommand != nil {
            return system
        }
        // In WSL the person's browser is Windows', whose sign-ins they have; never a Linux
        // browser that may have no display.
        if surroundings.place == .wsl, needs.wantedCapabilities.isEmpty {
            let windows = SystemBrowser.windowsDefault(environment: environment)
            if windows.availableCommand != nil { return windows }
        }
        guard DisplayEnvironment(environment: environment).hasDisplay else { return terminal }
        if let registered = authenticationBrowser(for: needs) { return registered }
        let systemIsEnough = needs.wantedCapabilities.isSubset(of: system.capabilities)
        if systemIsEnough, system.availableCommand != nil { return system }
        if ChromiumBrowser.find(searchPath: environment["PATH"]) != nil { return chromium(nil) }
        if FirefoxBrowser.find(searchPath: environment["PATH"]) != nil { return firefox(nil) }
        return system.availableCommand != nil ? system : terminal
    }

    /// The person's web-authentication browser (``AuthenticationBrowserRegistry``), when one is
    /// registered and declares what this session needs: a custom-scheme callback, or an `https`
    /// one with `CallbackURLMatchingIsSupported`, and `EphemeralBrowserSessionIsSupported` for an
    /// ephemeral session — unless that program is this one. Otherwise the rules go on as without
    /// one — to a controlled browser for what the person's browser cannot do, as Apple's system
    /// falls back to Safari.
    private func authenticationBrowser(for needs: BrowserNeeds) -> AuthenticationBrowser? {
        let desktop = DesktopEnvironment(variables: environment)
        guard let registration = AuthenticationBrowserRegistry(environment: desktop).registration,
            registration.isUsable, !Self.isThisProgram(registration.executablePath),
            registration.capabilities.canHonor(
                callback: needs.callback, prefersEphemeralSession: needs.prefersEphemeralSession)
        else { return nil }
        return AuthenticationBrowser(registration: registration, environment: desktop, logger: logger)
    }

    /// Whether `path` is this program: a browser app's own sessions are not handed back to it.
    private static func isThisProgram(_ path: String) -> Bool {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return false
        }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path == URL(fileURLWithPath: own).path
    }

    private func chromium(_ path: String?) -> ChromiumBrowser {
        ChromiumBrowser(
            options: ChromiumBrowser.Options(
                executable: path, headless: headless, extraArguments: extraArguments, environment: environment,
                logger: logger))
    }

    private func firefox(_ path: String?) -> FirefoxBrowser {
        FirefoxBrowser(
            options: FirefoxBrowser.Options(
                executable: path, headless: headless, extraArguments: extraArguments, environment: environment,
                logger: logger))
    }
}

/// A browser choice: `automatic`, `system`, `chromium`, `firefox`, `none` (``terminal``), or a
/// program.
public struct BrowserChoice: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case automatic
        case system
        case terminal
        case chromium(String?)
        case firefox(String?)
        case command(BrowserCommand)
    }

    let kind: Kind

    /// Per session, by the rules of ``BrowserSelection``.
    public static let automatic = BrowserChoice(kind: .automatic)
    /// The desktop's default browser (`$BROWSER`, `xdg-open`, `open`).
    public static let system = BrowserChoice(kind: .system)
    /// No browser: print the URL and accept the pasted redirect.
    public static let terminal = BrowserChoice(kind: .terminal)
    /// A Chromium the session controls, found in `PATH`.
    public static let chromium = BrowserChoice(kind: .chromium(nil))
    /// A Firefox the session controls, found in `PATH`.
    public static let firefox = BrowserChoice(kind: .firefox(nil))

    /// A program: controlled as Chromium or Firefox when its name says it is one (`chrom…`,
    /// `google-chrome…`, `firefox…`), else run as a system browser command.
    public static func executable(_ path: String) -> BrowserChoice {
        let name = URL(fileURLWithPath: path).lastPathComponent.lowercased()
        if name.hasPrefix("chrom") || name.hasPrefix("google-chrome") { return BrowserChoice(kind: .chromium(path)) }
        if name.hasPrefix("firefox") { return BrowserChoice(kind: .firefox(path)) }
        return BrowserChoice(kind: .command(BrowserCommand(executable: path)))
    }

    /// Parses `automatic`, `system`, `chromium`, `firefox`, `none`, or a path (anything with a
    /// `/`). Returns `nil` for anything else.
    public init?(_ value: String) {
        switch value.lowercased() {
        case "automatic", "auto": self = .automatic
        case "system", "default": self = .system
        case "none", "terminal": self = .terminal
        case "chromium", "chrome": self = .chromium
        case "firefox": self = .firefox
        default:
            guard value.contains("/") else { return nil }
            self = .executable(value)
        }
    }

    private init(kind: Kind) { self.kind = kind }

    /// `automatic`, `system`, `none`, `chromium`, `firefox`, or the program's path.
    public var description: String {
        switch kind {
        case .automatic: "automatic"
        case .system: "system"
        case .terminal: "none"
        case .chromium(let path): path ?? "chromium"
        case .firefox(let path): path ?? "firefox"
        case .command(let command): command.executable
        }
    }
}
