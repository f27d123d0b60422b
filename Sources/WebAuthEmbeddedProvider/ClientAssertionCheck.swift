// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import CryptoExtras
import Foundation
import WebAuthCore

/// The checks of a client assertion (RFC 7523 §3, OpenID Connect Core §9), as a pure function
/// of the form, the registered clients and the provider's issuer and clock. Replay (`jti` seen
/// before) is the caller's check, with its table of seen assertions.
///
/// `private_key_jwt` is ES256, RS256 or PS256 with one of the client's registered public keys
/// (the one its `kid` names, if it names one); `client_secret_jwt` is HS256 with the client
/// secret. `iss` and `sub` are the client ID; `aud` is the issuer identifier, or the token
/// endpoint's URL where the provider accepts that; `exp` is in the future and at most
/// ``maximumLifetime`` ahead; `jti` is present.
enum ClientAssertionCheck {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How far ahead `exp` may be, and how long before `exp` `iat` may be.
    static let maximumLifetime: TimeInterval = 300
    /// Clock skew allowed for `iat` and `nbf`.
    static let maximumSkew: TimeInterval = 60

    /// An assertion that passed: the client, how it authenticated, and the `jti` to remember
    /// until `exp`.
    struct Accepted {
        var client: EmbeddedProvider.Client
        var method: ClientAuthentication.Method
        var identifier: String
        var expiresAt: Date
    }

    /// The audiences accepted, and the time.
    struct Context: Sendable {
        var issuer: String
        /// The token endpoint's URL, when the provider accepts it as `aud` too.
        var tokenEndpoint: String?
        var now: Date
    }

    /// Checks `compact` (the `client_assertion`), sent with `formClientID` if the form named one.
    static func check(
        _ compact: String, formClientID: String?, clients: [EmbeddedProvider.Client], context: Context
    ) -> Result<Accepted, ProtocolError> {
        func refused(_ description: String) -> Result<Accepted, ProtocolError> {
            .failure(ProtocolError(code: "invalid_client", description: description, status: 401))
        }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Data(base64URLEncoded: parts[0]),
            let claimsData = Data(base64URLEncoded: parts[1]), let signature = Data(base64URLEncoded: parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else { return refused("the client assertion is not a signed JWT") }
        guard let issuer = claims["iss"] as? String, let subject = claims["sub"] as? String, issuer == subject,
            !subject.isEmpty
        else { return refused("the client assertion's iss and sub must both be the client ID") }
        if let formClientID, formClientID != subject {
            return refused("client_id differs from the client assertion's sub")
        }
        guard let client = clients.first(where: { $0.id == subject }) else {
            return refused("client authentication failed")
        }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        let method: ClientAuthentication.Method
        switch header["alg"] as? String {
        case "HS256":
            method = .clientSecretJWT
            guard let secret = client.secret, client.accepts(method) else {
                return refused("this client does not use client_secret_jwt")
            }
            guard
                HMAC<SHA256>.isValidAuthenticationCode(
                    signature, authenticating: signingInput, using: SymmetricKey(data: Data(secret.utf8)))
            else { return refused("client authentication failed") }
        case let alg? where ["ES256", "RS256", "PS256"].contains(alg):
            method = .privateKeyJWT
            guard !client.publicJWKs.isEmpty, client.accepts(method) else {
                return refused("this client does not use private_key_jwt")
            }
            let kid = header["kid"] as? String
            let candidates = client.publicJWKs.filter { kid == nil || $0["kid"] == kid }
            guard candidates.contains(where: { verify(signature, of: signingInput, alg: alg, with: $0) }) else {
                return refused("client authentication failed")
            }
        default:
            return refused("the client assertion's alg must be ES256, RS256, PS256 or HS256")
        }
        // The claims, now that the signature holds.
        let audiences: [String]
        if let single = claims["aud"] as? String {
            audiences = [single]
        } else if let list = claims["aud"] as? [String] {
            audiences = list
        } else {
            return refused("the client assertion has no aud")
        }
        let accepted = [context.issuer] + (context.tokenEndpoint.map { [$0] } ?? [])
        guard audiences.contains(where: accepted.contains) else {
            return refused("the client assertion's aud must be the issuer identifier")
        }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue else {
            return refused("the client assertion has no exp")
        }
        let now = context.now.timeIntervalSince1970
        guard exp > now else { return refused("the client assertion has expired") }
        guard exp - now <= maximumLifetime else { return refused("the client assertion's exp is too far ahead") }
        if let iat = (claims["iat"] as? NSNumber)?.doubleValue {
            guard iat <= now + maximumSkew, exp - iat <= maximumLifetime else {
                return refused("the client assertion's iat is not acceptable")
            }
        }
        if let nbf = (claims["nbf"] as? NSNumber)?.doubleValue, nbf > now + maximumSkew {
            return refused("the client assertion is not yet valid")
        }
        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 else {
            return refused("the client assertion has no jti")
        }
        return .success(
            Accepted(
                client: client, method: method, identifier: jti, expiresAt: Date(timeIntervalSince1970: exp)))
    }

    /// Whether `signature` over `data` verifies with the public JWK `jwk` under `alg`.
    static func verify(_ signature: Data, of data: Data, alg: String, with jwk: [String: String]) -> Bool {
        if let jwkAlg = jwk["alg"], jwkAlg != alg { return false }
        switch (alg, jwk["kty"]) {
        case ("ES256", "EC"):
            guard jwk["crv"] == "P-256", let x = jwk["x"].flatMap({ Data(base64URLEncoded: $0) }),
                let y = jwk["y"].flatMap({ Data(base64URLEncoded: $0) }),
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y),
                let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(ecdsa, for: data)
        case ("RS256", "RSA"), ("PS256", "RSA"):
            guard let n = jwk["n"].flatMap({ Data(base64URLEncoded: $0) }),
                let e = jwk["e"].flatMap({ Data(base64URLEncoded: $0) }),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return false }
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: data),
                padding: alg == "PS256" ? .PSS : .insecurePKCS1v1_5)
        default:
            return false
        }
    }
}
