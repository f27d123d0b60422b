// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension URL {
    /// Whether `other` has this URL's origin (RFC 6454): the same scheme, host and port, with
    /// the default ports of `http` and `https` filled in. URLs without a scheme or host have no
    /// origin and match nothing.
    package func hasSameOrigin(as other: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int)? {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            return (scheme, host, url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1))
        }
        guard let left = origin(self), let right = origin(other) else { return false }
        return left == right
    }
}
