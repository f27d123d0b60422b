import Crypto
import CryptoExtras
import Foundation
import JWTKit

extension HostileProvider {
    /// A signing key the provider holds: its key material and the `kid` it goes by.
    ///
    /// The key pairs are made once per process (RSA generation is slow) and shared by every
    /// provider. ``rsa`` and ``ec`` are in the JWKS by default; ``rsaNext`` and ``ecNext`` are
    /// for rotation; the impostors claim the `kid` of a served key but are never served, so a
    /// token they sign has a bad signature.
    package struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The key pairs.
        package enum Material: Sendable, Hashable {
            /// The first RSA 2048 key pair.
            case rsa1
            /// The second RSA 2048 key pair.
            case rsa2
            /// The third RSA 2048 key pair.
            case rsa3
            /// The first P-256 key pair.
            case ec1
            /// The second P-256 key pair.
            case ec2
            /// The third P-256 key pair.
            case ec3

            /// Whether this is an RSA key (else P-256).
            package var isRSA: Bool { [.rsa1, .rsa2, .rsa3].contains(self) }
        }

        /// The `kid`, in the JWKS and by default in token headers; `nil` for a key without one.
        package var id: String?
        /// The key pair.
        package var material: Material

        /// A key.
        package init(id: String?, material: Material) {
            self.id = id
            self.material = material
        }

        /// RSA key `rsa-1`, served by default; signs `RS256` tokens by default.
        package static let rsa = Key(id: "rsa-1", material: .rsa1)
        /// RSA key `rsa-2`: not served until a script rotates it in.
        package static let rsaNext = Key(id: "rsa-2", material: .rsa2)
        /// A different RSA key that claims `kid` `rsa-1`: never served.
        package static let rsaImpostor = Key(id: "rsa-1", material: .rsa3)
        /// P-256 key `ec-1`, served by default; signs `ES256` tokens.
        package static let ec = Key(id: "ec-1", material: .ec1)
        /// P-256 key `ec-2`: not served until a script rotates it in.
        package static let ecNext = Key(id: "ec-2", material: .ec2)
        /// A different P-256 key that claims `kid` `ec-1`: never served.
        package static let ecImpostor = Key(id: "ec-1", material: .ec3)

        /// The same key pair under another `kid` (or none).
        package func withID(_ id: String?) -> Key { Key(id: id, material: material) }

        /// The public key as a JWK (`kty`, `kid` when set, `use`, `alg`, and `n`/`e` or
        /// `crv`/`x`/`y`).
        package var publicJWK: JSONValue {
            var members: [String: JSONValue] = ["use": "sig"]
            if let id { members["kid"] = .string(id) }
            switch material {
            case .rsa1, .rsa2, .rsa3:
                // Reading the numbers of a valid key cannot fail.
                let numbers = try! KeyStore.rsa(material).publicKey.getKeyPrimitives()
                members["kty"] = "RSA"
                members["alg"] = "RS256"
                members["n"] = .string(numbers.modulus.base64URLEncoded)
                members["e"] = .string(numbers.publicExponent.base64URLEncoded)
            case .ec1, .ec2, .ec3:
                let coordinates = KeyStore.ec(material).publicKey.parameters
                members["kty"] = "EC"
                members["alg"] = "ES256"
                members["crv"] = "P-256"
                members["x"] = .string(coordinates?.x ?? "")
                members["y"] = .string(coordinates?.y ?? "")
            }
            return .object(members)
        }

        /// The public key in PEM, for instance as the "secret" of an HMAC key-confusion attack.
        package var publicKeyPEM: String {
            material.isRSA
                ? KeyStore.rsa(material).publicKey.pemRepresentation : KeyStore.ec(material).publicKey.pemRepresentation
        }

