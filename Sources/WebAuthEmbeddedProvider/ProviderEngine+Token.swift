// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// A successful token response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
struct TokenResponseBody: Encodable {
    var accessToken: String
    var tokenType = "Bearer"
    var expiresIn: Int
    var refreshToken: String?
    var idToken: String?
    var scope: String
    /// `issued_token_type`, for a token exchange (RFC 8693 §2.2.1).
    var issuedTokenType: String?

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case issuedTokenType = "issued_token_type"
    }
}

extension ProviderEngine {
    /// The grant types the token endpoint knows, as the log names them.
    static let knownGrantTypes: Set<String> = [
        "authorization_code", "refresh_token", deviceCodeGrantType, clientCredentialsGrantType,
        tokenExchangeGrantType,
    ]

    /// The form's `grant_type` when it is one of ``knownGrantTypes``, for the request log.
    static func loggedGrantType(_ form: [(name: String, value: String)]) -> String? {
        guard let grantType = form.first(where: { $0.name == "grant_type" })?.value else { return nil }
        return knownGrantTypes.contains(grantType) ? grantType : nil
    }

    // MARK: - POST /token

    func token(_ request: ServerRequest) -> Answer {
        let (client, form): (EmbeddedProvider.Client, [(name: String, value: String)])
        switch checkClientPost(request, loggedGrantType: Self.loggedGrantType) {
        case .rejected(let answer): return answer
        case .accepted(let post): (client, form) = (post.client, post.form)
        }
        let grantType = form.first { $0.name == "grant_type" }?.value
        let loggedGrantType = Self.loggedGrantType(form)
        func fail(_ error: ProtocolError) -> Answer {
            errorAnswer(error, grantType: loggedGrantType)
        }

        let fields = Self.singleValues(form)

        let now = clock.now()
        // RFC 9449 §5: a proof, when sent, is checked before anything else is done.
        let proof: DPoPProofCheck.Proof?
        switch checkProof(request, endpoint: .token, accessToken: nil, now: now) {
        case .absent: proof = nil
        case .proven(let proven): proof = proven
        case .refused(var answer):
            answer.grantType = loggedGrantType
            return answer
        }
        // The key the new tokens are bound to; none when the downgrade fault is on.
        let binding = configuration.downgradesDPoPToBearer ? nil : proof?.thumbprint
        let outcome: Result<TokenIssue, ProtocolError>
        switch grantType {
        case nil, "":
            return fail(.invalidRequest("grant_type is required"))
        case "authorization_code":
            outcome = redeemCode(fields, client: client, now: now, proof: proof?.thumbprint, binding: binding)
        case "refresh_token":
            outcome = refresh(fields, client: client, now: now, proof: proof?.thumbprint)
        case Self.deviceCodeGrantType:
            outcome = redeemDeviceCode(fields, client: client, now: now, binding: binding)
        case Self.clientCredentialsGrantType:
            outcome = issueToClient(fields, client: client, now: now, binding: binding)
        case Self.tokenExchangeGrantType:
            outcome = exchangeToken(form, client: client, now: now)
        default:
            return fail(ProtocolError(code: "unsupported_grant_type", description: "unsupported grant_type"))
        }
        switch outcome {
        case .failure(let error):
            return fail(error)
        case .success(let issue):
            var response = ProviderHTTP.json(tokenResponse(issue, now: now))
            if let members = forgeries.withLock({ $0.tokenResponseMembers }) {
                response = ProviderHTTP.changingMembers(of: response, to: members)
            }
            withDPoPNonce(&response)
            return Answer(response, grantType: loggedGrantType)
        }
    }

    /// Tokens just recorded, and what the ID token needs.
    struct TokenIssue {
        var issued: TokenLedger.Issued
        /// The `nonce` of the authorization request, for the first ID token.
        var nonce: String?
        /// `issued_token_type`, for a token exchange.
        var issuedTokenType: String? = nil
        /// Whether the tokens come from a refresh.
        var isRefresh = false
    }

