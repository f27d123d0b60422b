// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore

/// Decides, for each WebDriver BiDi event Firefox sends while the authorization page is open,
/// what Firefox should do with a blocked request and what the session should hear. Pure: no I/O,
/// so tests drive it with recorded events.
///
/// How each kind of callback is caught before it leaves the browser:
/// - **A redirect** (`3xx` with a `Location` that matches the callback, custom scheme or https) is
///   reported as soon as its response starts. The response itself is released, so that Firefox
///   stores the cookies it sets (failing it would lose them, and with them the person's sign-in
///   in a shared profile); the request that would follow it is stopped by the next two rules.
/// - **An https callback request** (after a redirect, or from a link, a form, script) is failed in
///   the `beforeRequestSent` phase, which Firefox reaches before it resolves the host or connects.
/// - **A custom-scheme URL** (after a redirect, or opened by the page: a link,
///   `location.href = …`, a meta refresh) never becomes a network request, and Firefox's BiDi
///   events do not carry its URL. The profile therefore hands the session's scheme to a web
///   handler whose address is `https://webauth-callback.invalid/<random token>?url=<the URL>`;
///   Firefox navigates the tab there instead of starting an external program (no `xdg-open`),
///   and that request is failed in `beforeRequestSent` and decoded.
///
/// Only top-level navigations of the session's own tab complete the session. Matching requests
/// elsewhere (frames, other tabs, `fetch`) are failed too, so nothing reaches the callback host,
/// but they are not reported. Loopback callbacks are left to the session's loopback listener.
struct FirefoxNavigationInterceptor: Sendable {
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
    private var lastReported: URL?

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
        let navigates = isNavigation(params)
        let fail = Command(method: "network.failRequest", params: ["request": .string(request)])

        if intercepts, let handled = customSchemeURL(fromHandlerURL: urlString) {
            // Only Firefox's handler knows the token: this is a custom-scheme navigation.
            let reported = isOurTab && callback.matchesURL(handled)
            return Reaction(command: fail, event: reported ? report(handled) : nil)
        }
        if intercepts, urlString.lowercased().hasPrefix("https://\(FirefoxProfileSetup.schemeHandlerHost)/") {
            return Reaction(command: fail)  // a forged or stale handler address: never let it out
        }
        if intercepts, let url = URL(string: urlString), callback.matchesURL(url) {
            return Reaction(command: fail, event: isOurTab && navigates ? report(url) : nil)
        }
        var release: JSONValue = ["request": .string(request)]
        if isOurTab && navigates && !headersSent {
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

    private mutating func responseStarted(_ params: JSONValue) -> Reaction {
        guard params["isBlocked"]?.boolValue == true, let request = params["request"]?["request"]?.stringValue
        else { return Reaction() }
        // Always released: see the type's documentation (cookies).
        var reaction = Reaction(
            command: Command(method: "network.continueResponse", params: ["request": .string(request)]))
        guard intercepts, params["context"]?.stringValue == context, isNavigation(params),
            let status = params["response"]?["status"]?.intValue, (300..<400).contains(status),
            let location = header("location", in: params["response"]?["headers"]),
            let target = URL(
                string: location, relativeTo: params["request"]?["url"]?.stringValue.flatMap(URL.init(string:)))?
                .absoluteURL,
            callback.matchesURL(target)
        else { return reaction }
        reaction.event = report(target)
        return reaction
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
            reaction.event = report(url)
        }
        return reaction
    }

    /// The event for a callback URL, or `nil` when the same URL was just reported: a redirect is
    /// reported when its response starts, and again when the request that follows is stopped.
    private mutating func report(_ url: URL) -> BrowserEvent? {
        guard url != lastReported else { return nil }
        lastReported = url
        return .callback(url)
    }

    /// Whether a network event belongs to a navigation (not a subresource or `fetch`).
    private func isNavigation(_ params: JSONValue) -> Bool {
        params["navigation"].map { !$0.isNull } ?? false
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
