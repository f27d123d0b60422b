// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

extension ProviderEngine {
    /// The client credentials grant's `grant_type` (RFC 6749 §4.4.2).
    static let clientCredentialsGrantType = "client_credentials"

    /// The scopes that need a person, which the client credentials grant cannot have.
    static let personScopes: Set<String> = ["openid", "offline_access", "profile", "email"]

    /// RFC 6749 §4.4: a confidential client registered for the grant, already authenticated,
    /// gets an access token for itself (`sub` is its client ID) and no refresh token (§4.4.3).
    /// `scope` must be within the client's allowed scopes and ask for nothing a person gives;
    /// without it, the client gets all of its allowed scopes that need no person.
    func issueToClient(
        _ fields: [String: String], client: EmbeddedProvider.Client, now: Date, binding: String?
    ) -> Result<TokenIssue, ProtocolError> {
        guard client.isConfidential, client.allowsClientCredentials else {
            return .failure(
                ProtocolError(
                    code: "unauthorized_client", description: "the client may not use the client credentials grant"))
        }
        let scopes: [String]
        if let scope = fields["scope"] {
            scopes = scope.split(separator: " ").map(String.init)
            guard scopes.allSatisfy({ client.allowedScopes.contains($0) && !Self.personScopes.contains($0) }) else {
                return .failure(
                    ProtocolError(
                        code: "invalid_scope", description: "a scope is not allowed, or needs a person to sign in"))
            }
        } else {
            scopes = client.allowedScopes.subtracting(Self.personScopes).sorted()
        }
        let accessToken = ProviderSecrets.randomToken()
        let grant = TokenGrant(
            clientID: client.id, subject: client.id, scopes: scopes, authenticatedAt: now, dpopJKT: binding)
        return state.withLock { state in
            .success(
                TokenIssue(
                    issued: state.ledger.issue(grant, accessToken: accessToken, refreshToken: nil, now: now), nonce: nil
                ))
        }
    }
}
