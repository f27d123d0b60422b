import Foundation

/// The parts a ``WebAuthSession`` works with: the browser it presents in (fixed, or
/// chosen per session from its ``BrowserNeeds``) and the receivers that can catch callbacks
/// outside the browser.
///
/// `import WebAuth` gives `SessionEnvironment.standard` (the person's browser, or the terminal
/// when there is no display, plus the loopback listener) and initializers that use it. Pass your
/// own environment to choose a browser or to test with stand-ins:
///
/// ```swift
/// let environment = SessionEnvironment(browser: myBrowser, receivers: [LoopbackReceiver()])
/// let choosing = SessionEnvironment(receivers: [LoopbackReceiver()]) { needs in
///     needs.prefersEphemeralSession ? controlledBrowser : myBrowser
/// }
/// let session = WebAuthSession(url: url, callback: .loopback(), environment: environment)
/// ```
public struct SessionEnvironment: Sendable {
    /// Receivers tried in order for callbacks the browser cannot catch itself.
    public var receivers: [any CallbackReceiver]
    private let chooseBrowser: @Sendable (BrowserNeeds) -> any Browser

    /// Creates an environment that always presents in `browser`.
    public init(browser: any Browser, receivers: [any CallbackReceiver]) {
        self.receivers = receivers
        self.chooseBrowser = { _ in browser }
    }

    /// Creates an environment that chooses a browser for each session when it starts, from what
    /// that session needs.
    public init(receivers: [any CallbackReceiver], choosingBrowser: @escaping @Sendable (BrowserNeeds) -> any Browser) {
        self.receivers = receivers
        self.chooseBrowser = choosingBrowser
    }

    /// The browser for a session with these needs.
    public func browser(for needs: BrowserNeeds) -> any Browser { chooseBrowser(needs) }

    /// The callback registered for this program with the first receiver that keeps
    /// registrations (see ``CallbackReceiver/registeredCallback()``).
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/noCallbackReceiver`` when none is
    ///   registered, or no receiver keeps registrations.
    public func registeredCallback() throws(WebAuthenticationSessionError) -> Callback {
        for receiver in receivers {
            if let callback = try receiver.registeredCallback() { return callback }
        }
        throw .noCallbackReceiver(
            "no callback was given and nothing here knows the schemes registered with the desktop; give one")
    }
}

/// What a starting session asks of its browser, for environments that choose one per session.
public struct BrowserNeeds: Sendable, Hashable {
    /// The session's callback.
    public var callback: Callback
    /// Whether the session prefers an ephemeral browser session.
    public var prefersEphemeralSession: Bool
    /// Whether the session has additional header fields to send.
    public var hasAdditionalHeaderFields: Bool
    /// Capabilities the browser must have.
    public var requiredCapabilities: BrowserCapabilities
    /// Whether one of the environment's receivers can receive the callback, so the browser
    /// need not catch it.
    public var callbackIsReceivable: Bool

    /// Creates a description of needs.
    public init(
        callback: Callback, prefersEphemeralSession: Bool = false, hasAdditionalHeaderFields: Bool = false,
        requiredCapabilities: BrowserCapabilities = [], callbackIsReceivable: Bool = false
    ) {
        self.callback = callback
        self.prefersEphemeralSession = prefersEphemeralSession
        self.hasAdditionalHeaderFields = hasAdditionalHeaderFields
        self.requiredCapabilities = requiredCapabilities
        self.callbackIsReceivable = callbackIsReceivable
    }

    /// The capabilities a browser would need to honour every need, preferences included.
    public var wantedCapabilities: BrowserCapabilities {
        var wanted = requiredCapabilities
        if prefersEphemeralSession { wanted.insert(.ephemeralSessions) }
        if hasAdditionalHeaderFields { wanted.insert(.additionalHeaderFields) }
        if !callbackIsReceivable { wanted.insert(.callbackInterception) }
        return wanted
    }
}

