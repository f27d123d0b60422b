import Foundation
import WebAuthCore

/// Decides, for each WebDriver BiDi event Firefox sends while the authorization page is open,
/// what Firefox should do with a blocked request and what the session should hear. Pure: no I/O,
/// so tests drive it with recorded events.
///
/// How each kind of callback is caught before it leaves the browser:
/// - **A redirect** (`3xx` with a `Location` that matches the callback, custom scheme or https):
///   seen in the `responseStarted` phase; the response is failed, so Firefox never follows it.
/// - **An https callback reached any other way** (a link, a form, script): seen in the
///   `beforeRequestSent` phase, before Firefox looks up the host or connects; the request is failed.
/// - **A custom-scheme URL opened by the page** (a link, `location.href = …`, a meta refresh):
///   Firefox does not put such navigations on the network, and its BiDi events do not carry
///   their URL. The profile therefore hands the session's scheme to a web handler whose address
///   is `https://webauth-callback.invalid/<random token>?url=<the URL>`; Firefox navigates the
///   tab there instead of starting an external program, and that request is failed in
///   `beforeRequestSent` and decoded.
///
/// Only top-level navigations of the session's own tab complete the session. Matching requests
/// elsewhere (frames, other tabs, `fetch`) are failed too, so nothing reaches the callback host,
/// but they are not reported. Loopback callbacks are left to the session's loopback listener.
struct NavigationInterceptor: Sendable {
    /// A command to send to Firefox.
    struct Command: Sendable, Hashable {
        var method: String
        var params: JSONValue
    }

    /// What to do about one event.
    struct Reaction: Sendable, Hashable {
        /// The command that releases or stops a blocked request, if any.
        var command: Command?
        /// What the session should hear, if anything.
        var event: BrowserEvent?
        /// This event is the start of the first navigation of the session's tab.
        var isFirstNavigation = false
    }

    let callback: Callback
    /// The session's tab.
    let context: String
    let additionalHeaderFields: [String: String]
    /// The web-handler prefix for custom schemes (see the type's documentation).
    let schemeHandlerPrefix: String

    private var headersSent = false
    private var navigationSeen = false

    init(callback: Callback, context: String, additionalHeaderFields: [String: String], schemeHandlerPrefix: String) {
        self.callback = callback
        self.context = context
        self.additionalHeaderFields = additionalHeaderFields
        self.schemeHandlerPrefix = schemeHandlerPrefix
    }

    /// The reaction to `event`.
    mutating func react(to event: BiDiConnection.Event) -> Reaction {
        switch event.method {
        case "network.beforeRequestSent": return beforeRequestSent(event.params)
        case "network.responseStarted": return responseStarted(event.params)
        case "browsingContext.navigationStarted": return navigationStarted(event.params)
        case "browsingContext.contextDestroyed":
            return event.params["context"]?.stringValue == context ? Reaction(event: .closedByUser) : Reaction()
        default: return Reaction()
        }
    }

    private var intercepts: Bool { !callback.isLoopback }

    private mutating func beforeRequestSent(_ params: JSONValue) -> Reaction {
        guard params["isBlocked"]?.boolValue == true, let request = params["request"]?["request"]?.stringValue,
            let urlString = params["request"]?["url"]?.stringValue
        else { return Reaction() }
        let isOurTab = params["context"]?.stringValue == context
        let isNavigation = params["navigation"].map { !$0.isNull } ?? false
        let fail = Command(method: "network.failRequest", params: ["request": .string(request)])

        if intercepts, let handled = customSchemeURL(fromHandlerURL: urlString) {
            // Only Firefox's handler knows the token: this is a custom-scheme navigation.
            let reported = isOurTab && callback.matchesURL(handled)
            return Reaction(command: fail, event: reported ? .callback(handled) : nil)
        }
        if intercepts, urlString.lowercased().hasPrefix("https://\(FirefoxProfileSetup.schemeHandlerHost)/") {
            return Reaction(command: fail)  // a forged or stale handler address: never let it out
        }
        if intercepts, let url = URL(string: urlString), callback.matchesURL(url) {
            return Reaction(command: fail, event: isOurTab && isNavigation ? .callback(url) : nil)
        }
        var release: JSONValue = ["request": .string(request)]
        if isOurTab && isNavigation && !headersSent {
            // The first request of the session's tab is the authorization request: the only
            // one that gets the additional header fields, as on Apple platforms.
            headersSent = true
            if !additionalHeaderFields.isEmpty, let headers = params["request"]?["headers"]?.arrayValue {
                release = [
                    "request": .string(request), "headers": .array(merging(additionalHeaderFields, into: headers)),
                ]
            }
        }
        return Reaction(command: Command(method: "network.continueRequest", params: release))
    }

