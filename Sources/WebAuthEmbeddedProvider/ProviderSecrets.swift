// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import WebAuthCore

/// The provider's handling of secrets: fresh random values, digests to store instead of the
/// values themselves, and comparisons whose time does not depend on where two values differ.
enum ProviderSecrets {
    /// `byteCount` bytes from the system's cryptographically secure generator, base64url
    /// without padding. 32 bytes (256 bits, 43 characters) by default.
    static func randomToken(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncodedString()
    }

    /// A user code of RFC 8628 §6.1's recommended form: eight characters from a 20-letter
    /// alphabet with no vowels (so no words), shown as two groups of four, such as `WDJB-MJHT`.
    static func userCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in userCodeAlphabet.randomElement(using: &generator) ?? "B" }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }

    /// The letters of user codes: consonants only, none easily misread.
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")

    /// A user code as typed, in the canonical form: upper case, separators and spaces
    /// removed, then the dash put back in the middle. `nil` when it cannot be a user code.
    static func normalizedUserCode(_ typed: String) -> String? {
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == 8, letters.allSatisfy({ userCodeAlphabet.contains($0) }) else { return nil }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    /// The SHA-256 digest of `secret`, hex: what the provider keeps instead of a token or code,
    /// so its tables never hold a usable credential and a lookup reveals nothing by its timing.
    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether `a` and `b` are equal, in time that depends only on their digests' length: both
    /// are hashed first, so neither the position of a difference nor a difference in length
    /// shows in the timing.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(SHA256.hash(data: Data(a.utf8)))
        let right = Array(SHA256.hash(data: Data(b.utf8)))
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// The PKCE `S256` challenge for `verifier` (RFC 7636 §4.2):
    /// `BASE64URL(SHA256(ASCII(verifier)))`.
    static func s256Challenge(for verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncodedString()
    }

    /// Whether `value` is a syntactically valid PKCE verifier (RFC 7636 §4.1): 43 to 128
    /// characters from `A-Z a-z 0-9 - . _ ~`.
    static func isValidVerifier(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy(isUnreserved)
    }

    /// Whether `value` can be an `S256` challenge: 43 base64url characters (a SHA-256 digest).
    static func isValidS256Challenge(_ value: String) -> Bool {
        value.utf8.count == 43
            && value.utf8.allSatisfy { isUnreserved($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "~") }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
