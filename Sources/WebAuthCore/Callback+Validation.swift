// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Callback {
    /// Checks a custom scheme name and returns it lower-cased.
    ///
    /// A valid name follows RFC 3986 §3.1 (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`), is at
    /// most 128 characters, and is not one of the schemes a browser handles itself (`http`,
    /// `https`, `file`, `data`, `javascript`, `about`, `blob`, `ftp`, `ws`, `wss`), which can
    /// never come back to an app.
    ///
    /// RFC 8252 §7.1 recommends a reverse-DNS name the app controls, such as
    /// `com.example.app`; ``isReverseDNSScheme(_:)`` tells whether a name looks like one.
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/invalidCallback`` naming what is wrong.
    public static func validateCustomScheme(_ name: String) throws(WebAuthenticationSessionError) -> String {
        let reserved: Set<String> = [
            "http", "https", "file", "data", "javascript", "about", "blob", "ftp", "ws", "wss",
        ]
        let lowered = name.lowercased()
        guard let first = name.unicodeScalars.first, first.isASCIILetter else {
            throw .invalidCallback("a URL scheme must start with a letter (RFC 3986 §3.1)")
        }
        guard name.count <= 128 else {
            throw .invalidCallback("a URL scheme may be at most 128 characters long")
        }
        let allowedPunctuation: Set<Unicode.Scalar> = ["+", "-", "."]
        for scalar in name.unicodeScalars
        where !(scalar.isASCIILetter || scalar.isASCIIDigit || allowedPunctuation.contains(scalar)) {
            throw .invalidCallback(
                "a URL scheme may hold only letters, digits, '+', '-' and '.' (RFC 3986 §3.1)")
        }
        guard !reserved.contains(lowered) else {
            throw .invalidCallback("'\(lowered)' is handled by the browser itself and cannot be a callback scheme")
        }
        return lowered
    }

    /// Whether a scheme name looks like reverse DNS (`com.example.app`), as RFC 8252 §7.1
    /// recommends: at least two dot-separated labels, none empty.
    public static func isReverseDNSScheme(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