    private func responseStarted(_ params: JSONValue) -> Reaction {
        guard params["isBlocked"]?.boolValue == true, let request = params["request"]?["request"]?.stringValue
        else { return Reaction() }
        let release = Command(method: "network.continueResponse", params: ["request": .string(request)])
        guard intercepts, let status = params["response"]?["status"]?.intValue, (300..<400).contains(status),
            let location = header("location", in: params["response"]?["headers"]),
            let target = URL(string: location, relativeTo: params["request"]?["url"]?.stringValue.flatMap(URL.init(string:)))?
                .absoluteURL,
            callback.matchesURL(target)
        else { return Reaction(command: release) }
        let isOurTab = params["context"]?.stringValue == context
        let isNavigation = params["navigation"].map { !$0.isNull } ?? false
        return Reaction(
            command: Command(method: "network.failRequest", params: ["request": .string(request)]),
            event: isOurTab && isNavigation ? .callback(target) : nil)
    }

    private mutating func navigationStarted(_ params: JSONValue) -> Reaction {
        guard params["context"]?.stringValue == context else { return Reaction() }
        var reaction = Reaction()
        if !navigationSeen {
            navigationSeen = true
            reaction.isFirstNavigation = true
        }
        // Firefox reports the page's own URL for navigations a page starts to a custom scheme;
        // should a release report the target, it is caught here too (the request is stopped
        // by the rules above in any case).
        if intercepts, let url = params["url"]?.stringValue.flatMap(URL.init(string:)), callback.matchesURL(url) {
            reaction.event = .callback(url)
        }
        return reaction
    }

    /// The custom-scheme URL inside a handler address carrying our token, or `nil`.
    func customSchemeURL(fromHandlerURL urlString: String) -> URL? {
        let marker = schemeHandlerPrefix + "?url="
        guard urlString.count > marker.count, urlString.lowercased().hasPrefix(marker.lowercased()) else { return nil }
        let encoded = String(urlString.dropFirst(marker.count))
        guard let decoded = encoded.removingPercentEncoding, let url = URL(string: decoded) else { return nil }
        return url
    }

    /// The value of header `name` (compared case-insensitively) in a BiDi header list.
    private func header(_ name: String, in headers: JSONValue?) -> String? {
        for header in headers?.arrayValue ?? [] where header["name"]?.stringValue?.lowercased() == name {
            if let value = header["value"]?["value"]?.stringValue { return value }
        }
        return nil
    }

    /// `headers` (a BiDi header list) with `fields` added, replacing same-named headers.
    private func merging(_ fields: [String: String], into headers: [JSONValue]) -> [JSONValue] {
        let replaced = Set(fields.keys.map { $0.lowercased() })
        var result = headers.filter { header in
            guard let name = header["name"]?.stringValue?.lowercased() else { return true }
            return !replaced.contains(name)
        }
        for name in fields.keys.sorted() {
            result.append(["name": .string(name), "value": ["type": "string", "value": .string(fields[name]!)]])
        }
        return result
    }
}