/// How one session will get its callback, decided before anything is opened. Pure.
package struct SessionPlan: Sendable {
    /// The receiver to listen with, if one is needed and available.
    package var receiverIndex: Int?
    /// Things the person should know: preferences the browser cannot honour.
    package var notices: [String]

    /// Decides the plan or says precisely why the session cannot run.
    package static func make(
        callback: Callback,
        browserName: String,
        browserCapabilities: BrowserCapabilities,
        receiversAccepting: [Bool],
        required: BrowserCapabilities,
        prefersEphemeral: Bool,
        additionalHeaderFields: [String: String]
    ) -> Result<SessionPlan, WebAuthenticationSessionError> {
        if let invalid = HeaderFieldPolicy.firstViolation(in: additionalHeaderFields) {
            return .failure(invalid)
        }
        let hasAdditionalHeaderFields = !additionalHeaderFields.isEmpty
        let missing = required.subtracting(browserCapabilities)
        if !missing.isEmpty {
            return .failure(
                .browserCannotHonor(
                    "\(browserName) cannot provide \(missing) that this session requires; "
                        + "use a browser the session controls (such as Chromium or Firefox)"))
        }
        var notices: [String] = []
        if prefersEphemeral && !browserCapabilities.contains(.ephemeralSessions) {
            notices.append("\(browserName) cannot open an ephemeral session; the browser's own profile is used")
        }
        if hasAdditionalHeaderFields && !browserCapabilities.contains(.additionalHeaderFields) {
            notices.append("\(browserName) cannot send additional header fields; they are not sent")
        }

        let receiverIndex = receiversAccepting.firstIndex(of: true)
        let browserDelivers =
            browserCapabilities.contains(.callbackInterception) || browserCapabilities.contains(.pastedCallback)
        if callback.isLoopback {
            guard let receiverIndex else {
                return .failure(.noCallbackReceiver("no loopback listener is available for \(callback)"))
            }
            return .success(SessionPlan(receiverIndex: receiverIndex, notices: notices))
        }
        guard receiverIndex != nil || browserDelivers else {
            let fix =
                callback.isCustomScheme
                ? "register the scheme with the desktop (`webauth scheme register \(callback.scheme)` or "
                    + "DesktopSchemeRegistry) or use a browser the session controls"
                : "use a browser the session controls (such as Chromium or Firefox)"
            return .failure(.noCallbackReceiver("\(browserName) cannot hand \(callback) callbacks back: \(fix)"))
        }
        return .success(SessionPlan(receiverIndex: receiverIndex, notices: notices))
    }
}

/// Which ``WebAuthSession/additionalHeaderFields`` may be sent with the first request.
///
/// Refused: names the browser sets itself — the Fetch standard's forbidden request headers
/// (`Cookie`, `Host`, `Origin`, `Referer`, `Content-Length`, `Connection`, `Transfer-Encoding`, …)
/// and every `Proxy-` or `Sec-` name — as well as names that are not HTTP tokens and values with
/// control characters (which could split a request).
package enum HeaderFieldPolicy {
    static let forbidden: Set<String> = [
        "accept-charset", "accept-encoding", "access-control-request-headers", "access-control-request-method",
        "connection", "content-length", "cookie", "cookie2", "date", "dnt", "expect", "host", "keep-alive",
        "origin", "referer", "set-cookie", "te", "trailer", "transfer-encoding", "upgrade", "via",
    ]

    /// The first field that may not be sent, as an error naming it; `nil` when all may.
    package static func firstViolation(in fields: [String: String]) -> WebAuthenticationSessionError? {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            let lowered = name.lowercased()
            guard !name.isEmpty, name.allSatisfy(tokenCharacters.contains) else {
                return .invalidHeaderField("'\(name)' is not a valid header field name")
            }
            if forbidden.contains(lowered) || lowered.hasPrefix("proxy-") || lowered.hasPrefix("sec-") {
                return .invalidHeaderField("the browser sets \(name) itself; it cannot be an additional header field")
            }
            if value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                return .invalidHeaderField("the value of \(name) contains control characters")
            }
        }
        return nil
    }
}