        /// `kid` and material, such as `rsa-1 (rsa1)`.
        package var description: String { "\(id ?? "no kid") (\(material))" }
    }

    /// How an ID token is signed, and what its header says.
    ///
    /// ```swift
    /// $0.idToken.signing = .es256
    /// $0.idToken.signing = .hs256(secret: "shared")
    /// $0.idToken.signing = .none                        // {"alg":"none"}, empty signature
    /// $0.idToken.signing = .rs256WithImpostorKey        // kid rsa-1, another key: bad signature
    /// $0.idToken.signing = .rs256.withKeyID(nil)        // no kid in the header
    /// ```
    package struct Signing: Sendable, Hashable, CustomStringConvertible {
        /// What makes the signature.
        package enum Method: Sendable, Hashable {
            /// One of the provider's key pairs.
            case key(Key)
            /// HMAC with this secret (UTF-8 bytes).
            case hmac(secret: String)
            /// No key: the signature part is exactly this text (empty for a proper `alg: none`).
            case unsigned(signature: String)
        }

        /// What `kid` the header carries.
        package enum KeyID: Sendable, Hashable {
            /// The signing key's ``Key/id`` (none when it has none, or for HMAC and unsigned).
            case fromKey
            /// No `kid`.
            case omitted
            /// This `kid`, whatever key signs.
            case value(String)
        }

        /// What makes the signature.
        package var method: Method
        /// The JWS algorithm: the header's `alg`, and for keys and HMAC the algorithm used
        /// (`RS256`/`RS384`/`RS512`, `PS256`/`PS384`/`PS512`, `ES256`, `HS256`/`HS384`/`HS512`).
        package var algorithm: String
        /// The header's `kid`.
        package var keyID: KeyID
        /// The header's `typ`; `nil` leaves jwt-kit's `JWT` (unsigned tokens then have none).
        package var type: String?
        /// More header members.
        package var extraHeader: [String: JSONValue]

        /// A signing.
        package init(
            method: Method, algorithm: String, keyID: KeyID = .fromKey, type: String? = nil,
            extraHeader: [String: JSONValue] = [:]
        ) {
            self.method = method
            self.algorithm = algorithm
            self.keyID = keyID
            self.type = type
            self.extraHeader = extraHeader
        }

        /// `RS256` with ``Key/rsa`` (`kid` `rsa-1`): the default.
        package static let rs256 = Signing(method: .key(.rsa), algorithm: "RS256")
        /// `ES256` with ``Key/ec`` (`kid` `ec-1`).
        package static let es256 = Signing(method: .key(.ec), algorithm: "ES256")
        /// `PS256` with ``Key/rsa``: a valid signature by a served key, in an algorithm a client
        /// expecting `RS256` does not expect.
        package static let ps256 = Signing(method: .key(.rsa), algorithm: "PS256")
        /// `RS384` with ``Key/rsa``.
        package static let rs384 = Signing(method: .key(.rsa), algorithm: "RS384")
        /// `alg: none`: header `{"alg":"none"}`, the payload, and an empty signature.
        package static let none = Signing(method: .unsigned(signature: ""), algorithm: "none")
        /// `RS256` by ``Key/rsaImpostor``: the header claims `kid` `rsa-1`, the signature
        /// does not verify with the served `rsa-1`.
        package static let rs256WithImpostorKey = Signing(method: .key(.rsaImpostor), algorithm: "RS256")
        /// `ES256` by ``Key/ecImpostor``: the header claims `kid` `ec-1`, the signature does
        /// not verify with the served `ec-1`.
        package static let es256WithImpostorKey = Signing(method: .key(.ecImpostor), algorithm: "ES256")
        /// `RS256` by ``Key/rsaNext`` (`kid` `rsa-2`), which the JWKS lacks until rotated in.
        package static let rs256WithUnknownKeyID = Signing(method: .key(.rsaNext), algorithm: "RS256")

        /// `HS256` with `secret`.
        package static func hs256(secret: String) -> Signing {
            Signing(method: .hmac(secret: secret), algorithm: "HS256")
        }

        /// The same signing with the header's `kid` set to `id`, or left out for `nil`.
        package func withKeyID(_ id: String?) -> Signing {
            var copy = self
            copy.keyID = id.map(KeyID.value) ?? .omitted
            return copy
        }

        /// The algorithm and what signs, such as `RS256 by rsa-1 (rsa1)`.
        package var description: String {
            switch method {
            case .key(let key): "\(algorithm) by \(key)"
            case .hmac: "\(algorithm) by an HMAC secret"
            case .unsigned: "\(algorithm), unsigned"
            }
        }
    }

    /// Signs `claims` as a compact JWS as `signing` says.
    ///
    /// - Throws: When the algorithm does not fit the key (such as `ES256` with an RSA key).
    package static func mint(_ claims: Claims, signing: Signing) async throws -> String {
        var headerMembers = signing.extraHeader
        headerMembers["alg"] = .string(signing.algorithm)
        if let type = signing.type { headerMembers["typ"] = .string(type) }
        switch signing.keyID {
        case .fromKey:
            if case .key(let key) = signing.method, let id = key.id { headerMembers["kid"] = .string(id) }
        case .omitted:
            break
        case .value(let id):
            headerMembers["kid"] = .string(id)
        }

        let keys = JWTKeyCollection()
        switch signing.method {
        case .unsigned(let signature):
            let header = JSONValue.object(headerMembers).serialized
            let payload = JSONValue.object(claims.members).serialized
            return "\(Data(header).base64URLEncoded).\(Data(payload).base64URLEncoded).\(signature)"
        case .hmac(let secret):
            // By hand: jwt-kit refuses (asserts on) secrets shorter than the hash, and a hostile
            // provider signs with whatever secret the test names.
            let signingInput =
                "\(Data(JSONValue.object(headerMembers).serialized).base64URLEncoded)."
                + Data(JSONValue.object(claims.members).serialized).base64URLEncoded
            let key = SymmetricKey(data: Data(secret.utf8))
            let input = Data(signingInput.utf8)
            let mac: Data =
                switch signing.algorithm {
                case "HS384": Data(HMAC<SHA384>.authenticationCode(for: input, using: key))
                case "HS512": Data(HMAC<SHA512>.authenticationCode(for: input, using: key))
                default: Data(HMAC<SHA256>.authenticationCode(for: input, using: key))
                }
            return signingInput + "." + mac.base64URLEncoded
        case .key(let key) where key.material.isRSA:
            let rsa = KeyStore.rsa(key.material)
            switch signing.algorithm {
            case "RS256": await keys.add(rsa: rsa, digestAlgorithm: .sha256)
            case "RS384": await keys.add(rsa: rsa, digestAlgorithm: .sha384)
            case "RS512": await keys.add(rsa: rsa, digestAlgorithm: .sha512)
            case "PS256": await keys.add(pss: rsa, digestAlgorithm: .sha256)
            case "PS384": await keys.add(pss: rsa, digestAlgorithm: .sha384)
            case "PS512": await keys.add(pss: rsa, digestAlgorithm: .sha512)
            default: throw HostileProviderError(description: "cannot sign \(signing.algorithm) with an RSA key")
            }
        case .key(let key):
            guard signing.algorithm == "ES256" else {
                throw HostileProviderError(description: "cannot sign \(signing.algorithm) with a P-256 key")
            }
            await keys.add(ecdsa: KeyStore.ec(key.material))
        }
        var header = JWTHeader()
        for (name, value) in headerMembers { header.fields[name] = value.headerField }
        return try await keys.sign(claims, header: header)
    }
}

