// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Proof Key for Code Exchange (RFC 7636) with the `S256` method — the only one this layer
/// sends: `plain` would hand the verifier to anyone who sees the authorization request.
///
/// ```swift
/// let pkce = PKCE()                       // 256 random bits
/// pkce.challenge                           // BASE64URL(SHA256(verifier)), for the browser
/// pkce.verifier                            // for the token request only
/// ```
public struct PKCE: Sendable, Hashable, CustomStringConvertible {
    /// The code verifier: 43 to 128 characters of `[A-Za-z0-9-._~]`. Secret until the token
    /// request.
    public let verifier: String
    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    public let challenge: String
    /// Always `S256`.
    public var method: String { "S256" }

    /// A new verifier from 32 bytes (256 bits) of the system's secure random generator,
    /// encoded as 43 base64url characters.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(validVerifier: Data(bytes).base64URLEncodedString())
    }

    /// A given verifier, checked against RFC 7636 §4.1.
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` when it is shorter than 43 or longer
    ///   than 128 characters, or has characters outside `[A-Za-z0-9-._~]`.
    public init(verifier: String) throws(OAuthError) {
        guard (43...128).contains(verifier.utf8.count), verifier.utf8.allSatisfy(FormEncoding.isUnreserved) else {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "a PKCE code verifier is 43–128 characters of A–Z a–z 0–9 - . _ ~ (RFC 7636 §4.1)")
        }
        self.init(validVerifier: verifier)
    }

    private init(validVerifier: String) {
        verifier = validVerifier
        challenge = Data(SHA256.hash(data: Data(validVerifier.utf8))).base64URLEncodedString()
    }

    /// `PKCE(S256, challenge …)`; the verifier is never shown.
    public var description: String { "PKCE(S256, challenge \(challenge))" }
}

/// Random values for `state` and `nonce`.
enum RandomToken {
    /// 32 random bytes (256 bits) as 43 base64url characters.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64URLEncodedString()
    }
}
