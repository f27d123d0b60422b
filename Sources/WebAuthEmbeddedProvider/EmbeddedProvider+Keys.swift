// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import CryptoExtras
import Foundation
import WebAuthCore

/// An RS256 signing key: the RSA key pair and its `kid`, the key's RFC 7638 thumbprint.
struct SigningKey: Sendable {
    let privateKey: _RSA.Signing.PrivateKey
    let keyID: String
    /// The public key's modulus and exponent, base64url.
    let modulus: String
    let exponent: String

    /// Makes a fresh 2048-bit key pair off the concurrency pool, one at a time in the process.
    ///
    /// RSA key generation keeps a core busy for a noticeable while (tens of milliseconds in an
    /// optimized build, far longer in a debug one). Made on a thread each, many providers starting
    /// at once (a test suite's) would take every core for seconds on end and stall everything else
    /// in the process; made one after another on one queue, they never take more than one core.
    static func generateInBackground() async throws(EmbeddedProviderError) -> SigningKey {
        let result = await withCheckedContinuation { continuation in
            generationQueue.async {
                continuation.resume(returning: Result { () throws(EmbeddedProviderError) in try generate() })
            }
        }
        return try result.get()
    }

    /// Where keys are made, one at a time.
    private static let generationQueue = DispatchQueue(label: "WebAuthEmbeddedProvider.SigningKey.generation")

    /// Makes a fresh 2048-bit key pair.
    static func generate() throws(EmbeddedProviderError) -> SigningKey {
        do {
            return try SigningKey(privateKey: _RSA.Signing.PrivateKey(keySize: .bits2048))
        } catch let error as EmbeddedProviderError {
            throw error
        } catch {
            throw EmbeddedProviderError(code: .keyGenerationFailed, message: "cannot make an RSA key: \(error)")
        }
    }

    init(privateKey: _RSA.Signing.PrivateKey) throws {
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        self.privateKey = privateKey
        self.modulus = Self.unsignedBigEndian(primitives.modulus).base64URLEncodedString()
        self.exponent = Self.unsignedBigEndian(primitives.publicExponent).base64URLEncodedString()
        // RFC 7638 §3.2: the required members, lexicographic order, no whitespace.
        let canonical = #"{"e":"\#(exponent)","kty":"RSA","n":"\#(modulus)"}"#
        self.keyID = Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
    }

    /// The public key as a JWK (RFC 7517): `kty`, `kid`, `use`, `alg`, `n`, `e`.
    var publicJWK: [String: String] {
        ["kty": "RSA", "kid": keyID, "use": "sig", "alg": "RS256", "n": modulus, "e": exponent]
    }

    /// A compact JWS (RFC 7515) of `payload`, signed RS256 with this key, `kid` in the header.
    func sign(payload: Data) throws -> String {
        try sign(payload: payload, keyID: keyID)
    }

