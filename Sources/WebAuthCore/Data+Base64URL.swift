// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

// One base64url for the package: the OAuth client (PKCE challenges, JWTs) and the embedded
// provider (its keys, its PKCE check) both use it. Each side's tests check it against RFC 7636
// Appendix B, and the client is also run against an independent provider, so a mistake here
// cannot hide behind the two sides agreeing with each other. The alphabets are mapped byte by
// byte: Foundation's `replacingOccurrences` bridges through `NSString`, which cost more than
// the encoding itself on a sign-in's path.
extension Data {
    /// Base64url without padding (RFC 4648 §5, RFC 7515 Appendix C).
    package func base64URLEncodedString() -> String {
        let base64 = base64EncodedString().utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes base64url with or without padding.
    package init?(base64URLEncoded string: some StringProtocol) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(string.utf8.count + 3)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            default: bytes.append(byte)
            }
        }
        bytes += repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4)
        self.init(base64Encoded: Data(bytes))
    }
}