    /// The response body for `issue`, with an ID token when `openid` was granted.
    private func tokenResponse(_ issue: TokenIssue, now: Date) -> TokenResponseBody {
        let grant = issue.issued.grant
        var idToken: String?
        let withheld = issue.isRefresh && forgeries.withLock { $0.withholdsIDTokenOnRefresh }
        if grant.scopes.contains("openid"), !withheld {
            let (key, overrides) = state.withLock { ($0.keys.current, $0.claimOverrides) }
            let forgery = forgeries.withLock { $0.idTokenSignature }
            let payload = IDTokenPayload(
                issuer: tokenIssuer, grant: grant, user: configuration.user(subject: grant.subject),
                nonce: issue.nonce, now: now, lifetime: configuration.idTokenLifetime,
                tenant: configuration.multiTenant?.tenant
            ).applying(overrides, now: now)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // Encoding these plain values and signing with a valid key do not fail.
            idToken = try? {
                let data = try encoder.encode(payload)
                switch forgery {
                case nil: return try key.sign(payload: data)
                case .signedByAnotherKey?: return try impostorKey().sign(payload: data, keyID: key.keyID)
                case .signedWithES256?: return try ecKey.sign(payload: data, keyID: ecKey.keyID)
                case .signedWithES256ByAnotherKey?: return try ECSigningKey().sign(payload: data, keyID: ecKey.keyID)
                case let forgery?: return try key.sign(payload: data, forgery: forgery)
                }
            }()
        }
        return TokenResponseBody(
            accessToken: issue.issued.accessToken, tokenType: grant.dpopJKT == nil ? "Bearer" : "DPoP",
            expiresIn: max(1, Int(issue.issued.accessTokenExpiresAt.timeIntervalSince(now).rounded())),
            refreshToken: issue.issued.refreshToken, idToken: idToken, scope: grant.scopes.joined(separator: " "),
            issuedTokenType: issue.issuedTokenType)
    }

    // MARK: - Grants

    /// RFC 6749 §4.1.3 with RFC 7636 §4.6: the code is single use and bound to the client,
    /// the redirect URI and the PKCE challenge. A code presented twice revokes the tokens it
    /// produced (RFC 6749 §4.1.2).
    private func redeemCode(
        _ fields: [String: String], client: EmbeddedProvider.Client, now: Date, proof: String?, binding: String?
    ) -> Result<TokenIssue, ProtocolError> {
        guard let code = fields["code"], !code.isEmpty else { return .failure(.invalidRequest("code is required")) }
        guard let redirectURI = fields["redirect_uri"] else {
            return .failure(.invalidRequest("redirect_uri is required"))
        }
        guard let verifier = fields["code_verifier"] else {
            return .failure(.invalidRequest("code_verifier is required (PKCE)"))
        }
        guard ProviderSecrets.isValidVerifier(verifier) else {
            return .failure(.invalidRequest("code_verifier is not a valid PKCE verifier"))
        }
        let accessToken = ProviderSecrets.randomToken()
        let refreshToken = ProviderSecrets.randomToken()
        return state.withLock { state in
            let key = ProviderSecrets.digest(code)
            guard let (codeGrant, _) = state.codes.entry(for: key) else {
                return .failure(.invalidGrant("the code is invalid or expired"))
            }
            guard !codeGrant.redeemed else {
                if let family = codeGrant.family { state.ledger.revokeFamily(family) }
                state.codes.update(key) { $0.family = nil }
                return .failure(.invalidGrant("the code was already used; the tokens it produced are revoked"))
            }
            // Used up now, whatever follows: a stolen code cannot be tried twice.
            state.codes.update(key) { $0.redeemed = true }
            guard codeGrant.expiresAt > now else { return .failure(.invalidGrant("the code is invalid or expired")) }
            guard codeGrant.request.clientID == client.id else {
                return .failure(.invalidGrant("the code was issued to another client"))
            }
            guard codeGrant.request.redirectURI == redirectURI else {
                return .failure(.invalidGrant("redirect_uri differs from the authorization request's"))
            }
            guard
                ProviderSecrets.constantTimeEquals(
                    ProviderSecrets.s256Challenge(for: verifier), codeGrant.request.codeChallenge)
            else {
                return .failure(.invalidGrant("code_verifier does not match the code_challenge"))
            }
            // RFC 9449 §10: a code bound with dpop_jkt needs a proof with that key.
            if let bound = codeGrant.request.dpopJKT, bound != proof {
                return .failure(.invalidGrant("the code is bound to another DPoP key"))
            }
            var grant = codeGrant.grant
            grant.dpopJKT = binding
            let issued = state.ledger.issue(grant, accessToken: accessToken, refreshToken: refreshToken, now: now)
            state.codes.update(key) { $0.family = issued.family }
            return .success(TokenIssue(issued: issued, nonce: codeGrant.request.nonce))
        }
    }