    /// A compact JWS of `payload`, signed RS256 with this key, with `keyID` as the header's
    /// `kid` (none when `nil`), whichever key that names.
    func sign(payload: Data, keyID: String?) throws -> String {
        let header =
            keyID.map { #"{"alg":"RS256","kid":"\#($0)","typ":"JWT"}"# } ?? #"{"alg":"RS256","typ":"JWT"}"#
        let signingInput = Data(header.utf8).base64URLEncodedString() + "." + payload.base64URLEncodedString()
        let signature = try privateKey.signature(
            for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
    }

    /// A compact JWS of `payload` forged as `forgery` says, for testing a client's checks.
    func sign(payload: Data, forgery: EmbeddedProvider.IDTokenSignatureForgery) throws -> String {
        func input(_ header: String) -> String {
            Data(header.utf8).base64URLEncodedString() + "." + payload.base64URLEncodedString()
        }
        switch forgery {
        case .unsigned:
            return input(#"{"alg":"none","typ":"JWT"}"#) + "."
        case .invalidSignature:
            // The key's valid signature of another message: right length, right key, wrong bytes.
            let signingInput = input(#"{"alg":"RS256","kid":"\#(keyID)","typ":"JWT"}"#)
            let signature = try privateKey.signature(
                for: SHA256.hash(data: Data((signingInput + "-").utf8)), padding: .insecurePKCS1v1_5)
            return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
        case .unknownKeyID:
            let signingInput = input(#"{"alg":"RS256","kid":"\#(keyID)-unknown","typ":"JWT"}"#)
            let signature = try privateKey.signature(
                for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
            return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
        case .hmacWithPublicKey:
            let signingInput = input(#"{"alg":"HS256","kid":"\#(keyID)","typ":"JWT"}"#)
            let key = SymmetricKey(data: Data(privateKey.publicKey.pemRepresentation.utf8))
            let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
            return signingInput + "." + Data(mac).base64URLEncodedString()
        case .withoutKeyID:
            return try sign(payload: payload, keyID: nil)
        case .hmacWithArbitrarySecret:
            let signingInput = input(#"{"alg":"HS256","kid":"\#(keyID)","typ":"JWT"}"#)
            let mac = HMAC<SHA256>.authenticationCode(
                for: Data(signingInput.utf8), using: SymmetricKey(data: Data("secret".utf8)))
            return signingInput + "." + Data(mac).base64URLEncodedString()
        case .signedWithRS384:
            let signingInput = input(#"{"alg":"RS384","kid":"\#(keyID)","typ":"JWT"}"#)
            let signature = try privateKey.signature(
                for: SHA384.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
            return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
        case .signedWithPS256:
            let signingInput = input(#"{"alg":"PS256","kid":"\#(keyID)","typ":"JWT"}"#)
            let signature = try privateKey.signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .PSS)
            return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
        case .signedByAnotherKey, .signedWithES256, .signedWithES256ByAnotherKey:
            // Made by the engine, which holds the other keys; this key's own signature is no forgery.
            return try sign(payload: payload, keyID: keyID)
        }
    }

    /// RFC 7518 §6.3.1: unsigned big-endian with no leading zero octets.
    private static func unsignedBigEndian(_ bytes: Data) -> Data {
        let trimmed = bytes.drop { $0 == 0 }
        return trimmed.isEmpty ? Data([0]) : Data(trimmed)
    }
}

/// A P-256 key for ES256 signatures (RFC 7518 §3.4), served and used only while a forgery
/// asks for it; its `kid` is its RFC 7638 thumbprint.
struct ECSigningKey: Sendable {
    let privateKey: P256.Signing.PrivateKey
    let keyID: String
    let x: String
    let y: String

    init(privateKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) {
        self.privateKey = privateKey
        let raw = privateKey.publicKey.rawRepresentation
        x = Data(raw.prefix(32)).base64URLEncodedString()
        y = Data(raw.suffix(32)).base64URLEncodedString()
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        keyID = Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
    }

    /// The public key as a JWK: `kty`, `crv`, `kid`, `use`, `alg`, `x`, `y`.
    var publicJWK: [String: String] {
        ["kty": "EC", "crv": "P-256", "kid": keyID, "use": "sig", "alg": "ES256", "x": x, "y": y]
    }

    /// A compact JWS of `payload`, signed ES256 with this key, with `keyID` as the header's `kid`.
    func sign(payload: Data, keyID: String) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyID)","typ":"JWT"}"#
        let signingInput = Data(header.utf8).base64URLEncodedString() + "." + payload.base64URLEncodedString()
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
    }
}

/// The keys the provider holds: the one that signs now, and the ones it signed with before,
/// which the JWKS keeps serving so that tokens they signed still verify.
struct SigningKeySet: Sendable {
    /// Newest last; the last one signs.
    private(set) var keys: [SigningKey]

    /// How many earlier keys the JWKS keeps after a rotation.
    static let retiredKeysKept = 3

    init(current: SigningKey) {
        keys = [current]
    }

    /// The key that signs now.
    var current: SigningKey { keys[keys.count - 1] }

    /// Makes `key` the signing key; the previous ones stay in the JWKS, up to a bound.
    mutating func rotate(to key: SigningKey) {
        keys.append(key)
        if keys.count > Self.retiredKeysKept + 1 { keys.removeFirst(keys.count - Self.retiredKeysKept - 1) }
    }

    /// The JWKS document: every key held, newest first.
    var document: JWKSDocument {
        JWKSDocument(keys: keys.reversed().map(\.publicJWK))
    }
}

/// `{"keys": [...]}`.
struct JWKSDocument: Encodable {
    var keys: [[String: String]]
}

/// The claims of an ID token the provider issues (OpenID Connect Core §2, §5.1), and the
/// overrides a test asked for applied to them.
struct IDTokenPayload: Encodable, Sendable {
    var iss: String
    var sub: String
    var aud: [String]
    var exp: Int
    var iat: Int
    var authTime: Int
    var nonce: String?
    var azp: String
    var name: String?
    var preferredUsername: String?
    var email: String?
    var emailVerified: Bool?
    /// `tid`, for a multi-tenant provider.
    var tid: String?
    /// Claims to leave out.
    var removed: Set<String> = []
    /// More string claims; the ones above take precedence.
    var additional: [String: String] = [:]

    /// The claims for `grant` issued to `clientID` at `now`.
    init(
        issuer: String, grant: TokenGrant, user: EmbeddedProvider.User?, nonce: String?, now: Date,
        lifetime: Duration, tenant: String? = nil
    ) {
        iss = issuer
        tid = tenant
        sub = grant.subject
        aud = [grant.clientID]
        iat = Int(now.timeIntervalSince1970)
        exp = iat + Int(lifetime.components.seconds)
        authTime = Int(grant.authenticatedAt.timeIntervalSince1970)
        self.nonce = nonce
        azp = grant.clientID
        if grant.scopes.contains("profile"), let user {
            name = user.name
            preferredUsername = user.username
        }
        if grant.scopes.contains("email"), let user, user.email != nil {
            email = user.email
            emailVerified = user.emailVerified
        }
    }

    /// The claims with `overrides` applied.
    func applying(_ overrides: EmbeddedProvider.IDTokenClaimOverrides?, now: Date) -> IDTokenPayload {
        guard let overrides else { return self }
        var payload = self
        if let issuer = overrides.issuer { payload.iss = issuer }
        if let subject = overrides.subject { payload.sub = subject }
        if let audience = overrides.audience { payload.aud = audience }
        if let party = overrides.authorizedParty { payload.azp = party }
        if let nonce = overrides.nonce { payload.nonce = nonce }
        if let tenantID = overrides.tenantID { payload.tid = tenantID }
        if let offset = overrides.issuedAtOffset {
            payload.iat = Int(now.timeIntervalSince1970) + Int(offset.components.seconds)
        }
        if let lifetime = overrides.lifetime { payload.exp = payload.iat + Int(lifetime.components.seconds) }
        payload.removed = overrides.removedClaims
        payload.additional = overrides.additionalClaims
        return payload
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        func put(_ name: String, _ value: (some Encodable)?) throws {
            guard let value, !removed.contains(name) else { return }
            try container.encode(value, forKey: Key(name))
        }
        try put("iss", iss)
        try put("sub", sub)
        if !removed.contains("aud") {
            // A single audience as a string, the common form (OpenID Connect Core §2).
            if aud.count == 1 {
                try container.encode(aud[0], forKey: Key("aud"))
            } else {
                try container.encode(aud, forKey: Key("aud"))
            }
        }
        try put("exp", exp)
        try put("iat", iat)
        try put("auth_time", authTime)
        try put("nonce", nonce)
        try put("azp", azp)
        try put("name", name)
        try put("preferred_username", preferredUsername)
        try put("email", email)
        try put("email_verified", emailVerified)
        try put("tid", tid)
        let standard: Set<String> = [
            "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "name", "preferred_username", "email",
            "email_verified", "tid",
        ]
        for (name, value) in additional.sorted(by: { $0.key < $1.key }) where !standard.contains(name) {
            try put(name, value)
        }
    }
}
