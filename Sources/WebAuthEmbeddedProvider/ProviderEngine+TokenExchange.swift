// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

extension ProviderEngine {
    /// The token exchange's `grant_type` (RFC 8693 §2.1).
    static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// The one subject token type the provider takes: its own access tokens.
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"

    /// RFC 8693 §2, as the reference: a live access token this provider issued is exchanged for
    /// a new access token of the same person for one of ``EmbeddedProvider/Configuration/tokenExchangeTargets``
    /// (by `audience` or `resource`), with at most the subject token's scopes, and no refresh
    /// token. Anything else is refused with the error RFC 8693 names.
    func exchangeToken(
        _ form: [(name: String, value: String)], client: EmbeddedProvider.Client, now: Date
    ) -> Result<TokenIssue, ProtocolError> {
        let fields = Self.singleValues(form)
        guard let subjectToken = fields["subject_token"], !subjectToken.isEmpty,
            let subjectType = fields["subject_token_type"]
        else {
            return .failure(.invalidRequest("subject_token and subject_token_type are required"))
        }
        guard subjectType == Self.accessTokenType else {
            return .failure(.invalidRequest("subject_token_type \(subjectType) is not supported"))
        }
        if let requested = fields["requested_token_type"], requested != Self.accessTokenType {
            return .failure(.invalidRequest("requested_token_type \(requested) is not supported"))
        }
        if fields["actor_token"] != nil, fields["actor_token_type"] == nil {
            return .failure(.invalidRequest("actor_token_type is required with actor_token"))
        }
        // `audience` and `resource` may repeat (RFC 8693 §2.1); every one must be a target.
        let targets = form.filter { $0.name == "audience" || $0.name == "resource" }.map(\.value)
        guard !targets.isEmpty else {
            return .failure(.invalidRequest("name the audience or the resource the token is for"))
        }
        guard targets.allSatisfy(configuration.tokenExchangeTargets.contains) else {
            return .failure(
                ProtocolError(code: "invalid_target", description: "the provider issues no token for that target"))
        }
        let accessToken = ProviderSecrets.randomToken()
        return state.withLock { state in
            guard let subject = state.ledger.grant(forAccessToken: subjectToken, now: now), subject.dpopJKT == nil
            else {
                return .failure(.invalidGrant("the subject token is not a live access token of this provider"))
            }
            var scopes = subject.scopes.filter { $0 != "openid" && $0 != "offline_access" }
            if let scope = fields["scope"] {
                let asked = scope.split(separator: " ").map(String.init)
                guard asked.allSatisfy(scopes.contains) else {
                    return .failure(
                        ProtocolError(code: "invalid_scope", description: "scope exceeds the subject token's"))
                }
                scopes = asked
            }
            var grant = subject
            grant.clientID = client.id
            grant.scopes = scopes
            grant.audience = targets
            let issued = state.ledger.issue(grant, accessToken: accessToken, refreshToken: nil, now: now)
            return .success(TokenIssue(issued: issued, nonce: nil, issuedTokenType: Self.accessTokenType))
        }
    }
}

extension EmbeddedProvider {
    /// The audiences (and resource URIs) a live `accessToken` was issued for by a token
    /// exchange; empty for a token issued otherwise, `nil` for one that is not live.
    public func audiences(ofAccessToken accessToken: String) -> [String]? {
        let now = configuration.clock.now()
        return engine.state.withLock { $0.ledger.grant(forAccessToken: accessToken, now: now) }.map(\.audience)
    }
}

extension EmbeddedProvider {
    /// The scopes a live `accessToken` was issued with (for an exchanged token: those it was
    /// narrowed to); `nil` for one that is not live.
    public func scopes(ofAccessToken accessToken: String) -> [String]? {
        let now = configuration.clock.now()
        return engine.state.withLock { $0.ledger.grant(forAccessToken: accessToken, now: now) }.map(\.scopes)
    }
}
