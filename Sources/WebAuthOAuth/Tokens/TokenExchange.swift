// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Logging
import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A token type identifier of OAuth 2.0 Token Exchange (RFC 8693 §3), such as
/// `urn:ietf:params:oauth:token-type:access_token`.
public struct TokenTypeIdentifier: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The identifier, a URI.
    public let rawValue: String
    /// Creates an identifier from its URI.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates an identifier from a string literal.
    public init(stringLiteral value: String) { rawValue = value }
    /// The URI.
    public var description: String { rawValue }

    /// An OAuth 2.0 access token.
    public static let accessToken: TokenTypeIdentifier = "urn:ietf:params:oauth:token-type:access_token"
    /// An OAuth 2.0 refresh token.
    public static let refreshToken: TokenTypeIdentifier = "urn:ietf:params:oauth:token-type:refresh_token"
    /// An OpenID Connect ID token.
    public static let idToken: TokenTypeIdentifier = "urn:ietf:params:oauth:token-type:id_token"
    /// A JWT, such as a CI system's OIDC token for its job.
    public static let jwt: TokenTypeIdentifier = "urn:ietf:params:oauth:token-type:jwt"
    /// A base64url-encoded SAML 1.1 assertion.
    public static let saml1: TokenTypeIdentifier = "urn:ietf:params:oauth:token-type:saml1"
    /// A base64url-encoded SAML 2.0 assertion.
    public static let saml2: TokenTypeIdentifier = "urn:ietf:params:oauth:token-type:saml2"

    /// Whether the identifier can be sent: an absolute URI of printable ASCII, as RFC 8693 asks.
    var isWellFormed: Bool {
        !rawValue.isEmpty && rawValue.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) }
            && URL(string: rawValue)?.scheme != nil
    }
}

/// What a token exchange (RFC 8693) returned: the issued token, in ``tokens``'s
/// `accessToken` whatever its type, and its type.
public struct ExchangedToken: Sendable, Hashable {
    /// The issued token (in `accessToken`), its `token_type` (`Bearer`, or `N_A` for a token
    /// that is not an access token), expiry and scopes, and a refresh token if one was issued.
    public var tokens: TokenSet
    /// `issued_token_type`: what kind of token was issued.
    public var issuedTokenType: TokenTypeIdentifier
}

extension OAuthClient {
    /// Exchanges a token for another (OAuth 2.0 Token Exchange, RFC 8693): a token for another
    /// audience or resource, with fewer scopes, or — in CI — a job's own OIDC token for a
    /// provider's access token. The client authenticates at the token endpoint as its
    /// configuration says.
    ///
    /// ```swift
    /// let forAPI = try await client.exchange(
    ///     subjectToken: tokens.accessToken, subjectTokenType: .accessToken,
    ///     audience: "https://api.example.com")
    /// print(forAPI.tokens.accessToken)
    /// ```
    ///
    /// - Parameters:
    ///   - subjectToken: The token that represents the party on whose behalf the request is made.
    ///   - subjectTokenType: Its type.
    ///   - audience: Where the new token is to be used, as the provider names it.
    ///   - resource: Where the new token is to be used, as an absolute URI without a fragment.
    ///   - scopes: The scopes wanted; empty to leave them to the provider.
    ///   - requestedTokenType: The type wanted, if one in particular.
    ///   - actorToken: The token of the party acting, for delegation.
    ///   - actorTokenType: The actor token's type.
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` for a `resource` that is not an absolute
    ///   URI without a fragment or a malformed type identifier (nothing is sent);
    ///   ``OAuthError/Code/server`` with ``OAuthServerError/Code/invalidTarget`` when the provider
    ///   will not issue a token for that audience or resource, or
    ///   ``OAuthServerError/Code/invalidRequest`` for a token type it does not take;
    ///   ``OAuthError/Code/invalidResponse`` when the answer has no `issued_token_type`.
    public func exchange(
        subjectToken: String, subjectTokenType: TokenTypeIdentifier, audience: String? = nil,
        resource: URL? = nil, scopes: [String] = [], requestedTokenType: TokenTypeIdentifier? = nil,
        actorToken: String? = nil, actorTokenType: TokenTypeIdentifier = .accessToken
    ) async throws(OAuthError) -> ExchangedToken {
        for type in [subjectTokenType, requestedTokenType, actorToken == nil ? nil : actorTokenType].compactMap({ $0 })
        where !type.isWellFormed {
            throw OAuthError(
                code: .invalidConfiguration, message: "'\(type.rawValue.safeForDisplay)' is not a token type URI")
        }
        if let resource, resource.scheme == nil || resource.fragment != nil {
            throw OAuthError(
                code: .invalidConfiguration,
                message: "the resource must be an absolute URI without a fragment (RFC 8693 §2.1)")
        }
        guard !subjectToken.isEmpty else {
            throw OAuthError(code: .invalidConfiguration, message: "the subject token is empty")
        }
        let tokenEndpoint = try await requiredEndpoint(\.tokenEndpoint, name: "token")
        var form = [
            ("grant_type", Self.tokenExchangeGrantType), ("subject_token", subjectToken),
            ("subject_token_type", subjectTokenType.rawValue),
        ]
        if let audience { form.append(("audience", audience)) }
        if let resource { form.append(("resource", resource.absoluteString)) }
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        if let requestedTokenType { form.append(("requested_token_type", requestedTokenType.rawValue)) }
        if let actorToken {
            form += [("actor_token", actorToken), ("actor_token_type", actorTokenType.rawValue)]
        }
        let response: TokenResponse = try await endpoints.postForm(
            form, to: tokenEndpoint, endpoint: .token, authentication: try await clientAuthentication(), dpop: nil)
        guard let issued = response.issuedTokenType.map(TokenTypeIdentifier.init(rawValue:)), issued.isWellFormed
        else {
            throw OAuthError(
                code: .invalidResponse, message: "the token exchange answer has no issued_token_type (RFC 8693 §2.2.1)")
        }
        let tokens = try response.tokenSet(requestedScopes: scopes, claims: nil, now: clock.now())
        logger.debug("token exchanged", metadata: ["issuedTokenType": "\(issued.rawValue)"])
        return ExchangedToken(tokens: tokens, issuedTokenType: issued)
    }

    /// The token exchange's `grant_type` (RFC 8693 §2.1).
    static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"
}
