// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthCore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Which endpoint URLs the OAuth layer talks to: `https`, or `http` to a loopback address (a
/// provider on this machine, as in tests). Anything else would send codes and secrets in clear.
package enum EndpointPolicy {
    /// Throws ``OAuthError/Code/insecureEndpoint`` unless `url` is `https`, or `http` to a
    /// loopback address; `role` names the URL in the message.
    package static func check(_ url: URL, role: String) throws(OAuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw OAuthError(
                code: .insecureEndpoint, message: "the \(role) \(url.redactedForLogs) is not an absolute URL")
        }
        if scheme == "https" { return }
        if scheme == "http", isLoopback(host) { return }
        throw OAuthError(
            code: .insecureEndpoint,
            message: "the \(role) \(url.redactedForLogs) must use https (http only to a loopback address)")
    }

    /// `localhost`, an address in `127.0.0.0/8`, or `::1` — never a name that merely starts
    /// with `127.`, such as `127.attacker.example`.
    static func isLoopback(_ host: String) -> Bool {
        AuthorizationURLPolicy.isLoopback(host: host)
    }
}

extension Callback {
    /// The callback a configured redirect URI (or OAuth 1.0a callback URL) describes, by
    /// ``Callback/init(redirectURI:)``, failing as a configuration error.
    package static func configured(_ redirectURI: URL) throws(OAuthError) -> Callback {
        do {
            return try Callback(redirectURI: redirectURI)
        } catch {
            throw OAuthError(code: .invalidConfiguration, message: error.message)
        }
    }
}
