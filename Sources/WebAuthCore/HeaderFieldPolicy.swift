// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which ``WebAuthSession/additionalHeaderFields`` may be sent with the first request.
///
/// Refused: names the browser sets itself — the Fetch standard's forbidden request headers
/// (`Cookie`, `Host`, `Origin`, `Referer`, `Content-Length`, `Connection`, `Transfer-Encoding`, …)
/// and every `Proxy-` or `Sec-` name — as well as names that are not HTTP tokens and values with
/// control characters (which could split a request).
package enum HeaderFieldPolicy {
    static let forbidden: Set<String> = [
        "accept-charset", "accept-encoding", "access-control-request-headers", "access-control-request-method",
        "connection", "content-length", "cookie", "cookie2", "date", "dnt", "expect", "host", "keep-alive",
        "origin", "referer", "set-cookie", "te", "trailer", "transfer-encoding", "upgrade", "via",
    ]

    /// The first field that may not be sent, as an error naming it; `nil` when all may.
    package static func firstViolation(in fields: [String: String]) -> WebAuthenticationSessionError? {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            let lowered = name.lowercased()
            guard !name.isEmpty, name.allSatisfy(tokenCharacters.contains) else {
                return .invalidHeaderField("'\(name)' is not a valid header field name")
            }
            if forbidden.contains(lowered) || lowered.hasPrefix("proxy-") || lowered.hasPrefix("sec-") {
                return .invalidHeaderField("the browser sets \(name) itself; it cannot be an additional header field")
            }
            if value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                return .invalidHeaderField("the value of \(name) contains control characters")
            }
        }
        return nil
    }
}
