// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthPlatform

extension ProviderEngine {
    /// A request's DPoP proof, checked.
    enum ProofOutcome {
        /// The request has no `DPoP` field.
        case absent
        /// A valid proof, seen for the first time.
        case proven(DPoPProofCheck.Proof)
        /// A refused proof: the answer that ends the request.
        case refused(Answer)
    }

    /// How long a proof's `jti` is remembered: its whole acceptance window.
    static let proofMemory: Duration = .seconds(Int64(DPoPProofCheck.maximumAge + DPoPProofCheck.maximumSkew))

    /// Checks the request's DPoP proof (RFC 9449 §4.3) for `endpoint`, with `ath` for
    /// `accessToken`: the nonce when the configuration requires one, and no `jti` twice. A
    /// refusal at the token endpoint is a `400` JSON error (§5); at a resource (UserInfo), a
    /// `401` with a `WWW-Authenticate: DPoP` challenge (§7.1). Every answer carries the current
    /// nonce when the provider requires one.
    func checkProof(
        _ request: ServerRequest, endpoint: EmbeddedProvider.Endpoint, accessToken: String?, now: Date
    ) -> ProofOutcome {
        let fields = request.headerFields[values: .dpop]
        guard !fields.isEmpty else { return .absent }
        let nonce = configuration.requiresDPoPNonce ? state.withLock { $0.dpopNonce } : nil
        let result = DPoPProofCheck.check(
            fields, method: request.method, targetURI: issuer + endpoint.path, accessToken: accessToken, nonce: nonce,
            now: now)
        let refusal: DPoPProofCheck.Refusal
        switch result {
        case .success(let proof):
            let fresh = state.withLock { state in
                let key = ProviderSecrets.digest(proof.identifier)
                guard state.seenProofs.value(for: key, now: now) == nil else { return false }
                state.seenProofs.insert(true, for: key, expiresAt: now.adding(Self.proofMemory), now: now)
                return true
            }
            guard fresh else {
                refusal = .invalid("the DPoP proof was already used (jti replayed)")
                break
            }
            return .proven(proof)
        case .failure(let failure):
            refusal = failure
        }
        let error: ProtocolError
        switch refusal {
        case .useNonce:
            error = ProtocolError(code: "use_dpop_nonce", description: "the DPoP proof must carry the server's nonce")
        case .invalid(let description):
            error = ProtocolError(code: "invalid_dpop_proof", description: description)
        }
        return .refused(proofRefusal(error, atResource: endpoint == .userInfo))
    }

    /// The answer refusing a proof: `400` JSON at the token endpoint, `401` with a `DPoP`
    /// challenge at a resource; with the nonce when the provider requires one.
    func proofRefusal(_ error: ProtocolError, atResource: Bool) -> Answer {
        var error = error
        var challenge: String?
        if atResource {
            error.status = 401
            challenge = #"DPoP algs="ES256", error="\#(error.code)", error_description="\#(error.description)""#
        }
        var answer = errorAnswer(error, challenge: challenge)
        withDPoPNonce(&answer.response)
        return answer
    }

    /// Adds the current `DPoP-Nonce` to `response` when the provider requires nonces.
    func withDPoPNonce(_ response: inout ServerResponse) {
        guard configuration.requiresDPoPNonce else { return }
        response.headerFields.append(HTTPField(name: .dpopNonce, value: state.withLock { $0.dpopNonce }))
    }
}
