// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import JWTKit
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Validates ID tokens (OpenID Connect Core §3.1.3.7): the JOSE header's algorithm against the
/// accepted ones, the signature against the provider's JWKS (re-fetched once for an unknown
/// `kid`), then the claims with ``IDTokenClaimsCheck``.
struct IDTokenValidator: Sendable {
    /// The accepted `alg` values.
    var algorithms: [String]
    /// The client secret, the key for HMAC-signed tokens of confidential clients.
    var clientSecret: String?
    /// Where the provider's keys are; `nil` when the provider has no JWKS.
    var keys: JWKSCache?
    /// The claim checks.
    var claims: IDTokenClaimsCheck

    /// The algorithms never accepted whatever the configuration says.
    static let forbidden: Set<String> = ["none", ""]

    func validate(_ token: String, now: Date) async throws(OAuthError) -> IDTokenClaims {
        func reject(_ problem: IDTokenProblem, _ message: String) -> OAuthError {
            OAuthError(code: .invalidIDToken, message: "ID token rejected: \(message)", idTokenProblem: problem)
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Data(base64URLEncoded: parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { throw reject(.malformed, "it is not a signed JWT") }

        let algorithm = header.alg
        let isHMAC = algorithm.hasPrefix("HS")
        if Self.forbidden.contains(algorithm.lowercased()) || (isHMAC && clientSecret == nil) {
            throw reject(.forbiddenAlgorithm, "alg '\(algorithm.safeForDisplay)' is not acceptable for this client")
        }
        guard algorithms.contains(algorithm) else {
            throw reject(
                .unexpectedAlgorithm,
                "alg '\(algorithm.safeForDisplay)' is not one of \(algorithms.joined(separator: ", "))")
        }
        guard !parts[2].isEmpty else { throw reject(.badSignature, "it has no signature") }

        let collection = JWTKeyCollection()
        let kid = JWKIdentifier(string: "selected")
        if isHMAC, let clientSecret {
            let digest: DigestAlgorithm
            let minimumKeySize: Int
            switch algorithm {
            case "HS256": (digest, minimumKeySize) = (.sha256, 32)
            case "HS384": (digest, minimumKeySize) = (.sha384, 48)
            case "HS512": (digest, minimumKeySize) = (.sha512, 64)
            default: throw reject(.forbiddenAlgorithm, "alg '\(algorithm.safeForDisplay)' is not supported")
            }
            // RFC 7518 §3.2: the key must be at least as long as the hash output.
            guard clientSecret.utf8.count >= minimumKeySize else {
                throw reject(.forbiddenAlgorithm, "the client secret is too short to be an \(algorithm) key")
            }
            await collection.add(hmac: HMACKey(from: clientSecret), digestAlgorithm: digest, kid: kid)
        } else {
            guard let keys else { throw reject(.unknownKey, "the provider publishes no jwks_uri") }
            guard var jwk = try await keys.key(kid: header.kid, algorithm: algorithm) else {
                throw reject(
                    .unknownKey,
                    header.kid.map { "no key '\($0.safeForDisplay)' for \(algorithm) in the provider's JWKS" }
                        ?? "the token names no key and the JWKS has not exactly one \(algorithm) key")
            }
            jwk.keyIdentifier = kid
            do {
                try await collection.add(jwk: jwk)
            } catch {
                throw reject(.unknownKey, "the provider's key for \(algorithm) is unusable")
            }
        }
        let payload: RawIDTokenPayload
        do {
            payload = try await collection.verify(token, as: RawIDTokenPayload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw reject(.badSignature, "the signature does not verify")
        } catch {
            throw reject(.badSignature, "the signature or payload is invalid")
        }
        return try claims.check(payload, now: now)
    }

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }
}
