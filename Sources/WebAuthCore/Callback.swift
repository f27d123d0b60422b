// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Where the authorization server sends the browser when sign-in ends, and how the session
/// recognises that URL.
///
/// Three kinds exist, matching Apple's `ASWebAuthenticationSession.Callback` plus the loopback
/// redirect of RFC 8252 §7.3 that native apps on Linux usually use:
///
/// ```swift
/// let app = Callback.customScheme("com.example.app")              // com.example.app:/…
/// let web = Callback.https(host: "example.com", path: "/oauth")     // https://example.com/oauth…
/// let local = Callback.loopback(path: "/callback")                  // http://127.0.0.1:{port}/callback
/// ```
///
/// ## Matching rules
///
/// ``matchesURL(_:)`` decides whether a URL the browser reaches *is* the callback:
///
/// - **Custom scheme**: the URL's scheme equals the callback's, compared case-insensitively
///   (RFC 3986 §3.1 schemes are case-insensitive). Host, path and query are not looked at.
/// - **HTTPS**: the scheme is `https`; the host equals the callback's host, compared
///   case-insensitively, with no port other than 443 and no user information; the path equals the
///   callback's path or continues it after a `/` (`/oauth` matches `/oauth` and `/oauth/done`,
///   not `/oauthx`). An empty callback path matches every path on that host.
/// - **Loopback**: the scheme is `http`; the host is the loopback address the session listens on
///   (`127.0.0.1` or `[::1]`); the port is the listening port (any port while it is not known
///   yet, that is for port 0 before the listener is bound); and the path is *exactly* the
///   callback's path. The query is not looked at.
///
/// Paths are compared as written, percent-encoding included: `/%63allback` is not `/callback`.
/// Anything else does not match.
///
/// Two callbacks are equal when they match the same URLs; the redirect URI a callback was made
/// from (``init(redirectURI:)``) is not compared.
public struct Callback: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case customScheme(String)
        case https(host: String, path: String)
        case loopback(host: LoopbackHost, port: Int, path: String)
    }

    let kind: Kind
    /// The redirect URI this callback was made from, for custom-scheme and `https` callbacks.
    let registeredRedirectURI: URL?

    init(kind: Kind, registeredRedirectURI: URL? = nil) {
        self.kind = kind
        self.registeredRedirectURI = registeredRedirectURI
    }

    /// Whether both callbacks match the same URLs.
    public static func == (lhs: Callback, rhs: Callback) -> Bool { lhs.kind == rhs.kind }

    /// Hashes what the callback matches.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// A callback to a custom URL scheme, such as `com.example.app` for `com.example.app:/oauth`.
    ///
    /// The scheme is stored lower-cased; use ``validateCustomScheme(_:)`` to check a scheme
    /// name taken from user input before building a callback with it.
    ///
    /// - Parameter scheme: The scheme name, without `:` or `://`.
    public static func customScheme(_ scheme: String) -> Callback {
        Callback(kind: .customScheme(scheme.lowercased()))
    }

    /// A callback to an `https` URL on `host` whose path starts with `path`.
    ///
    /// - Parameters:
    ///   - host: The host name, such as `example.com`.
    ///   - path: The path the callback starts with, such as `/oauth/callback`.
    public static func https(host: String, path: String) -> Callback {
        Callback(kind: .https(host: host.lowercased(), path: path))
    }

    /// A callback to a loopback HTTP listener the session runs itself (RFC 8252 §7.3).
    ///
    /// The redirect URI is `http://127.0.0.1:{port}{path}` (or `http://[::1]:{port}{path}`).
    /// With `port` 0 the operating system picks a free port when the listener starts; the
    /// session hands the resulting redirect URI to its authorization URL builder.
    ///
    /// - Parameters:
    ///   - path: The exact path of the callback; it must start with `/`. Default `/callback`.
    ///   - port: The port to listen on, or 0 for an ephemeral port (recommended). Default 0.
    ///   - host: The loopback address to listen on. Default ``LoopbackHost/ipv4``.
    public static func loopback(
        path: String = "/callback",
        port: Int = 0,
        host: LoopbackHost = .ipv4
    ) -> Callback {
        Callback(kind: .loopback(host: host, port: port, path: path))
    }

    /// Whether `url` is this callback, by the rules in the type's documentation.
    ///
    /// The name follows Apple's `ASWebAuthenticationSession.Callback.matchesURL(_:)`.
    public func matchesURL(_ url: URL) -> Bool {
        URLComponents(url: url, resolvingAgainstBaseURL: false).map(matches) ?? false
    }

    /// Whether a URL already split into `components` is this callback.
    package func matches(_ components: URLComponents) -> Bool {
        guard let scheme = components.scheme?.lowercased() else { return false }
        switch kind {
        case .customScheme(let expected):
            return scheme == expected
        case .https(let host, let path):
            guard scheme == "https", components.user == nil, components.password == nil,
                components.port == nil || components.port == 443,
                components.host?.lowercased() == host
            else { return false }
            return Self.path(components.percentEncodedPath, continues: path)
        case .loopback(let host, let port, let path):
            guard scheme == "http", components.user == nil, components.password == nil,
                let urlHost = components.host, host.matches(hostComponent: urlHost),
                let urlPort = components.port, port == 0 || urlPort == port
            else { return false }
            return components.percentEncodedPath == path
        }
    }

    /// `candidate` equals `prefix` or continues it after a path-segment boundary.
    static func path(_ candidate: String, continues prefix: String) -> Bool {
        if prefix.isEmpty || prefix == "/" { return true }
        let trimmed = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        return candidate == trimmed || candidate.hasPrefix(trimmed + "/")
    }

    /// The scheme of this callback: the custom scheme, `https`, or `http` for loopback.
    public var scheme: String {
        switch kind {
        case .customScheme(let scheme): scheme
        case .https: "https"
        case .loopback: "http"
        }
    }

    /// Whether this is a loopback callback the session receives with its own HTTP listener.
    public var isLoopback: Bool {
        if case .loopback = kind { return true }
        return false
    }

    /// Whether this is a custom-scheme callback.
    public var isCustomScheme: Bool {
        if case .customScheme = kind { return true }
        return false
    }

    /// Whether this is an `https` callback.
    public var isHTTPS: Bool {
        if case .https = kind { return true }
        return false
    }

    /// For a loopback callback: the path, port and host it listens on; otherwise `nil`.
    public var loopbackEndpoint: (host: LoopbackHost, port: Int, path: String)? {
        if case .loopback(let host, let port, let path) = kind { return (host, port, path) }
        return nil
    }

    /// The same loopback callback, pinned to the port a listener actually bound.
    ///
    /// Matching then checks the port too. Other kinds of callback are returned unchanged.
    public func boundToPort(_ port: Int) -> Callback {
        guard case .loopback(let host, _, let path) = kind else { return self }
        return Callback(kind: .loopback(host: host, port: port, path: path))
    }

    /// The redirect URI to put in an authorization request for this callback: the URI it was
    /// made from (``init(redirectURI:)``), else `com.example.app:` or `https://example.com/oauth`;
    /// for a loopback callback `http://127.0.0.1:{port}/callback`, whose port is known once a
    /// listener has bound it (``boundToPort(_:)``).
    public var redirectURI: URL {
        registeredRedirectURI ?? URL(string: description) ?? URL(string: "\(scheme):")!
    }

    /// A readable form, such as `com.example.app:`, `https://example.com/oauth` or
    /// `http://127.0.0.1:0/callback`.
    public var description: String {
        switch kind {
        case .customScheme(let scheme): "\(scheme):"
        case .https(let host, let path): "https://\(host)\(path)"
        case .loopback(let host, let port, let path): host.origin(port: port) + path
        }
    }
}

