// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The key pair that binds DPoP tokens (RFC 9449) to this client: an ES256 (P-256) key made
/// with swift-crypto.
///
/// A token set signed in with DPoP carries its key (``TokenSet/dpopKey``), so every refresh,
/// revocation, UserInfo and resource request can prove possession of it. A
/// ``Storage/persistent`` key is stored with the tokens — in the same 0600 file or keyring
/// entry — and nowhere else; an ``Storage/ephemeral`` key lives in memory only, so tokens read
/// back from storage cannot be used with it. Printing a key shows its thumbprint, never the
/// private key.
public struct DPoPKey: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where a DPoP key may live.
    public enum Storage: String, Sendable, Hashable, Codable, CaseIterable {
        /// In memory only: tokens stored without it cannot be used after the program ends.
        case ephemeral
        /// Stored with the tokens, in the same file or keyring entry.
        case persistent
    }

    /// The signing key.
    let privateKey: P256.Signing.PrivateKey
    /// Where the key may live.
    public let storage: Storage
    /// The public key's `x` coordinate, base64url.
    let x: String
    /// The public key's `y` coordinate, base64url.
    let y: String
    /// The JWK SHA-256 thumbprint (RFC 7638) of the public key, base64url: what a DPoP-bound
    /// token's `cnf.jkt` and the `dpop_jkt` authorization parameter name.
    public let thumbprint: String

    /// Makes a new key pair.
    public init(storage: Storage = .persistent) {
        self.init(privateKey: P256.Signing.PrivateKey(), storage: storage)
    }

    init(privateKey: P256.Signing.PrivateKey, storage: Storage) {
        self.privateKey = privateKey
        self.storage = storage
        // x963: 0x04 || x (32 bytes) || y (32 bytes).
        let point = privateKey.publicKey.x963Representation
        x = Data(point.dropFirst().prefix(32)).base64URLEncodedString()
        y = Data(point.suffix(32)).base64URLEncodedString()
        thumbprint = Self.thumbprint(x: x, y: y)
    }

    /// The RFC 7638 thumbprint of the P-256 public key (`x`, `y`): SHA-256 over the required
    /// members only, in lexicographic order, with no white space (§3.2), base64url.
    static func thumbprint(x: String, y: String) -> String {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
    }

    /// The public key as the JWK a proof's header carries.
    var publicJWK: [String: String] { ["kty": "EC", "crv": "P-256", "x": x, "y": y] }

    /// Signs `data` with ES256, as JWS wants it: `r || s`, 64 bytes.
    func sign(_ data: Data) -> Data {
        // Signing with a valid P-256 key cannot fail.
        guard let signature = try? privateKey.signature(for: data) else {
            preconditionFailure("a P-256 signature over in-memory data")
        }
        return signature.rawRepresentation
    }

    // MARK: - Codable: the private JWK (RFC 7517 §9.2, RFC 7518 §6.2)

    private enum CodingKeys: String, CodingKey {
        case kty, crv, x, y, d
    }

    /// Reads a private P-256 JWK. A key read back is ``Storage/persistent``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .kty) == "EC",
            try container.decode(String.self, forKey: .crv) == "P-256",
            let d = Data(base64URLEncoded: try container.decode(String.self, forKey: .d)),
            let key = try? P256.Signing.PrivateKey(rawRepresentation: d)
        else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a private P-256 JWK"))
        }
        self.init(privateKey: key, storage: .persistent)
    }

    /// Writes the private JWK. Only ``TokenSet`` encodes a key, and only a persistent one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("EC", forKey: .kty)
        try container.encode("P-256", forKey: .crv)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(privateKey.rawRepresentation.base64URLEncodedString(), forKey: .d)
    }

    // MARK: - Equality and printing

    /// Two keys are equal when they are the same key pair kept the same way.
    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool {
        lhs.thumbprint == rhs.thumbprint && lhs.storage == rhs.storage
    }

    /// Hashes the thumbprint and the storage.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(thumbprint)
        hasher.combine(storage)
    }

    /// `DPoPKey(ES256, <storage>, thumbprint …)`: never the private key.
    public var description: String { "DPoPKey(ES256, \(storage), thumbprint \(thumbprint))" }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
