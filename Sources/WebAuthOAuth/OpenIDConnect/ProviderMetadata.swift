// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An authorization server's metadata: OpenID Connect Discovery 1.0 or RFC 8414, as far as this
/// layer uses it. Unknown members are ignored.
public struct ProviderMetadata: Sendable, Hashable, Codable {
    /// `issuer`: the identifier every ID token's `iss` and every `iss` response parameter must
    /// equal exactly. `nil` only for metadata made from explicit endpoints.
    public var issuer: String?
    /// `authorization_endpoint`.
    public var authorizationEndpoint: URL?
    /// `token_endpoint`.
    public var tokenEndpoint: URL?
    /// `userinfo_endpoint`.
    public var userInfoEndpoint: URL?
    /// `jwks_uri`.
    public var jwksURI: URL?
    /// `revocation_endpoint` (RFC 7009).
    public var revocationEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628).
    public var deviceAuthorizationEndpoint: URL?
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `grant_types_supported`.
    public var grantTypesSupported: [String]?
    /// `code_challenge_methods_supported`.
    public var codeChallengeMethodsSupported: [String]?
    /// `id_token_signing_alg_values_supported`.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207): when `true`, every
    /// authorization response must carry `iss`.
    public var authorizationResponseIssParameterSupported: Bool?
    /// `pushed_authorization_request_endpoint` (RFC 9126).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// `require_pushed_authorization_requests` (RFC 9126 §5): when `true`, every sign-in must
    /// push its authorization request.
    public var requirePushedAuthorizationRequests: Bool?
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1).
    public var dpopSigningAlgValuesSupported: [String]?
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0 §2.1): where a person
    /// is sent to sign out of the provider. Checked (`https`, or `http` to a loopback
    /// address) only when a session is ended, so that a provider naming an unusable one can
    /// still be signed in to.
    public var endSessionEndpoint: URL?
    /// `registration_endpoint` (RFC 7591 §3, OpenID Connect Discovery §3): where a client can
    /// register itself (``ClientRegistrar``).
    public var registrationEndpoint: URL? = nil

    /// Creates metadata.
    public init(
        issuer: String? = nil, authorizationEndpoint: URL? = nil, tokenEndpoint: URL? = nil,
        userInfoEndpoint: URL? = nil, jwksURI: URL? = nil, revocationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil, scopesSupported: [String]? = nil,
        grantTypesSupported: [String]? = nil, codeChallengeMethodsSupported: [String]? = nil,
        idTokenSigningAlgValuesSupported: [String]? = nil, tokenEndpointAuthMethodsSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil, pushedAuthorizationRequestEndpoint: URL? = nil,
        requirePushedAuthorizationRequests: Bool? = nil, dpopSigningAlgValuesSupported: [String]? = nil,
        endSessionEndpoint: URL? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userInfoEndpoint = userInfoEndpoint
        self.jwksURI = jwksURI
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.scopesSupported = scopesSupported
        self.grantTypesSupported = grantTypesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
        self.endSessionEndpoint = endSessionEndpoint
    }

    private enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userInfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case scopesSupported = "scopes_supported"
        case grantTypesSupported = "grant_types_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case endSessionEndpoint = "end_session_endpoint"
        case registrationEndpoint = "registration_endpoint"
    }

    /// These metadata with every endpoint set in `endpoints` replacing the discovered one.
    func overriding(with endpoints: ClientConfiguration.Endpoints) -> ProviderMetadata {
        var merged = self
        merged.authorizationEndpoint = endpoints.authorization ?? authorizationEndpoint
        merged.tokenEndpoint = endpoints.token ?? tokenEndpoint
        merged.revocationEndpoint = endpoints.revocation ?? revocationEndpoint
        merged.userInfoEndpoint = endpoints.userInfo ?? userInfoEndpoint
        merged.deviceAuthorizationEndpoint = endpoints.deviceAuthorization ?? deviceAuthorizationEndpoint
        merged.jwksURI = endpoints.jwks ?? jwksURI
        merged.pushedAuthorizationRequestEndpoint = endpoints.pushedAuthorization ?? pushedAuthorizationRequestEndpoint
        return merged
    }

    /// The endpoints that are set, with their names.
    var endpointURLs: [(String, URL)] {
        [
            ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
            ("userinfo_endpoint", userInfoEndpoint), ("jwks_uri", jwksURI),
            ("revocation_endpoint", revocationEndpoint), ("device_authorization_endpoint", deviceAuthorizationEndpoint),
            ("pushed_authorization_request_endpoint", pushedAuthorizationRequestEndpoint),
            ("registration_endpoint", registrationEndpoint),
        ].compactMap { name, url in url.map { (name, $0) } }
    }
}
