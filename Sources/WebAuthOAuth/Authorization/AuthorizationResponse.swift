// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a valid authorization response carries.
public enum AuthorizationGrant: Sendable, Hashable {
    /// The code flow: the authorization code, to exchange at the token endpoint.
    case code(String)
    /// The implicit flow: the token response's parameters from the fragment.
    case implicit([String: String])
}

/// Checks an authorization response (the callback URL) against the request it answers — a
/// pure function of its inputs, so every rule is tested without a browser or a server.
///
/// The order is the one RFC 9700 and RFC 9207 call for: nothing in the response is used
/// before `state` (CSRF) and `iss` (mix-up) are known to be right.
public struct AuthorizationResponseValidator: Sendable {
    /// The `state` sent.
    public var expectedState: String
    /// The issuer the response must name in `iss` when it has one (RFC 9207), compared as an
    /// exact string — unless it is a multi-tenant template with `{tenantid}`, which `iss` must
    /// fit with one of ``allowedTenants`` (any tenant when that is `nil`).
    public var expectedIssuer: String?
    /// For a multi-tenant issuer template: the tenants accepted (``ClientConfiguration/allowedTenants``).
    public var allowedTenants: Set<String>?
    /// Whether `iss` must be present: the server's metadata says
    /// `authorization_response_iss_parameter_supported`.
    public var issuerRequired: Bool
    /// The response type asked for; `token` reads the fragment, `code` the query.
    public var responseType: ResponseType

    /// Creates a validator.
    public init(
        expectedState: String, expectedIssuer: String?, issuerRequired: Bool, responseType: ResponseType = .code,
        allowedTenants: Set<String>? = nil
    ) {
        self.expectedState = expectedState
        self.expectedIssuer = expectedIssuer
        self.issuerRequired = issuerRequired
        self.responseType = responseType
        self.allowedTenants = allowedTenants
    }

    /// Whether `callbackURL` answers this request at all (its `state` is right). A session
    /// uses it to ignore forged callbacks instead of ending on them.
    public func answersRequest(_ callbackURL: URL) -> Bool {
        answersRequest(CallbackParameters(callbackURL))
    }

    /// Whether a callback with these parameters answers this request at all (its `state` is
    /// right), without reading the URL again.
    public func answersRequest(_ parameters: CallbackParameters) -> Bool {
        !expectedState.isEmpty && response(parameters)["state"] == expectedState
    }

    /// Validates `callbackURL` and returns the grant it carries.
    ///
    /// - Throws: As validating the URL's parameters (`CallbackParameters`) does.
    public func validate(_ callbackURL: URL) throws(OAuthError) -> AuthorizationGrant {
        try validate(CallbackParameters(callbackURL))
    }

    /// Validates the callback's parameters, already read (`ReceivedCallback.parameters`),
    /// and returns the grant they carry.
    ///
    /// - Throws: ``OAuthError`` with ``OAuthError/Code/tokenInQuery``,
    ///   ``OAuthError/Code/stateMismatch``, ``OAuthError/Code/issuerMismatch``,
    ///   ``OAuthError/Code/issuerMissing``, ``OAuthError/Code/server`` (an error response) or
    ///   ``OAuthError/Code/invalidCallback``.
    public func validate(_ parameters: CallbackParameters) throws(OAuthError) -> AuthorizationGrant {
        try validate(parameters, answersRequest: answersRequest(parameters))
    }

    /// Validates the parameters, whose `state` has been compared already (`answersRequest`):
    /// each rule is applied once.
    func validate(_ callback: CallbackParameters, answersRequest: Bool) throws(OAuthError) -> AuthorizationGrant {
        if callback.query["access_token"] != nil {
            throw OAuthError(
                code: .tokenInQuery, message: "the redirect carried an access token in its query; it was not used")
        }
        let parameters = response(callback)
        guard answersRequest else {
            throw OAuthError(
                code: .stateMismatch,
                message: parameters["state"] == nil
                    ? "the authorization response has no state" : "the authorization response's state is not ours")
        }
        if let issuer = parameters["iss"] {
            if let expectedIssuer,
                !IssuerRule.accepted(issuer: expectedIssuer, allowedTenants: allowedTenants).admits(
                    responseIssuer: issuer)
            {
                throw OAuthError(
                    code: .issuerMismatch,
                    message:
                        "the authorization response came from issuer '\(issuer.safeForDisplay)', not '\(expectedIssuer)'"
                )
            }
        } else if issuerRequired {
            // Still refused: without iss the answer may come from another provider (a mix-up).
            // An error answer carries nothing to act on, so what it says is shown, unverified,
            // for the person to act on; the error's `serverError` is that unverified answer.
            let unverified = serverError(parameters)
            throw OAuthError(
                code: .issuerMissing,
                message: "the authorization response has no iss, which this server promises (RFC 9207)"
                    + (unverified.map { "; the provider answered \($0) (not confirmed: the answer carries no iss)" }
                        ?? ""),
                serverError: unverified)
        }
        if let serverError = serverError(parameters) {
            throw OAuthError(
                code: .server, message: "the authorization server refused: \(serverError)", serverError: serverError)
        }
        switch responseType {
        case .token:
            guard parameters["access_token"] != nil else {
                throw OAuthError(code: .invalidCallback, message: "the implicit response has no access_token")
            }
            return .implicit(parameters)
        default:
            guard let code = parameters["code"], !code.isEmpty else {
                throw OAuthError(code: .invalidCallback, message: "the authorization response has no code")
            }
            return .code(code)
        }
    }

    /// The error the response carries, if it is an error response.
    private func serverError(_ parameters: [String: String]) -> OAuthServerError? {
        parameters["error"].map { error in
            OAuthServerError(
                code: .init(rawValue: error), rawDescription: parameters["error_description"],
                uri: parameters["error_uri"].flatMap(URL.init(string:)).flatMap { $0.scheme == "https" ? $0 : nil },
                endpoint: .authorization)
        }
    }

    /// The response's parameters: the fragment for the implicit flow, else the query.
    private func response(_ parameters: CallbackParameters) -> [String: String] {
        responseType == .token ? parameters.fragment : parameters.query
    }
}

extension String {
    /// The string as ``UntrustedText`` shows it, bounded to 200 characters: for a value from the
    /// network that goes into a message.
    var safeForDisplay: String { UntrustedText(self).displayed(limit: 200) }
}
