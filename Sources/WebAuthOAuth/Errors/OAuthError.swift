// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a sign-in, token request or other OAuth operation failed.
///
/// Match on ``code``; the other properties carry details where the code has them. The
/// ``message`` is for people and never contains a token, code, verifier, secret or query string.
///
/// ```swift
/// do {
///     let tokens = try await client.signIn()  // WebAuthSignIn
/// } catch let error where error.code == .server && error.serverError?.code == .accessDenied {
///     print("You declined; nothing was changed.")
/// } catch let error where error.code == .session && error.sessionError?.code == .canceledLogin {
///     print("Sign-in cancelled (\(error.sessionError?.cancellationReason.map(String.init(describing:)) ?? "")).")
/// }
/// ```
public struct OAuthError: WebAuthError {
    /// What kind of failure this is.
    public let code: Code
    /// A description for people, safe to log.
    public let message: String
    /// The server's error response, for ``Code/server``. For ``Code/issuerMissing``, the error
    /// an authorization response without `iss` says, unverified: it may come from another server.
    public let serverError: OAuthServerError?
    /// Which check the ID token failed, for ``Code/invalidIDToken``.
    public let idTokenProblem: IDTokenProblem?
    /// The web authentication session's error, for ``Code/session``.
    public let sessionError: WebAuthenticationSessionError?
    /// The transport's error, for ``Code/transportFailed``, ``Code/timedOut`` and
    /// ``Code/responseTooLarge``.
    public let transportError: HTTPTransportError?
    /// The HTTP status of the answer, for ``Code/unexpectedStatus``.
    public let httpStatus: Int?

    /// Creates an error.
    public init(
        code: Code, message: String, serverError: OAuthServerError? = nil, idTokenProblem: IDTokenProblem? = nil,
        sessionError: WebAuthenticationSessionError? = nil, transportError: HTTPTransportError? = nil,
        httpStatus: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.serverError = serverError
        self.idTokenProblem = idTokenProblem
        self.sessionError = sessionError
        self.transportError = transportError
        self.httpStatus = httpStatus
    }

    /// The kinds of failure. New kinds may be added; match with `==`.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `stateMismatch`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The browser session failed or was cancelled; see ``OAuthError/sessionError``.
        public static let session = Code(rawValue: "session")
        /// The server answered with an OAuth error response; see ``OAuthError/serverError``.
        public static let server = Code(rawValue: "server")
        /// The authorization response's `state` was missing or not the one sent.
        public static let stateMismatch = Code(rawValue: "stateMismatch")
        /// The authorization response's `iss` (RFC 9207) was not the expected issuer.
        public static let issuerMismatch = Code(rawValue: "issuerMismatch")
        /// The authorization response had no `iss` although the server's metadata promises one.
        public static let issuerMissing = Code(rawValue: "issuerMissing")
        /// The authorization response had neither a code nor an error, or something it must not.
        public static let invalidCallback = Code(rawValue: "invalidCallback")
        /// An access token arrived in a URL's query, where it leaks into logs and history.
        public static let tokenInQuery = Code(rawValue: "tokenInQuery")
        /// The ID token failed validation; see ``OAuthError/idTokenProblem``.
        public static let invalidIDToken = Code(rawValue: "invalidIDToken")
        /// The UserInfo response's `sub` differs from the ID token's.
        public static let userInfoSubjectMismatch = Code(rawValue: "userInfoSubjectMismatch")
        /// A response was not the JSON (or form) it should be, or lacked a required member.
        public static let invalidResponse = Code(rawValue: "invalidResponse")
        /// An endpoint answered with an HTTP status that is neither success nor an OAuth error.
        public static let unexpectedStatus = Code(rawValue: "unexpectedStatus")
        /// The request could not be sent or the response not received.
        public static let transportFailed = Code(rawValue: "transportFailed")
        /// An endpoint did not answer in time.
        public static let timedOut = Code(rawValue: "timedOut")
        /// An endpoint's response was larger than allowed.
        public static let responseTooLarge = Code(rawValue: "responseTooLarge")
        /// The discovery document or JWKS was unusable (wrong issuer, missing endpoints, …).
        public static let invalidMetadata = Code(rawValue: "invalidMetadata")
        /// An endpoint URL is neither `https` nor `http` to a loopback address.
        public static let insecureEndpoint = Code(rawValue: "insecureEndpoint")
        /// The provider has no endpoint for this operation (revocation, UserInfo, device flow,
        /// ending the session).
        public static let endpointUnavailable = Code(rawValue: "endpointUnavailable")
        /// The client configuration is incomplete or contradictory.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// A refresh was asked for, but there is no refresh token.
        public static let noRefreshToken = Code(rawValue: "noRefreshToken")
        /// The device code expired before the person approved (RFC 8628 `expired_token`, or
        /// `expires_in` passed).
        public static let deviceCodeExpired = Code(rawValue: "deviceCodeExpired")
        /// A resource server redirected where the request may not follow: from https to http,
        /// to http on another machine, or past the limit of redirects (see ``ResourceClient``).
        public static let redirectRefused = Code(rawValue: "redirectRefused")
        /// DPoP was asked for, but the token endpoint issued a token of another type (a
        /// downgrade to `Bearer`), and the configuration does not allow that
        /// (``ClientConfiguration/allowsDPoPDowngrade``).
        public static let dpopDowngraded = Code(rawValue: "dpopDowngraded")
        /// The tokens are DPoP-bound but their key is not at hand (an ephemeral key does not
        /// outlive its program): sign in again.
        public static let dpopKeyMissing = Code(rawValue: "dpopKeyMissing")
        /// The pushed authorization request's `request_uri` expired before the browser could
        /// open it, even after a fresh push (RFC 9126 §2.2).
        public static let pushedRequestExpired = Code(rawValue: "pushedRequestExpired")
        /// Ending the provider's session needs the ID token as `id_token_hint`, and the tokens
        /// have none (the sign-in was not OpenID Connect, or the provider sent no ID token).
        public static let noIDToken = Code(rawValue: "noIDToken")
        /// The registration endpoint (RFC 7591 §3) wants an initial access token, and none was
        /// given: the provider's administrator hands them out.
        public static let initialAccessTokenRequired = Code(rawValue: "initialAccessTokenRequired")
        /// The registration endpoint refused the initial access token given (expired, used up,
        /// or not one of its own).
        public static let initialAccessTokenRefused = Code(rawValue: "initialAccessTokenRefused")
        /// The registration's management endpoint (RFC 7592) no longer knows the client or its
        /// registration access token: it was deleted, expired or replaced.
        public static let registrationUnknown = Code(rawValue: "registrationUnknown")
    }
}