    /// RFC 6749 §6 with rotation and reuse detection (RFC 9700 §4.14.2). `scope`, if sent,
    /// must not exceed the original grant.
    private func refresh(
        _ fields: [String: String], client: EmbeddedProvider.Client, now: Date, proof: String?
    ) -> Result<TokenIssue, ProtocolError> {
        guard let presented = fields["refresh_token"], !presented.isEmpty else {
            return .failure(.invalidRequest("refresh_token is required"))
        }
        let accessToken = ProviderSecrets.randomToken()
        let refreshToken = ProviderSecrets.randomToken()
        return state.withLock { state in
            let result = state.ledger.refresh(
                presented, clientID: client.id, newAccessToken: accessToken, newRefreshToken: refreshToken, now: now,
                dpopThumbprint: proof)
            switch result {
            case .failure(.reused):
                return .failure(.invalidGrant("the refresh token was already used; the grant is revoked"))
            case .failure(.expired):
                return .failure(.invalidGrant("the refresh token has expired"))
            case .failure(.wrongKey):
                return .failure(
                    ProtocolError(
                        code: "invalid_dpop_proof", description: "the refresh token is bound to another DPoP key"))
            case .failure(.otherClient), .failure(.unknown):
                return .failure(.invalidGrant("the refresh token is invalid"))
            case .success(var issued):
                if let scope = fields["scope"] {
                    let asked = scope.split(separator: " ").map(String.init)
                    guard asked.allSatisfy(issued.grant.scopes.contains) else {
                        return .failure(
                            ProtocolError(code: "invalid_scope", description: "scope exceeds the original grant"))
                    }
                    issued.grant.scopes = issued.grant.scopes.filter(asked.contains)
                }
                return .success(TokenIssue(issued: issued, nonce: nil, isRefresh: true))
            }
        }
    }

    /// RFC 8628 §3.4–3.5.
    private func redeemDeviceCode(
        _ fields: [String: String], client: EmbeddedProvider.Client, now: Date, binding: String?
    ) -> Result<TokenIssue, ProtocolError> {
        guard let deviceCode = fields["device_code"], !deviceCode.isEmpty else {
            return .failure(.invalidRequest("device_code is required"))
        }
        let accessToken = ProviderSecrets.randomToken()
        let refreshToken = ProviderSecrets.randomToken()
        return state.withLock { state in
            let key = ProviderSecrets.digest(deviceCode)
            guard let (device, expiresAt) = state.devices.entry(for: key), device.clientID == client.id else {
                return .failure(.invalidGrant("the device code is invalid"))
            }
            guard expiresAt > now else {
                state.devices.remove(key)
                return .failure(ProtocolError(code: "expired_token", description: "the device code has expired"))
            }
            switch device.status {
            case .pending:
                let tooSoon = now.timeIntervalSince(device.lastPolledAt) < Double(device.interval)
                state.devices.update(key) { device in
                    device.lastPolledAt = now
                    if tooSoon { device.interval += 5 }
                }
                return .failure(
                    tooSoon
                        ? ProtocolError(code: "slow_down", description: "poll less often")
                        : ProtocolError(code: "authorization_pending", description: "waiting for the person"))
            case .denied:
                return .failure(ProtocolError(code: "access_denied", description: "the person denied the request"))
            case .redeemed:
                return .failure(.invalidGrant("the device code was already used"))
            case .approved(var grant):
                grant.dpopJKT = binding
                state.devices.update(key) { $0.status = .redeemed }
                let issued = state.ledger.issue(grant, accessToken: accessToken, refreshToken: refreshToken, now: now)
                return .success(TokenIssue(issued: issued, nonce: nil))
            }
        }
    }
}
