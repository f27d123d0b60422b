// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation

// One base64url for the package: the OAuth client (PKCE challenges, JWTs) and the embedded
// provider (its keys, its PKCE check) both use it. Each side's tests check it against RFC 7636
// Appendix B, and the client is also run against an independent provider, so a mistake here
// cannot hide behind the two sides agreeing with each other.
extension Data {
    /// Base64url without padding (RFC 4648 §5, RFC 7515 Appendix C).
    package func base64URLEncodedString() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding.
    package init?(base64URLEncoded string: some StringProtocol) {
        var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