/// The ID token check that failed (OpenID Connect Core §3.1.3.7, §12.2).
public struct IDTokenProblem: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The check's name, such as `wrongAudience`.
    public let rawValue: String
    /// Creates a problem from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The check's name.
    public var description: String { rawValue }

    /// Not a compact JWS with a JSON header and payload.
    public static let malformed = IDTokenProblem(rawValue: "malformed")
    /// `alg` is `none`, an HMAC algorithm without a client secret, or one this client never accepts.
    public static let forbiddenAlgorithm = IDTokenProblem(rawValue: "forbiddenAlgorithm")
    /// `alg` is a real algorithm but not one this client expects.
    public static let unexpectedAlgorithm = IDTokenProblem(rawValue: "unexpectedAlgorithm")
    /// No key in the JWKS matches the token's `kid` and `alg`, even after re-fetching it once.
    public static let unknownKey = IDTokenProblem(rawValue: "unknownKey")
    /// The signature does not verify.
    public static let badSignature = IDTokenProblem(rawValue: "badSignature")
    /// `iss` is not the provider's issuer.
    public static let wrongIssuer = IDTokenProblem(rawValue: "wrongIssuer")
    /// `aud` is missing or does not contain the client ID.
    public static let wrongAudience = IDTokenProblem(rawValue: "wrongAudience")
    /// `aud` names other audiences and `azp` is missing or not the client ID.
    public static let untrustedAudience = IDTokenProblem(rawValue: "untrustedAudience")
    /// `exp` is missing or past, beyond the allowed leeway.
    public static let expired = IDTokenProblem(rawValue: "expired")
    /// `iat` is missing, or later than now beyond the allowed leeway.
    public static let badIssuedAt = IDTokenProblem(rawValue: "badIssuedAt")
    /// `nbf` is later than now beyond the allowed leeway.
    public static let notYetValid = IDTokenProblem(rawValue: "notYetValid")
    /// A time claim (`exp`, `iat`, `nbf`, `auth_time`) is not a finite number of seconds
    /// between 1970 and the end of 9999.
    public static let badTime = IDTokenProblem(rawValue: "badTime")
    /// `sub` is missing or empty.
    public static let missingSubject = IDTokenProblem(rawValue: "missingSubject")
    /// A `nonce` was sent and the token's is missing or different.
    public static let wrongNonce = IDTokenProblem(rawValue: "wrongNonce")
    /// A refreshed ID token's `iss` or `sub` differs from the original's.
    public static let identityChanged = IDTokenProblem(rawValue: "identityChanged")
    /// The provider is multi-tenant and the token carries no usable `tid`.
    public static let missingTenant = IDTokenProblem(rawValue: "missingTenant")
    /// The token's `tid` is not one of ``ClientConfiguration/allowedTenants``.
    public static let tenantNotAllowed = IDTokenProblem(rawValue: "tenantNotAllowed")
}
