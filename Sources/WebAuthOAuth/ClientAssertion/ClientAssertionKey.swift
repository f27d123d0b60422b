// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import CryptoExtras
public import Foundation
import WebAuthCore
import WebAuthPlatform

/// The private key a client signs its `private_key_jwt` assertions with (RFC 7523 §2.2,
/// OpenID Connect Core §9): a P-256 key (ES256) or an RSA key of at least 2048 bits (RS256, or
/// PS256).
///
/// Read one from a PEM or JWK file that only you can read (``load(from:algorithm:keyID:)``), or
/// from the text itself:
///
/// ```swift
/// let key = try ClientAssertionKey.load(from: URL(fileURLWithPath: "/home/me/.config/cli-key.pem"))
/// var configuration = ClientConfiguration(issuer: issuer, clientID: "my-cli", clientKey: key)
/// configuration.clientAuthentication = .privateKeyJWT
/// ```
///
/// The provider must know the public half: register ``publicJWK`` (or the PEM public key) with
/// the client. Printing a key shows its algorithm, key ID and thumbprint, never the key.
public struct ClientAssertionKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A JWS algorithm a client assertion can be signed with.
    public struct Algorithm: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The JWS `alg` name.
        public let rawValue: String

        /// Creates an algorithm from its JWS `alg` name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// ECDSA with P-256 and SHA-256.
        public static let es256 = Algorithm(rawValue: "ES256")
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        public static let rs256 = Algorithm(rawValue: "RS256")
        /// RSASSA-PSS with SHA-256 (and MGF1 with SHA-256).
        public static let ps256 = Algorithm(rawValue: "PS256")
        /// HMAC with SHA-256: `client_secret_jwt`, keyed with the client secret (never a
        /// ``ClientAssertionKey``).
        public static let hs256 = Algorithm(rawValue: "HS256")

        /// The JWS `alg` name.
        public var description: String { rawValue }
    }

    enum Material: Sendable {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    let material: Material
    /// The algorithm the assertions are signed with.
    public let algorithm: Algorithm
    /// The key ID put in the assertion's `kid` header, if any: the provider picks the key
    /// registered under it.
    public let keyID: String?
    /// The public key as a JWK (`kty`, `crv`/`x`/`y` or `n`/`e`, with `kid`, `alg` and
    /// `use` `sig`): what to register with the provider.
    public let publicJWK: [String: String]
    /// The RFC 7638 SHA-256 thumbprint of the public key, base64url.
    public let thumbprint: String

    init(material: Material, algorithm requested: Algorithm?, keyID: String?) throws(OAuthError) {
        var jwk: [String: String]
        let canonical: String
        let algorithm: Algorithm
        switch material {
        case .p256(let key):
            algorithm = requested ?? .es256
            guard algorithm == .es256 else {
                throw Self.unusable("a P-256 key signs with ES256, not \(algorithm.rawValue.safeForDisplay)")
            }
            let point = key.publicKey.x963Representation
            let x = Data(point.dropFirst().prefix(32)).base64URLEncodedString()
            let y = Data(point.suffix(32)).base64URLEncodedString()
            jwk = ["kty": "EC", "crv": "P-256", "x": x, "y": y]
            canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        case .rsa(let key):
            algorithm = requested ?? .rs256
            guard algorithm == .rs256 || algorithm == .ps256 else {
                throw Self.unusable("an RSA key signs with RS256 or PS256, not \(algorithm.rawValue.safeForDisplay)")
            }
            guard let primitives = try? key.publicKey.getKeyPrimitives() else {
                throw Self.unusable("the RSA key's public half cannot be read")
            }
            let n = Self.unsigned(primitives.modulus).base64URLEncodedString()
            let e = Self.unsigned(primitives.publicExponent).base64URLEncodedString()
            jwk = ["kty": "RSA", "n": n, "e": e]
            canonical = #"{"e":"\#(e)","kty":"RSA","n":"\#(n)"}"#
        }
        jwk["alg"] = algorithm.rawValue
        jwk["use"] = "sig"
        if let keyID { jwk["kid"] = keyID }
        self.material = material
        self.algorithm = algorithm
        self.keyID = keyID
        self.publicJWK = jwk
        self.thumbprint = Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
    }

    /// A key from PEM text: a PKCS #8 (`PRIVATE KEY`), SEC 1 (`EC PRIVATE KEY`) or PKCS #1
    /// (`RSA PRIVATE KEY`) private key, unencrypted.
    ///
    /// - Parameters:
    ///   - pem: The key's PEM text.
    ///   - algorithm: ES256 for a P-256 key; RS256 (the default) or PS256 for an RSA key.
    ///   - keyID: The `kid` to name in the assertions' header, if the provider wants one.
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` for anything that is not such a key
    ///   (another curve, a public key, an RSA key under 2048 bits, an encrypted key), or an
    ///   algorithm the key cannot sign with. The message never quotes the key.
    public init(pem: String, algorithm: Algorithm? = nil, keyID: String? = nil) throws(OAuthError) {
        if pem.contains("ENCRYPTED") {
            throw Self.unusable("the PEM key is encrypted; give an unencrypted key in a 0600 file")
        }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            try self.init(material: .p256(key), algorithm: algorithm, keyID: keyID)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            try self.init(material: .rsa(key), algorithm: algorithm, keyID: keyID)
        } else {
            throw Self.unusable(
                "the PEM text is not a P-256 or RSA (2048 bits or more) private key; give an ES256, RS256 or PS256 key")
        }
    }

    /// A key from a private JWK (RFC 7517, RFC 7518 §6): `EC` with `crv` `P-256` and `d`, or
    /// `RSA` with `n`, `e`, `d`, `p` and `q`. Its `kid` and `alg` are used unless `algorithm` or
    /// `keyID` is given.
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` as ``init(pem:algorithm:keyID:)`` does.
    public init(jwk: Data, algorithm: Algorithm? = nil, keyID: String? = nil) throws(OAuthError) {
        guard let object = try? JSONSerialization.jsonObject(with: jwk) as? [String: Any] else {
            throw Self.unusable("the key is not a JSON Web Key")
        }
        // A key set with one key is taken as that key.
        if let keys = object["keys"] as? [[String: Any]] {
            guard keys.count == 1, let only = try? JSONSerialization.data(withJSONObject: keys[0]) else {
                throw Self.unusable("the key set must hold exactly one private key")
            }
            try self.init(jwk: only, algorithm: algorithm, keyID: keyID)
            return
        }
        func bytes(_ name: String) -> Data? { (object[name] as? String).flatMap { Data(base64URLEncoded: $0) } }
        let named = (object["alg"] as? String).map(Algorithm.init(rawValue:))
        let kid = keyID ?? (object["kid"] as? String)
        switch object["kty"] as? String {
        case "EC":
            guard object["crv"] as? String == "P-256" else {
                throw Self.unusable("the EC key is not on P-256; give an ES256 (P-256) key")
            }
            guard let d = bytes("d") else { throw Self.unusable("the JWK has no private part (d)") }
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: d) else {
                throw Self.unusable("the JWK is not a valid P-256 private key")
            }
            try self.init(material: .p256(key), algorithm: algorithm ?? named, keyID: kid)
        case "RSA":
            guard let n = bytes("n"), let e = bytes("e"), let d = bytes("d") else {
                throw Self.unusable("the JWK has no private part (d)")
            }
            guard let p = bytes("p"), let q = bytes("q") else {
                throw Self.unusable("the RSA JWK needs its primes (p and q)")
            }
            guard let key = try? _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q),
                key.keySizeInBits >= 2048
            else {
                throw Self.unusable("the JWK is not a valid RSA private key of 2048 bits or more")
            }
            try self.init(material: .rsa(key), algorithm: algorithm ?? named, keyID: kid)
        default:
            throw Self.unusable("the JWK's kty is neither EC nor RSA")
        }
    }

    /// Reads a key from a PEM or JWK file that must be private: owned by this user, and
    /// neither group nor others may read or write it (mode 0600 or stricter), as for a
    /// `--config` file holding a client secret.
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` naming the file and what is wrong —
    ///   for a file others can reach, the `chmod` that fixes it. Never quotes the key.
    public static func load(
        from file: URL, algorithm: Algorithm? = nil, keyID: String? = nil
    ) throws(OAuthError) -> ClientAssertionKey {
        let path = file.path
        let shown = UntrustedText(path).displayed()
        guard let descriptor = try? Descriptor.open(path, .read) else {
            throw OAuthError(code: .invalidConfiguration, message: "cannot read the client key \(shown)")
        }
        defer { Descriptor.close(descriptor) }
        guard let info = try? Descriptor.status(descriptor),
            let bytes = try? Descriptor.readAll(descriptor, limit: 1 << 20)
        else {
            throw OAuthError(code: .invalidConfiguration, message: "cannot read the client key \(shown)")
        }
        try ClientConfiguration.checkPrivate(path: path, info: info, holding: "a private key", copyName: "client-key")
        let data = Data(bytes)
        do throws(OAuthError) {
            if data.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) == UInt8(ascii: "{") {
                return try ClientAssertionKey(jwk: data, algorithm: algorithm, keyID: keyID)
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw unusable("the file is neither PEM nor JSON")
            }
            return try ClientAssertionKey(pem: text, algorithm: algorithm, keyID: keyID)
        } catch {
            throw OAuthError(code: .invalidConfiguration, message: "client key \(shown): \(error.message)")
        }
    }

    /// Signs `data` with ``algorithm``: JWS's form of the signature.
    func sign(_ data: Data) throws(OAuthError) -> Data {
        do {
            switch material {
            case .p256(let key):
                return try key.signature(for: data).rawRepresentation
            case .rsa(let key):
                let padding: _RSA.Signing.Padding = algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
                return try key.signature(for: SHA256.hash(data: data), padding: padding).rawRepresentation
            }
        } catch {
            throw OAuthError(code: .invalidConfiguration, message: "the client key could not sign the assertion")
        }
    }

    /// The bytes of a big-endian unsigned number without leading zero bytes (JWA §2).
    private static func unsigned(_ data: Data) -> Data {
        let trimmed = data.drop(while: { $0 == 0 })
        return trimmed.isEmpty ? Data([0]) : Data(trimmed)
    }

    static func unusable(_ message: String) -> OAuthError {
        OAuthError(code: .invalidConfiguration, message: message)
    }

    // MARK: - Equality and printing

    /// Two keys are equal when they are the same key pair used with the same algorithm and ID.
    public static func == (lhs: ClientAssertionKey, rhs: ClientAssertionKey) -> Bool {
        lhs.thumbprint == rhs.thumbprint && lhs.algorithm == rhs.algorithm && lhs.keyID == rhs.keyID
    }

    /// Hashes the thumbprint, the algorithm and the key ID.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(thumbprint)
        hasher.combine(algorithm)
        hasher.combine(keyID)
    }

    /// `ClientAssertionKey(ES256, kid …, thumbprint …)`: never the private key.
    public var description: String {
        "ClientAssertionKey(\(algorithm)\(keyID.map { ", kid \(UntrustedText($0).displayed())" } ?? ""), thumbprint \(thumbprint))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}

extension ClientAssertionKey: CustomReflectable {
    /// A mirror with the public side only, so `dump` never shows the private key.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["algorithm": algorithm, "keyID": keyID as Any, "thumbprint": thumbprint],
            displayStyle: .struct)
    }
}
