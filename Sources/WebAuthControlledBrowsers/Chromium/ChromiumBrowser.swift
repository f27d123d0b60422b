// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import Logging
public import WebAuthCore

/// Chromium or Google Chrome, launched and steered by the session over the DevTools protocol on a
/// pipe (`--remote-debugging-pipe`) — never a TCP debugging port, so no other local process can
/// attach to it.
///
/// Because the session sees every navigation, it can:
/// - catch **any callback** without registering anything: a top-level navigation (redirects
///   included) to a URL that ``Callback/matchesURL(_:)`` is stopped inside the browser and the
///   session completes with it — a custom scheme never reaches the desktop's handler, and an
///   `https` callback is stopped before any DNS lookup or connection;
/// - run **ephemeral** sessions in a fresh 0700 profile that is deleted when the session ends,
///   or **shared** ones in a profile of its own under `$XDG_DATA_HOME/webauth/profiles/chromium`,
///   so that a person who signed in once stays signed in;
/// - send ``WebAuthSession/additionalHeaderFields`` with the first request only;
/// - **dismiss itself**: when the session ends the browser is closed and every process of its
///   process group is ended and waited for — on the shared profile it is first asked to quit, so
///   that it saves its cookies;
/// - notice that the person **closed the window** or quit the browser (the session ends as
///   cancelled by the user), or that the browser **crashed** (it ends with
///   ``WebAuthenticationSessionError/Code/browserLaunchFailed``).
///
/// ```swift
/// let chromium = ChromiumBrowser(options: .init(headless: true))
/// let session = WebAuthSession(
///     url: authorizationURL, callback: .customScheme("com.example.app"),
///     environment: SessionEnvironment(browser: chromium, receivers: []))
/// session.prefersEphemeralWebBrowserSession = true
/// let callbackURL = try await session.authenticate().url
/// ```
///
/// The browser runs with the flags it needs and nothing more; in particular it adds no flags that
/// block or redirect network traffic. Pass proxies and similar settings in
/// ``Options/extraArguments``. Its profile is set not to *predict* network use (no speculative
/// preconnect or DNS prefetch): otherwise Chromium would look up and connect to an `https`
/// callback's host as soon as a link or form on the page started navigating there, before the
/// request itself could be stopped.
public struct ChromiumBrowser: Browser {
    /// The executable names looked for, in order.
    public static let executableNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// How the browser is found and started.
    public var options: Options

    /// Creates a browser with `options`.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Where Chromium is looked for, and what to say when it is not found.
    static let executableLookup = BrowserExecutable(
        browser: "Chromium", names: executableNames,
        installHint: "install Chromium (for example `sudo apt install chromium`) or Google Chrome",
        option: "ChromiumBrowser.Options.executable")

    /// The first of ``executableNames`` found as an executable file in `searchPath`.
    ///
    /// - Parameter searchPath: A `PATH`-style list of directories; `nil` uses this process's
    ///   `PATH`.
    /// - Returns: The executable's path, or `nil` when none is installed.
    public static func find(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        executableLookup.find(searchPath: searchPath)
    }

    /// The executable's name, such as `chromium` or `google-chrome`.
    public var name: String {
        let path = options.executable ?? Self.find(searchPath: options.environment["PATH"])
        return path.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "chromium"
    }

    /// Ephemeral sessions, extra header fields, callback interception, dismissal and close
    /// detection.
    public var capabilities: BrowserCapabilities { Self.controlledCapabilities }

    /// Starts the browser, sets up interception, and sends the page to the authorization URL.
    ///
    /// Returns once the navigation has been sent; the returned presentation reports the callback,
    /// the window being closed, or the browser failing.
    ///
    /// - Throws: ``WebAuthenticationSessionError`` with
    ///   ``WebAuthenticationSessionError/Code/noBrowserAvailable`` when no executable is found,
    ///   ``WebAuthenticationSessionError/Code/browserLaunchFailed`` when it does not start (or the
    ///   shared profile is in use), or ``WebAuthenticationSessionError/Code/invalidAuthorizationURL``.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        try await launch(request)
    }
}

extension ChromiumBrowser: ControlledBrowser {
    typealias Launcher = ChromiumLauncher
}
