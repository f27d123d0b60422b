import Foundation
import WebAuthCore

/// Decides, without I/O, what a complete request head is: the callback, or something to turn
/// away and with which status.
///
/// The checks run in this order:
/// 1. the method is `GET` or `HEAD`, else 405;
/// 2. no body is announced, else 400;
/// 3. exactly one `Host` field naming the listener (`127.0.0.1:PORT` or `[::1]:PORT` as bound,
///    or `localhost:PORT`), else 400: a page on another origin that a DNS-rebinding attack
///    points at 127.0.0.1 sends its own host name;
/// 4. the path, before `?`, is exactly the callback's path, else 404;
/// 5. the redirect base plus the target parses as a URL that matches the callback, else 400.
///
/// A `HEAD` request for the callback path is a ``Route/probe``: it is answered but never taken
/// as the callback, since a browser following a redirect always sends `GET`.
package struct LoopbackRequestRouter: Sendable {
    /// What a request is.
    package enum Route: Sendable, Hashable {
        /// Not the callback: answer with this status. The reason is for debug logs.
        case reject(HTTPStatus, reason: String)
        /// A `HEAD` request for the callback path.
        case probe
        /// A `GET` of the callback path; the URL is the redirect base plus the request target.
        case callback(URL)
    }

    /// The callback, pinned to the bound port.
    let callback: Callback
    /// The loopback address listened on.
    let host: LoopbackHost
    /// The bound port.
    let port: Int
    /// The exact callback path.
    let path: String

    /// A router for `callback`, which must be a loopback callback pinned to its bound port.
    package init?(callback: Callback) {
        guard let endpoint = callback.loopbackEndpoint else { return nil }
        self.callback = callback
        self.host = endpoint.host
        self.port = endpoint.port
        self.path = endpoint.path
    }

    /// `http://127.0.0.1:PORT` or `http://[::1]:PORT`.
    var redirectBase: String { "http://\(host.uriHost):\(port)" }

    /// The redirect URI: the base followed by the callback path.
    var redirectURI: URL? { URL(string: redirectBase + path) }

    /// What `head` is.
    package func route(_ head: HTTPRequestHead) -> Route {
        guard head.method == "GET" || head.method == "HEAD" else {
            return .reject(.methodNotAllowed, reason: "method \(head.method) not allowed")
        }
        guard !head.declaresBody else { return .reject(.badRequest, reason: "request has a body") }
        let hosts = head.values(forName: "Host")
        guard hosts.count == 1, let hostValue = hosts.first else {
            return .reject(.badRequest, reason: hosts.isEmpty ? "no Host field" : "several Host fields")
        }
        guard isAllowedHost(hostValue) else { return .reject(.badRequest, reason: "Host field names another host") }
        guard head.path == path else { return .reject(.notFound, reason: "not the callback path") }
        if head.method == "HEAD" { return .probe }
        guard let url = URL(string: redirectBase + head.target), callback.matchesURL(url) else {
            return .reject(.badRequest, reason: "callback URL does not parse")
        }
        return .callback(url)
    }

    /// Whether a `Host` field value names this listener: the bound address literal or
    /// `localhost`, each with the bound port (which may be left out only when it is 80, as
    /// browsers do for the default port).
    func isAllowedHost(_ value: String) -> Bool {
        let lowered = value.lowercased()
        let names = [host.uriHost, "localhost"]
        if names.contains(where: { lowered == "\($0):\(port)" }) { return true }
        return port == 80 && names.contains(lowered)
    }

    /// The OAuth error of a callback URL (RFC 6749 §4.1.2.1): `error` and `error_description`,
    /// decoded as `application/x-www-form-urlencoded`; `nil` without an `error` parameter.
    package static func authorizationError(in url: URL) -> (error: String, description: String?)? {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else {
            return nil
        }
        let items = FormEncoding.decode(query)
        let error = items.first { $0.0 == "error" }?.1
        let description = items.first { $0.0 == "error_description" }?.1
        return error.map { ($0, description) }
    }
}
