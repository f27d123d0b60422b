// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The one-time values of one authorization request: `state`, the PKCE verifier and, for
/// OpenID Connect, the `nonce`. Made fresh for every sign-in; never reused.
public struct AuthorizationRequest: Sendable {
    /// The `state` sent and expected back: 256 random bits.
    public let state: String
    /// The `nonce` sent for OpenID Connect (256 random bits), else `nil`.
    public let nonce: String?
    /// The PKCE pair for the code flow; `nil` for the implicit flow, which has no token request.
    public let pkce: PKCE?
    /// The response type asked for.
    public let responseType: ResponseType
    /// The scopes asked for.
    public let scopes: [String]

    /// Makes fresh values for `configuration`.
    public init(configuration: ClientConfiguration) {
        self.init(
            state: RandomToken.make(), nonce: configuration.isOpenIDConnect ? RandomToken.make() : nil,
            pkce: configuration.responseType == .code ? PKCE() : nil, responseType: configuration.responseType,
            scopes: configuration.scopes)
    }

    /// Uses the given values; for tests and for callers with their own randomness.
    public init(state: String, nonce: String?, pkce: PKCE?, responseType: ResponseType = .code, scopes: [String]) {
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        self.responseType = responseType
        self.scopes = scopes
    }

    /// Parameters `additional` cannot add: `response_mode` (it could move the code into a
    /// fragment or a form post the session never reads), and `request` / `request_uri` (a
    /// request object would override the parameters checked here).
    public static let reservedParameters: Set<String> = ["response_mode", "request", "request_uri"]

    /// The URL the browser opens: the authorization endpoint with the request's parameters
    /// added to any query it already has.
    ///
    /// Parameters in `additional` never replace the ones this request sets (`response_type`,
    /// `client_id`, `redirect_uri`, `scope`, `state`, `nonce`, `code_challenge`,
    /// `code_challenge_method`), nor add ones that would change where or how the response comes
    /// back or override the request (``reservedParameters``).
    public func url(
        authorizationEndpoint: URL, clientID: String, redirectURI: URL, additional: [String: String] = [:]
    ) -> URL {
        Self.url(
            authorizationEndpoint,
            adding: parameters(clientID: clientID, redirectURI: redirectURI, additional: additional))
    }

    /// The request's parameters, in the order they are sent: what ``url(authorizationEndpoint:clientID:redirectURI:additional:)``
    /// puts in the URL, and what a pushed authorization request (RFC 9126) posts.
    public func parameters(
        clientID: String, redirectURI: URL, additional: [String: String] = [:]
    ) -> [(String, String)] {
        var parameters: [(String, String)] = [
            ("response_type", responseType.rawValue), ("client_id", clientID),
            ("redirect_uri", redirectURI.absoluteString),
        ]
        if !scopes.isEmpty { parameters.append(("scope", scopes.joined(separator: " "))) }
        parameters.append(("state", state))
        if let nonce { parameters.append(("nonce", nonce)) }
        if let pkce {
            parameters.append(("code_challenge", pkce.challenge))
            parameters.append(("code_challenge_method", pkce.method))
        }
        let reserved = Set(parameters.map(\.0)).union(Self.reservedParameters)
        for (name, value) in additional.sorted(by: { $0.key < $1.key }) where !reserved.contains(name) {
            parameters.append((name, value))
        }
        return parameters
    }

    /// `endpoint` with `parameters` added to any query it already has.
    static func url(_ endpoint: URL, adding parameters: [(String, String)]) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        // The endpoint's own query stays as it was written, percent-encoding included.
        let existing = components?.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 + "&" } ?? ""
        components?.percentEncodedQuery = existing + FormEncoding.encode(parameters)
        guard let url = components?.url else { preconditionFailure("an authorization URL from a valid endpoint") }
        return url
    }
}
