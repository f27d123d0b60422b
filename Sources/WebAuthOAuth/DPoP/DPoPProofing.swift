// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthCore

/// Puts a fresh DPoP proof on each request for one key, keeps the servers' nonces, and says
/// when a server asks for a nonce (RFC 9449 §8, §9) — so that a request is sent again exactly
/// once with it.
struct DPoPProofing: Sendable {
    /// The key the proofs are signed with.
    let key: DPoPKey
    /// The servers' nonces.
    let nonces: DPoPNonces
    /// The time source for `iat`.
    let clock: OAuthClock

    /// `request` with a new proof in its `DPoP` field (replacing any earlier one), `ath` for
    /// `accessToken`, and the latest nonce of its server.
    func proving(_ request: HTTPTransportRequest, accessToken: String?) -> HTTPTransportRequest {
        var request = request
        request.headerFields[.dpop] = nil
        let proof = DPoPProof(
            method: request.method, url: request.url, accessToken: accessToken, nonce: nonces.nonce(for: request.url),
            issuedAt: clock.now())
        request.headerFields.append(HTTPField(name: .dpop, value: proof.signed(with: key)))
        return request
    }

    /// Keeps the response's nonce and tells whether the request should be sent again with it:
    /// the server answered `use_dpop_nonce` — in an error body (the token endpoint, §8) or in
    /// a `WWW-Authenticate: DPoP` challenge (a resource server, §9) — and gave a new nonce.
    func asksForNonce(_ response: HTTPTransportResponse, from url: URL) -> Bool {
        let isNew = nonces.record(response, from: url)
        guard isNew, response.status == 400 || response.status == 401 else { return false }
        if let challenge = response.headerFields[values: .wwwAuthenticate].first,
            challenge.range(of: #"error\s*=\s*"?use_dpop_nonce"#, options: [.regularExpression, .caseInsensitive])
                != nil
        {
            return true
        }
        return EndpointClient.serverError(in: response.body, endpoint: .token)?.code == .useDPoPNonce
    }
}