/// The loopback address a loopback callback listens on.
///
/// RFC 8252 §8.3 recommends the IP literal over `localhost`, so redirect URIs use the literal.
public struct LoopbackHost: Sendable, Hashable, CustomStringConvertible {
    /// The address as written in a socket call: `127.0.0.1` or `::1`.
    public let address: String

    /// IPv4 loopback, `127.0.0.1`.
    public static let ipv4 = LoopbackHost(address: "127.0.0.1")
    /// IPv6 loopback, `::1`, written `[::1]` in URIs.
    public static let ipv6 = LoopbackHost(address: "::1")

    /// The host as it appears in a URI: `127.0.0.1` or `[::1]`.
    public var uriHost: String { address.contains(":") ? "[\(address)]" : address }

    /// Whether a URL's host component names this address (`URLComponents` gives IPv6 hosts
    /// with or without brackets depending on the platform, so both are accepted).
    func matches(hostComponent: String) -> Bool {
        hostComponent == address || hostComponent == uriHost
    }

    /// The origin of a listener on this address and `port`: `http://127.0.0.1:PORT` or
    /// `http://[::1]:PORT`. Every loopback redirect URI starts with it.
    package func origin(port: Int) -> String { "http://\(uriHost):\(port)" }

    /// The address as written in a socket call.
    public var description: String { address }
}
