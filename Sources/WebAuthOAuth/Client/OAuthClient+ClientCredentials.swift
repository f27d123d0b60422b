// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Logging

extension OAuthClient {
    /// Obtains tokens for the client itself (RFC 6749 §4.4, the client credentials grant): no
    /// person and no browser, for machines and CI jobs. The client authenticates as its
    /// configuration says (``ClientConfiguration/clientAuthentication``), with DPoP when
    /// ``ClientConfiguration/dpop`` asks for it.
    ///
    /// ```swift
    /// let client = try OAuthClient(configuration: ClientConfiguration(
    ///     issuer: URL(string: "https://id.example.com")!, clientID: "ci-job", clientSecret: secret,
    ///     scopes: ["deploy"], grant: .clientCredentials))
    /// let tokens = try await client.clientCredentials()
    /// ```
    ///
    /// The result has no refresh token, even where a provider sends one (RFC 6749 §4.4.3 says it
    /// should not): nothing long-lived is kept, and the client simply asks again, which
    /// ``refresh(_:)`` does for a ``ClientGrant/clientCredentials`` configuration.
    ///
    /// - Parameter scopes: The scopes to ask for; `nil` for the configuration's. An empty list
    ///   sends no `scope`, leaving the choice to the provider.
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` for a public client (the grant needs
    ///   the client's own credentials); ``OAuthError/Code/server`` with the provider's answer,
    ///   such as `unauthorized_client` when the client is not registered for the grant or
    ///   `invalid_scope`; transport errors.
    public func clientCredentials(scopes: [String]? = nil) async throws(OAuthError) -> TokenSet {
        let method = configuration.effectiveClientAuthentication
        guard method != .none, configuration.clientSecret != nil || method == .privateKeyJWT else {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "the client credentials grant needs a confidential client: give its client secret or key")
        }
        let tokenEndpoint = try await requiredEndpoint(\.tokenEndpoint, name: "token")
        let dpop = try await dpopProofing(for: nil)
        let requested = scopes ?? configuration.scopes
        var form = [("grant_type", "client_credentials")]
        if !requested.isEmpty { form.append(("scope", requested.joined(separator: " "))) }
        let response: TokenResponse = try await endpoints.postForm(
            form, to: tokenEndpoint, endpoint: .token, authentication: try await clientAuthentication(), dpop: dpop)
        var tokens = try await tokenSet(
            from: response, nonce: nil, original: nil, previous: nil, dpop: dpop, requestedScopes: requested)
        tokens.refreshToken = nil
        logger.debug("tokens obtained with the client credentials grant")
        return tokens
    }
}
