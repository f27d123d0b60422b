// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import Logging
public import WebAuthCore

/// A Firefox the session starts and steers itself over WebDriver BiDi (Firefox 128 ESR or newer).
///
/// With it, a session catches *any* callback without registering anything — a custom scheme
/// (`com.example.app:/…`) or an `https` URL — stops it before it leaves the browser, and
/// completes with it; it can run ephemerally, send additional header fields with the first
/// request, close its window when done, and notice when the person closes it.
///
/// ```swift
/// let firefox = FirefoxBrowser()
/// let session = WebAuthSession(
///     url: authorizationURL, callback: .customScheme("com.example.app"),
///     environment: SessionEnvironment(browser: firefox, receivers: []))
/// session.prefersEphemeralWebBrowserSession = true
/// let callbackURL = try await session.authenticate().url
/// ```
///
/// ## What it does
/// - **Profiles.** An ephemeral session runs with a new profile (mode 0700) that is removed when
///   the session ends, whatever the ending; if this process dies first, a watchdog process ends
///   Firefox and removes the profile, and the next session sweeps away anything left. Otherwise
///   the session uses one persistent profile under `$XDG_DATA_HOME/webauth/profiles/firefox`, so
///   a person who signed in once stays signed in; if another Firefox holds it, the session fails
///   at once with ``WebAuthenticationSessionError/Code/browserLaunchFailed``.
/// - **Preferences.** Every start rewrites the profile's `user.js` with
///   ``defaultPreferences`` (no telemetry, update checks, captive-portal or connectivity checks,
///   Safe Browsing downloads, remote settings, first-run pages…) and then
///   ``Options/extraPreferences``. Nothing blocks the network: proxies and offline set-ups are the
///   caller's to add.
/// - **Catching the callback.** Redirects are
///   stopped when their response starts, `https` callback requests before Firefox resolves the
///   host, and custom-scheme URLs opened by a page through a web handler the profile routes the
///   scheme to (so Firefox never hands the URL to `xdg-open` or another program). Only top-level
///   navigations of the session's own tab complete the session; the matching rules are
///   ``Callback/matchesURL(_:)``'s.
/// - **Ending.** On completion or cancellation the window closes and Firefox's whole process
///   group is ended and waited for before the session delivers its result: with the shared
///   profile Firefox is first asked to quit (`browser.close`) so that it saves its cookies; an
///   ephemeral Firefox, whose profile is deleted anyway, is ended at once. The person closing the
///   tab or quitting Firefox ends the session as cancelled by the user; Firefox crashing or
///   exiting otherwise ends it with ``WebAuthenticationSessionError/Code/browserLaunchFailed``
///   saying so.
///
/// ## Security: a loopback TCP port, not a pipe
/// Firefox offers WebDriver BiDi only on a TCP port (`--remote-debugging-port`); it has no pipe
/// transport like Chromium's `--remote-debugging-pipe`. The port is on `127.0.0.1`, chosen by the
/// system, and only local processes can reach it — but *any* local process, of any user, can.
/// The session connects the moment Firefox announces the port and creates the one BiDi session
/// Firefox accepts, so a later client is refused; the Chrome DevTools Protocol, which older
/// releases served on the same port without that limit, is switched off
/// (`remote.active-protocols`); web pages cannot connect (Firefox checks `Host` and `Origin`).
/// What remains is a race in the few milliseconds between the announcement and our
/// `session.new`: a local program that wins it makes the session fail (Firefox refuses our
/// session, and the browser is ended), but it would have reached that browser — with a shared
/// profile, the person's sign-ins. On a machine shared with untrusted users, prefer an
/// ephemeral session or the Chromium browser, whose pipe no other process can open.
public struct FirefoxBrowser: Browser {
    /// How Firefox is started.
    public var options: Options

    /// The executable names looked for when ``Options/executable`` is `nil`, in order.
    public static let executableNames = ["firefox", "firefox-esr"]

    /// Creates a Firefox browser with `options`.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Where Firefox is looked for, and what to say when it is not found.
    static let executableLookup = BrowserExecutable(
        browser: "Firefox", names: executableNames,
        installHint: "install Firefox (for example `sudo apt install firefox-esr`)",
        option: "FirefoxBrowser.Options.executable")

    /// The path of the first of ``executableNames`` found in `searchPath` (a `PATH`-style list),
    /// or `nil` when Firefox is not installed.
    public static func find(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        executableLookup.find(searchPath: searchPath)
    }

    /// `firefox`.
    public var name: String { "firefox" }

    /// Ephemeral sessions, additional header fields, callback interception, dismissal and close
    /// detection.
    public var capabilities: BrowserCapabilities { Self.controlledCapabilities }

    /// Starts Firefox with a profile for `request`, connects over WebDriver BiDi, and opens the
    /// authorization URL in its tab.
    ///
    /// Returns once the page is on its way.
    /// - Throws: ``WebAuthenticationSessionError/Code/noBrowserAvailable`` when Firefox is not
    ///   found, ``WebAuthenticationSessionError/Code/browserLaunchFailed`` when it cannot be
    ///   started or steered (or the shared profile is in use),
    ///   ``WebAuthenticationSessionError/Code/invalidAuthorizationURL`` for a URL that may not be
    ///   opened.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        try await launch(request)
    }
}

extension FirefoxBrowser: ControlledBrowser {
    typealias Launcher = FirefoxLauncher
}
