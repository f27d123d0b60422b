// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore

extension OAuthClient {
    /// The proofs for a token-endpoint request: with the key `tokens` are bound to, else — when
    /// the configuration asks for DPoP and the provider takes ES256 — with this client's key;
    /// `nil` when DPoP is not in use.
    ///
    /// - Throws: ``OAuthError/Code/dpopKeyMissing`` for DPoP-bound tokens without their key;
    ///   ``OAuthError/Code/invalidConfiguration`` when the provider lists DPoP algorithms
    ///   without ES256.
    func dpopProofing(for tokens: TokenSet?) async throws(OAuthError) -> DPoPProofing? {
        if let tokens, let proofing = try boundProofing(for: tokens) { return proofing }
        guard let dpopKey else { return nil }
        if let algorithms = try await metadata().dpopSigningAlgValuesSupported, !algorithms.contains("ES256") {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "DPoP is configured, but the provider's dpop_signing_alg_values_supported leaves out ES256")
        }
        return DPoPProofing(key: dpopKey, nonces: dpopNonces, clock: clock)
    }

    /// The proofs for a request with `tokens`' access token: with their key when they are
    /// DPoP-bound, `nil` for other tokens.
    ///
    /// - Throws: ``OAuthError/Code/dpopKeyMissing`` for DPoP-bound tokens without their key.
    func boundProofing(for tokens: TokenSet) throws(OAuthError) -> DPoPProofing? {
        if let key = tokens.dpopKey { return DPoPProofing(key: key, nonces: dpopNonces, clock: clock) }
        guard !tokens.isDPoPBound else { throw Self.missingDPoPKey }
        return nil
    }

    /// The error for DPoP-bound tokens whose key is not at hand.
    static let missingDPoPKey = OAuthError(
        code: .dpopKeyMissing,
        message:
            "the tokens are DPoP-bound, but their key was not kept (an ephemeral key ends with its program); sign in again"
    )

    /// Refuses a token response that is not DPoP-bound when DPoP was asked for (RFC 9449 §5),
    /// unless the configuration allows the downgrade.
    func checkTokenType(_ response: TokenResponse, dpop: DPoPProofing?) throws(OAuthError) {
        guard dpop != nil, response.tokenType.caseInsensitiveCompare("DPoP") != .orderedSame else { return }
        guard configuration.allowsDPoPDowngrade else {
            logger.info("token response rejected", metadata: ["reason": "dpopDowngraded"])
            throw OAuthError(
                code: .dpopDowngraded,
                message:
                    "a DPoP proof was sent, but the provider issued a '\(response.tokenType.safeForDisplay)' token, "
                    + "which anyone holding it could use; allow it with allowsDPoPDowngrade")
        }
        logger.notice("the provider issued a bearer token although DPoP was asked for (allowed by the configuration)")
    }
}
