// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import WebAuthCore

/// The checks of a DPoP proof (RFC 9449 §4.3), as a pure function of the request's `DPoP`
/// header fields, what the request is, and the provider's nonce and clock. Replay (`jti` seen
/// before) is the caller's check, with its table of seen proofs.
enum DPoPProofCheck {
    /// A proof that passed: the key's RFC 7638 thumbprint, and the `jti` to remember.
    struct Proof: Sendable, Hashable {
        var thumbprint: String
        var identifier: String
        var issuedAt: Date
    }

    /// Why a proof was refused.
    enum Refusal: Error, Sendable, Hashable {
        /// The proof is not valid (`invalid_dpop_proof`), with a description safe to send.
        case invalid(String)
        /// The proof lacks the provider's current nonce (`use_dpop_nonce`).
        case useNonce
    }

    /// How far in the past `iat` may be.
    static let maximumAge: TimeInterval = 300
    /// How far in the future `iat` may be (clock skew).
    static let maximumSkew: TimeInterval = 60

    /// Checks the proofs in `fields` (every `DPoP` header value of the request) for a request
    /// with `method` to `targetURI` (the provider's own URI for the endpoint), carrying
    /// `accessToken` if any, when the provider's nonce is `nonce` (`nil`: none required).
    static func check(
        _ fields: [String], method: String, targetURI: String, accessToken: String?, nonce: String?, now: Date
    ) -> Result<Proof, Refusal> {
        // §4.3 (1): exactly one DPoP field.
        guard fields.count == 1, let compact = fields.first else {
            return .failure(.invalid("exactly one DPoP header field is required"))
        }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Data(base64URLEncoded: parts[0]),
            let claimsData = Data(base64URLEncoded: parts[1]), let signature = Data(base64URLEncoded: parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
        else {
            return .failure(.invalid("the DPoP proof is not a JWT"))
        }
        // §4.3 (4)-(7): typ, an asymmetric alg this provider takes, a public JWK.
        guard header["typ"] as? String == "dpop+jwt" else { return .failure(.invalid("typ must be dpop+jwt")) }
        guard header["alg"] as? String == "ES256" else { return .failure(.invalid("alg must be ES256")) }
        guard let jwk = header["jwk"] as? [String: Any], jwk["kty"] as? String == "EC",
            jwk["crv"] as? String == "P-256", jwk["d"] == nil, let x = jwk["x"] as? String, let y = jwk["y"] as? String,
            let xData = Data(base64URLEncoded: x), let yData = Data(base64URLEncoded: y),
            let key = try? P256.Signing.PublicKey(rawRepresentation: xData + yData)
        else {
            return .failure(.invalid("jwk must be a public P-256 key"))
        }
        // §4.3 (8): the signature.
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8))
        else {
            return .failure(.invalid("the DPoP proof's signature does not verify"))
        }
        // §4.2: the required claims.
        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 else {
            return .failure(.invalid("jti is required"))
        }
        guard claims["htm"] as? String == method else { return .failure(.invalid("htm does not match the request")) }
        guard let htu = claims["htu"] as? String, normalized(htu) == normalized(targetURI) else {
            return .failure(.invalid("htu does not match the request"))
        }
        guard let iat = (claims["iat"] as? NSNumber)?.doubleValue, iat.isFinite else {
            return .failure(.invalid("iat is required"))
        }
        let age = now.timeIntervalSince1970 - iat
        guard age <= maximumAge, age >= -maximumSkew else {
            return .failure(.invalid("iat is outside the accepted window"))
        }
        // §4.3 (10), §8: the nonce, when the provider wants one.
        if let nonce, claims["nonce"] as? String != nonce { return .failure(.useNonce) }
        // §4.3 (11): ath for a request with an access token.
        if let accessToken {
            let expected = Data(SHA256.hash(data: Data(accessToken.utf8))).base64URLEncodedString()
            guard claims["ath"] as? String == expected else {
                return .failure(.invalid("ath does not match the access token"))
            }
        }
        // RFC 7638 §3.2.
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        let thumbprint = Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncodedString()
        return .success(Proof(thumbprint: thumbprint, identifier: jti, issuedAt: Date(timeIntervalSince1970: iat)))
    }

    /// A URI for comparison (RFC 9449 §4.3 (9), RFC 3986 §6.2.2–6.2.3): scheme and host in
    /// lower case, a default port left out, query and fragment left out, an empty path as `/`.
    static func normalized(_ uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            let host = components.percentEncodedHost?.lowercased()
        else { return nil }
        var authority = host
        if let port = components.port, !(scheme == "http" && port == 80), !(scheme == "https" && port == 443) {
            authority += ":\(port)"
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(authority)\(path)"
    }
}
