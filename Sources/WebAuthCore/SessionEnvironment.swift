import Foundation

/// The parts a ``WebAuthenticationSession`` works with: the browser it presents in and the
/// receivers that can catch callbacks outside the browser.
///
/// `import WebAuth` gives `SessionEnvironment.standard` (the person's browser, or the terminal
/// when there is no display, plus the loopback listener) and initializers that use it. Pass your
/// own environment to choose a browser or to test with stand-ins:
///
/// ```swift
/// let environment = SessionEnvironment(browser: myBrowser, receivers: [LoopbackReceiver()])
/// let session = WebAuthenticationSession(url: url, callback: .loopback(), environment: environment)
/// ```
public struct SessionEnvironment: Sendable {
    /// Where the authorization page is shown.
    public var browser: any Browser
    /// Receivers tried in order for callbacks the browser cannot catch itself.
    public var receivers: [any CallbackReceiver]

    /// Creates an environment.
    public init(browser: any Browser, receivers: [any CallbackReceiver]) {
        self.browser = browser
        self.receivers = receivers
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
        hasAdditionalHeaderFields: Bool
    ) -> Result<SessionPlan, WebAuthenticationSessionError> {
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
                ? "register the scheme with the desktop or use a browser the session controls"
                : "use a browser the session controls (such as Chromium or Firefox)"
            return .failure(.noCallbackReceiver("\(browserName) cannot hand \(callback) callbacks back: \(fix)"))
        }
        return .success(SessionPlan(receiverIndex: receiverIndex, notices: notices))
    }
}
