// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An error response from an authorization server (RFC 6749 §4.1.2.1 and §5.2, RFC 8628 §3.5):
/// the `error` code, and the optional `error_description` and `error_uri`.
///
/// ``description`` is the server's text made safe to show through `UntrustedText` — the
/// `error` code and the description alike: control characters and escape sequences, bidi
/// overrides and line separators are replaced, so a hostile server cannot rewrite a terminal or
/// a log.
///
/// It is not thrown by itself: it is the provider's answer, carried by the ``OAuthError`` it
/// causes (``OAuthError/Code/server``, ``OAuthError/serverError``), which says which operation
/// failed. Its ``Code`` is the provider's `error` string, not one of this package's codes, so it
/// can hold any value a server sends.
public struct OAuthServerError: Sendable, Hashable, CustomStringConvertible {
    /// The `error` value.
    public var code: Code
    /// The `error_description` as sent, unfiltered but for the secrets the request carried
    /// (a code, a token, the client secret), which are replaced with `[withheld]` should the
    /// server quote them. Show ``safeDescription`` instead.
    public var rawDescription: String?
    /// The `error_uri`, when it was an absolute `https` URL.
    public var uri: URL?
    /// The endpoint that answered with the error.
    public var endpoint: OAuthEndpoint

    /// Creates a server error.
    public init(code: Code, rawDescription: String? = nil, uri: URL? = nil, endpoint: OAuthEndpoint) {
        self.code = code
        self.rawDescription = rawDescription
        self.uri = uri
        self.endpoint = endpoint
    }

    /// The `error_description` with control and format characters and line separators replaced
    /// by spaces and its length bounded (500 characters), fit for a terminal or a log line. HTML
    /// pages must still escape it.
    public var safeDescription: String? {
        rawDescription.map { UntrustedText($0).displayed(replacingWith: " ", limit: 500) }
    }

    /// The safe `error` code and description, for example `access_denied: The user said no`.
    public var description: String {
        if let safeDescription, !safeDescription.isEmpty { return "\(code): \(safeDescription)" }
        return code.description
    }

    /// An `error` value. The RFC 6749, RFC 8628 and OpenID Connect codes are static members;
    /// any other value the server sends is kept as it is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The `error` string.
        public let rawValue: String

        /// Creates a code from its `error` string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Creates a code from its `error` string.
        public init(stringLiteral value: String) { self.rawValue = value }

        /// The `error` string as `UntrustedText` shows it (at most 100 characters): the server
        /// chose it, so nothing in it may steer a terminal. ``rawValue`` is the value as sent.
        public var description: String { UntrustedText(rawValue).displayed(limit: 100) }

        /// `invalid_request`.
        public static let invalidRequest: Code = "invalid_request"
        /// `invalid_client`.
        public static let invalidClient: Code = "invalid_client"
        /// `invalid_grant`: the code, refresh token or device code is invalid, expired or used.
        public static let invalidGrant: Code = "invalid_grant"
        /// `unauthorized_client`.
        public static let unauthorizedClient: Code = "unauthorized_client"
        /// `unsupported_grant_type`.
        public static let unsupportedGrantType: Code = "unsupported_grant_type"
        /// `unsupported_response_type`.
        public static let unsupportedResponseType: Code = "unsupported_response_type"
        /// `invalid_scope`.
        public static let invalidScope: Code = "invalid_scope"
        /// `access_denied`: the person (or the server) refused.
        public static let accessDenied: Code = "access_denied"
        /// `server_error`.
        public static let serverError: Code = "server_error"
        /// `temporarily_unavailable`.
        public static let temporarilyUnavailable: Code = "temporarily_unavailable"
        /// `unsupported_token_type` (RFC 7009).
        public static let unsupportedTokenType: Code = "unsupported_token_type"
        /// RFC 8693 §2.2.2: the provider will not issue a token for the audience or resource asked.
        public static let invalidTarget: Code = "invalid_target"
        /// `authorization_pending` (RFC 8628): keep polling.
        public static let authorizationPending: Code = "authorization_pending"
        /// `slow_down` (RFC 8628): keep polling, 5 seconds slower.
        public static let slowDown: Code = "slow_down"
        /// `expired_token` (RFC 8628): the device code expired; start again.
        public static let expiredToken: Code = "expired_token"
        /// `login_required` (OpenID Connect).
        public static let loginRequired: Code = "login_required"
        /// `consent_required` (OpenID Connect).
        public static let consentRequired: Code = "consent_required"
        /// `interaction_required` (OpenID Connect).
        public static let interactionRequired: Code = "interaction_required"
        /// `use_dpop_nonce` (RFC 9449 §8): send the request again with the server's `DPoP-Nonce`.
        public static let useDPoPNonce: Code = "use_dpop_nonce"
        /// `invalid_dpop_proof` (RFC 9449 §5): the DPoP proof was refused.
        public static let invalidDPoPProof: Code = "invalid_dpop_proof"
        /// `invalid_redirect_uri` (RFC 7591 §3.2.2): the provider does not take a redirect URI
        /// the registration asked for.
        public static let invalidRedirectURI: Code = "invalid_redirect_uri"
        /// `invalid_client_metadata` (RFC 7591 §3.2.2): the provider does not take a value of
        /// the registration's client metadata.
        public static let invalidClientMetadata: Code = "invalid_client_metadata"
    }
}

/// The endpoints of an authorization server, as named in errors and logs.
public struct OAuthEndpoint: Sendable, Hashable, CustomStringConvertible {
    private let name: String

    /// The authorization endpoint (the page in the browser).
    public static let authorization = OAuthEndpoint(name: "authorization")
    /// The token endpoint.
    public static let token = OAuthEndpoint(name: "token")
    /// The revocation endpoint (RFC 7009).
    public static let revocation = OAuthEndpoint(name: "revocation")
    /// The UserInfo endpoint (OpenID Connect).
    public static let userInfo = OAuthEndpoint(name: "userinfo")
    /// The device authorization endpoint (RFC 8628).
    public static let deviceAuthorization = OAuthEndpoint(name: "device authorization")
    /// The pushed authorization request endpoint (RFC 9126).
    public static let pushedAuthorization = OAuthEndpoint(name: "pushed authorization request")
    /// The discovery document (OpenID Connect Discovery, RFC 8414).
    public static let discovery = OAuthEndpoint(name: "discovery")
    /// The JSON Web Key Set.
    public static let jwks = OAuthEndpoint(name: "jwks")
    /// The end-session endpoint (OpenID Connect RP-Initiated Logout 1.0, the page in the browser).
    public static let endSession = OAuthEndpoint(name: "end-session")
    /// The client registration endpoint (RFC 7591), and a registration's own
    /// `registration_client_uri` (RFC 7592).
    public static let registration = OAuthEndpoint(name: "registration")
    /// OAuth 1.0a's temporary-credential (request token) endpoint.
    public static let requestToken = OAuthEndpoint(name: "request token")
    /// OAuth 1.0a's token-credential (access token) endpoint.
    public static let accessToken = OAuthEndpoint(name: "access token")

    /// The endpoint's name.
    public var description: String { name }
}
