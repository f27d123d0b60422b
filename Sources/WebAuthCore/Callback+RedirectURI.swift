// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension Callback {
    /// The callback a registered redirect URI describes — the one way to turn a redirect URI
    /// (from a client configuration, a command line or Apple's `callbackURLScheme`) into what a
    /// session waits for.
    ///
    /// - `http://127.0.0.1/callback`, `http://[::1]:8765/cb`, `http://localhost/cb`: a loopback
    ///   callback with that path (`/` when empty) and port (0, an ephemeral port, when none);
    ///   the host must be loopback to the letter (RFC 8252 §7.3, §8.3).
    /// - `https://example.com/oauth`: an `https` callback for that host and path.
    /// - `com.example.app:/oauth` or `com.example.app://anything`: a custom-scheme callback; the
    ///   scheme is checked with ``validateCustomScheme(_:)``.
    ///
    /// Custom-scheme and `https` callbacks keep the URI as given: it is their ``redirectURI``,
    /// the `redirect_uri` to send, exactly as registered with the provider.
    ///
    /// ```swift
    /// let callback = try Callback(redirectURI: URL(string: "com.example.app:/oauth")!)
    /// callback.redirectURI  // com.example.app:/oauth
    /// ```
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/invalidCallback`` naming what is wrong: no
    ///   scheme, a query or fragment, an `http` host that is not loopback, an `https` URI with no
    ///   host, an invalid custom scheme.
    public init(redirectURI: URL) throws(WebAuthenticationSessionError) {
        let text = redirectURI.absoluteString
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw .invalidCallback("the redirect URI '\(redirectURI.redactedForLogs)' has no scheme")
        }
        let components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        guard components?.query == nil, components?.fragment == nil else {
            throw .invalidCallback("the redirect URI must have no query or fragment")
        }
        switch text[..<colon].lowercased() {
        case "http":
            guard let host = components?.host, AuthorizationURLPolicy.isLoopback(host: host) else {
                throw .invalidCallback("an http redirect URI must be loopback (http://127.0.0.1/…), RFC 8252 §7.3")
            }
            let path = components?.percentEncodedPath ?? ""
            self = .loopback(
                path: path.isEmpty ? "/" : path, port: components?.port ?? 0,
                host: host.contains(":") ? .ipv6 : .ipv4)
        case "https":
            guard let host = components?.host, !host.isEmpty else {
                throw .invalidCallback("the https redirect URI has no host")
            }
            let https = Callback.https(host: host, path: components?.percentEncodedPath ?? "")
            self.init(kind: https.kind, registeredRedirectURI: redirectURI)
        default:
            let scheme = try Callback.validateCustomScheme(String(text[..<colon]))
            self.init(kind: .customScheme(scheme), registeredRedirectURI: redirectURI)
        }
    }
}
