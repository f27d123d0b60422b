// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthPlatform

/// A UserInfo response (OpenID Connect Core §5.3.2): `sub`, and more claims by scope.
struct UserInfoBody: Encodable {
    var sub: String
    var name: String?
    var preferredUsername: String?
    var email: String?
    var emailVerified: Bool?

    private enum CodingKeys: String, CodingKey {
        case sub
        case name
        case preferredUsername = "preferred_username"
        case email
        case emailVerified = "email_verified"
    }
}

extension ProviderEngine {
    // MARK: - /userinfo

    /// OpenID Connect Core §5.3 with an RFC 6750 bearer token in the `Authorization` header,
    /// or a DPoP-bound one as `Authorization: DPoP` with a proof (RFC 9449 §7). A bound token
    /// sent as a bearer token is refused.
    func userInfo(_ request: ServerRequest) -> Answer {
        guard request.method == "GET" || request.method == "POST" else {
            return Answer(ProviderHTTP.methodNotAllowed(["GET", "POST"]))
        }
        if let header = request.header("Authorization"), header.lowercased().hasPrefix("dpop ") {
            let token = header.dropFirst("dpop ".count).trimmingCharacters(in: .whitespaces)
            let now = clock.now()
            let proof: DPoPProofCheck.Proof
            switch checkProof(request, endpoint: .userInfo, accessToken: token, now: now) {
            case .refused(let answer): return answer
            case .absent:
                return proofRefusal(
                    .init(code: "invalid_dpop_proof", description: "a DPoP proof is required"), atResource: true)
            case .proven(let proven): proof = proven
            }
            guard let grant = state.withLock({ $0.ledger.grant(forAccessToken: token, now: now) }),
                grant.dpopJKT == proof.thumbprint
            else {
                return proofRefusal(
                    .init(code: "invalid_token", description: "the access token is invalid or bound to another key"),
                    atResource: true)
            }
            return userInfoAnswer(for: grant)
        }
        guard let header = request.header("Authorization"), header.lowercased().hasPrefix("bearer ") else {
            // RFC 6750 §3.1: no credentials, no error code.
            var response = ProviderHTTP.json(ErrorBody(error: "invalid_request"), status: 401)
            response.headerFields.append(HTTPField(name: .wwwAuthenticate, value: #"Bearer realm="webauth""#))
            return Answer(response, error: "invalid_request")
        }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        let now = clock.now()
        guard let grant = state.withLock({ $0.ledger.grant(forAccessToken: token, now: now) }),
            grant.dpopJKT == nil
        else {
            var response = ProviderHTTP.error(
                ProtocolError(code: "invalid_token", description: "the access token is invalid", status: 401))
            response.headerFields.append(
                HTTPField(name: .wwwAuthenticate, value: #"Bearer realm="webauth", error="invalid_token""#))
            return Answer(response, error: "invalid_token")
        }
        return userInfoAnswer(for: grant)
    }

    /// The UserInfo answer for a live grant: `insufficient_scope` without `openid`.
    private func userInfoAnswer(for grant: TokenGrant) -> Answer {
        guard grant.scopes.contains("openid") else {
            var response = ProviderHTTP.error(
                ProtocolError(code: "insufficient_scope", description: "the openid scope is needed", status: 403))
            response.headerFields.append(
                HTTPField(name: .wwwAuthenticate, value: #"Bearer realm="webauth", error="insufficient_scope""#))
            return Answer(response, error: "insufficient_scope")
        }
        let user = configuration.user(subject: grant.subject)
        var body = UserInfoBody(sub: forgeries.withLock { $0.userInfoSubject } ?? grant.subject)
        if grant.scopes.contains("profile") {
            body.name = user?.name
            body.preferredUsername = user?.username
        }
        if grant.scopes.contains("email"), let email = user?.email {
            body.email = email
            body.emailVerified = user?.emailVerified
        }
        return Answer(ProviderHTTP.json(body))
    }

    // MARK: - POST /revoke

    /// RFC 7009: an access token alone, or a refresh token with its whole grant. An unknown
    /// token (or another client's) changes nothing and is answered `200` like any other.
    func revoke(_ request: ServerRequest) -> Answer {
        let (client, form): (EmbeddedProvider.Client, [(name: String, value: String)])
        switch checkClientPost(request) {
        case .rejected(let answer): return answer
        case .accepted(let post): (client, form) = (post.client, post.form)
        }
        let tokens = form.filter { $0.name == "token" }.map(\.value)
        guard tokens.count == 1, let token = tokens.first, !token.isEmpty else {
            return errorAnswer(.invalidRequest("exactly one token is required"))
        }
        let hint = form.first { $0.name == "token_type_hint" }?.value
        _ = state.withLock { $0.ledger.revoke(token, hint: hint, clientID: client.id) }
        return Answer(ServerResponse(status: 200, headerFields: [.cacheControl: "no-store"]))
    }
}
