// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Which URLs a browser may be asked to open: `https` anywhere, `http` only to a loopback
/// address. Everything else (`file:`, `javascript:`, `data:`, a custom scheme, a string that
/// could read as a command-line flag) is refused before any process is started.
package enum AuthorizationURLPolicy {
    /// Checks `url` and returns it as the exact string to hand to a browser.
    package static func validate(_ url: URL) throws(WebAuthenticationSessionError) -> String {
        let string = url.absoluteString
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased() else {
            throw .invalidAuthorizationURL("the authorization URL is not an absolute URL")
        }
        guard scheme == "https" || scheme == "http" else {
            throw .invalidAuthorizationURL(
                "only https URLs (and http to a loopback address) are opened, not \(scheme):")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalidAuthorizationURL("the authorization URL has no host")
        }
        // A URL string that starts with its scheme can never be mistaken for a flag; checking the
        // prefix guards against a URL type that would render differently from what was parsed.
        guard string.lowercased().hasPrefix("\(scheme)://"),
            !string.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else {
            throw .invalidAuthorizationURL("the authorization URL is malformed")
        }
        guard scheme == "https" || isLoopback(host: host) else {
            throw .invalidAuthorizationURL(
                "only https URLs (and http to a loopback address) are opened, not http://\(host)")
        }
        return string
    }

    /// `localhost`, `127.0.0.0/8` or `::1`, by ``LoopbackName``'s rules.
    package static func isLoopback(host: String) -> Bool { LoopbackName.isLoopback(host) }
}
