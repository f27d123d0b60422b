// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Something that can show the authorization page to the person: the desktop's default browser,
/// a browser the session controls, or a terminal that prints the URL.
///
/// This is the Linux counterpart of the presentation context on Apple platforms. A session asks
/// its browser to ``present(_:)`` a ``BrowserRequest`` once; the returned
/// ``BrowserPresentation`` reports what the browser sees (for browsers that can see anything)
/// and is dismissed when the session ends.
///
/// Implement this protocol to plug in another way of showing pages; the package's own
/// implementations are `SystemBrowser` and `TerminalPresenter` (module WebAuthSystemBrowser).
public protocol Browser: Sendable {
    /// A short name for messages, such as `xdg-open` or `chromium`.
    var name: String { get }
    /// What this browser can honour.
    var capabilities: BrowserCapabilities { get }
    /// Opens `request.url` and returns a handle for the open page.
    ///
    /// Return as soon as the page is on its way; do not wait for the person.
    /// - Throws: ``WebAuthenticationSessionError`` with ``WebAuthenticationSessionError/Code/browserLaunchFailed``
    ///   or ``WebAuthenticationSessionError/Code/noBrowserAvailable``.
    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation
}

/// What a ``Browser`` can do beyond opening a URL — the Linux counterpart of Apple's
/// `ASWebAuthenticationSessionWebBrowserSupportCapabilities`.
///
/// A session compares these with what it was asked for: a preference the browser cannot honour
/// is logged, a requirement (``WebAuthSession/requiredCapabilities``) fails the start.
public struct BrowserCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bits.
    public let rawValue: Int
    /// Creates capabilities from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Uses a fresh profile: no cookies in, none kept after the session.
    public static let ephemeralSessions = BrowserCapabilities(rawValue: 1 << 0)
    /// Sends ``WebAuthSession/additionalHeaderFields`` with the first request.
    public static let additionalHeaderFields = BrowserCapabilities(rawValue: 1 << 1)
    /// Sees navigations, so it can catch a callback URL of any kind before it leaves the browser.
    public static let callbackInterception = BrowserCapabilities(rawValue: 1 << 2)
    /// Closes its own window when the session ends.
    public static let dismissal = BrowserCapabilities(rawValue: 1 << 3)
    /// Notices when the person closes the window (the session then ends as cancelled by the user).
    public static let closeDetection = BrowserCapabilities(rawValue: 1 << 4)
    /// Lets the person paste the URL they were redirected to.
    public static let pastedCallback = BrowserCapabilities(rawValue: 1 << 5)

    /// The names of the capabilities present, such as `[ephemeralSessions, dismissal]`.
    public var description: String {
        let names: [(BrowserCapabilities, String)] = [
            (.ephemeralSessions, "ephemeralSessions"), (.additionalHeaderFields, "additionalHeaderFields"),
            (.callbackInterception, "callbackInterception"), (.dismissal, "dismissal"),
            (.closeDetection, "closeDetection"), (.pastedCallback, "pastedCallback"),
        ]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// What a session asks its ``Browser`` to show.
public struct BrowserRequest: Sendable {
    /// The authorization URL to open. Already checked: `https`, or `http` to a loopback address.
    public var url: URL
    /// The session's callback, with a loopback port already bound. Browsers that intercept
    /// navigations stop at a URL that ``Callback/matchesURL(_:)``.
    public var callback: Callback
    /// The redirect URI the authorization server will send the browser to (for loopback:
    /// `http://127.0.0.1:{port}/{path}`), shown to people who must paste the result.
    public var redirectURI: URL?
    /// Whether the session prefers (or requires) a browser session with no shared state.
    public var prefersEphemeralSession: Bool
    /// Header fields to send with the first request only.
    public var additionalHeaderFields: [String: String]

    /// Creates a request.
    public init(
        url: URL, callback: Callback, redirectURI: URL? = nil, prefersEphemeralSession: Bool = false,
        additionalHeaderFields: [String: String] = [:]
    ) {
        self.url = url
        self.callback = callback
        self.redirectURI = redirectURI
        self.prefersEphemeralSession = prefersEphemeralSession
        self.additionalHeaderFields = additionalHeaderFields
    }
}

/// An open authorization page.
///
/// Browsers that see nothing after launching return a presentation whose ``events`` finishes
/// at once, or stays silent until ``dismiss()``.
public protocol BrowserPresentation: Sendable {
    /// What the browser observes. The session reads it until the session ends.
    var events: AsyncStream<BrowserEvent> { get }
    /// Closes what this presentation opened, if it can. Called once when the session ends,
    /// whatever the ending; must be safe to call after the browser has gone away.
    func dismiss() async
}

/// Something a browser observed while the authorization page was open.
public struct BrowserEvent: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case callback(URL)
        case closedByUser
        case failed(String)
    }

    let kind: Kind

    /// The browser reached (or the person pasted) a URL that may be the callback. The session
    /// checks it against its ``Callback`` and its acceptance rule before completing.
    public static func callback(_ url: URL) -> BrowserEvent { BrowserEvent(kind: .callback(url)) }
    /// The person closed the window or tab: the session ends as cancelled by the user.
    public static let closedByUser = BrowserEvent(kind: .closedByUser)
    /// The browser failed or exited before a callback: the session ends with
    /// ``WebAuthenticationSessionError/Code/browserLaunchFailed`` and this explanation.
    public static func failed(_ explanation: String) -> BrowserEvent { BrowserEvent(kind: .failed(explanation)) }

    /// A readable form that does not reveal a callback URL's parameters.
    public var description: String {
        switch kind {
        case .callback(let url): "callback(\(url.redactedForLogs))"
        case .closedByUser: "closedByUser"
        case .failed(let why): "failed(\(why))"
        }
    }
}