/// The key pairs, kept for the process: RSA pairs read from fixed material (generating them
/// takes a while, see `HostileKeyMaterial`), P-256 pairs made on first use.
private enum KeyStore {
    // The fixed material is valid PEM of 2048-bit keys: reading it cannot fail.
    static let rsa1 = try! Insecure.RSA.PrivateKey(
        backing: _RSA.Signing.PrivateKey(pemRepresentation: HostileKeyMaterial.rsa1))
    static let rsa2 = try! Insecure.RSA.PrivateKey(
        backing: _RSA.Signing.PrivateKey(pemRepresentation: HostileKeyMaterial.rsa2))
    static let rsa3 = try! Insecure.RSA.PrivateKey(
        backing: _RSA.Signing.PrivateKey(pemRepresentation: HostileKeyMaterial.rsa3))
    static let ec1 = ES256PrivateKey()
    static let ec2 = ES256PrivateKey()
    static let ec3 = ES256PrivateKey()

    static func rsa(_ material: HostileProvider.Key.Material) -> JWTKit.Insecure.RSA.PrivateKey {
        switch material {
        case .rsa2: rsa2
        case .rsa3: rsa3
        default: rsa1
        }
    }

    static func ec(_ material: HostileProvider.Key.Material) -> ES256PrivateKey {
        switch material {
        case .ec2: ec2
        case .ec3: ec3
        default: ec1
        }
    }
}

extension HostileProvider.JSONValue {
    /// The same value as a jwt-kit header field.
    fileprivate var headerField: JWTHeaderField {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .decimal(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.headerField))
        case .object(let members): .object(members.mapValues(\.headerField))
        }
    }
}

extension Data {
    /// Base64url without padding (RFC 7515 §2).
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
