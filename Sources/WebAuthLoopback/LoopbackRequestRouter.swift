// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import HTTPTypes
package import WebAuthCore

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
/// 5. the listener's origin plus the target parses as a URL, else 400.
///
/// Whether that URL is *the* callback (and carries the right `state`) is the session's verdict,
/// asked once by the listener; the router does not match it again.
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
        /// A `GET` of the callback path; the URL is the listener's origin plus the request target.
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
    /// The `Host` values that name this listener (``isAllowedHost(_:)``).
    private let allowedHosts: [[UInt8]]

    /// A router for `callback`, which must be a loopback callback pinned to its bound port.
    package init?(callback: Callback) {
        guard let endpoint = callback.loopbackEndpoint else { return nil }
        self.callback = callback
        self.host = endpoint.host
        self.port = endpoint.port
        self.path = endpoint.path
        self.allowedHosts = Self.allowedHosts(host: endpoint.host, port: endpoint.port)
    }

    /// `Host`: swift-http-types spells it as the request's authority, but an HTTP/1.1 head
    /// carries it as a field, and the router must see every copy of it.
    static let hostField = HTTPField.Name("Host")!

    /// What `head` is.
    package func route(_ head: HTTPRequestHead) -> Route {
        guard head.method == "GET" || head.method == "HEAD" else {
            return .reject(.methodNotAllowed, reason: "method \(head.method) not allowed")
        }
        guard !head.declaresBody else { return .reject(.badRequest, reason: "request has a body") }
        let hosts = head.headers[values: Self.hostField]
        guard hosts.count == 1, let hostValue = hosts.first else {
            return .reject(.badRequest, reason: hosts.isEmpty ? "no Host field" : "several Host fields")
        }
        guard isAllowedHost(hostValue) else { return .reject(.badRequest, reason: "Host field names another host") }
        guard head.path == path else { return .reject(.notFound, reason: "not the callback path") }
        if head.method == "HEAD" { return .probe }
        guard let url = URL(string: host.origin(port: port) + head.target) else {
            return .reject(.badRequest, reason: "callback URL does not parse")
        }
        return .callback(url)
    }

    /// Whether a `Host` field value names this listener: the bound address literal (`127.0.0.1`
    /// or `[::1]`) or `localhost` in any case, each with the bound port, which may be left out
    /// only when it is 80, as browsers do for the default port. Another loopback address is not
    /// this listener, nor is an IPv6 address without brackets or another spelling of one.
    ///
    /// The few values that pass are known once the port is bound (``allowedHosts``), so a
    /// request costs a byte comparison or two, however many strays a flood sends.
    func isAllowedHost(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in allowedHosts.contains { Self.spell(bytes, inAnyCase: $0) } }
    }

    /// Whether `bytes` are `lowercase` with any of its letters in upper case.
    private static func spell(_ bytes: UnsafeBufferPointer<UInt8>, inAnyCase lowercase: [UInt8]) -> Bool {
        bytes.count == lowercase.count
            && zip(bytes, lowercase).allSatisfy { byte, expected in
                byte == expected || ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) && byte | 0x20 == expected)
            }
    }

    /// The `Host` values that name this listener, in lowercase: see ``isAllowedHost(_:)``.
    private static func allowedHosts(host: LoopbackHost, port: Int) -> [[UInt8]] {
        let names = [host.uriHost, "localhost"]
        let spellings = names.map { "\($0):\(port)" } + (port == 80 ? names : [])
        return spellings.map { Array($0.lowercased().utf8) }
    }

    /// The OAuth error of a callback (RFC 6749 §4.1.2.1): `error` and `error_description` from
    /// its query; `nil` without an `error` parameter.
    package static func authorizationError(in parameters: CallbackParameters) -> (
        error: String, description: String?
    )? {
        parameters.query["error"].map { ($0, parameters.query["error_description"]) }
    }
}
