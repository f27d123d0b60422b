import Foundation

/// Why a sign-in, token request or other OAuth operation failed.
///
/// Match on ``code``; the other properties carry details where the code has them. The
/// ``message`` is for people and never contains a token, code, verifier, secret or query string.
///
/// ```swift
/// do {
///     let tokens = try await client.signIn()
/// } catch let error where error.code == .server && error.serverError?.code == .accessDenied {
///     print("You declined; nothing was changed.")
/// } catch let error where error.code == .session && error.sessionError?.code == .canceledLogin {
///     print("Sign-in cancelled (\(error.sessionError?.cancellationReason.map(String.init(describing:)) ?? "")).")
/// }
/// ```
public struct OAuthError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: Code
    /// A description for people, safe to log.
    public var message: String
    /// The server's error response, for ``Code/server``.
    public var serverError: OAuthServerError?
    /// Which check the ID token failed, for ``Code/invalidIDToken``.
    public var idTokenProblem: IDTokenProblem?
    /// The web authentication session's error, for ``Code/session``.
    public var sessionError: WebAuthenticationSessionError?
    /// The transport's error, for ``Code/transportFailed``, ``Code/timedOut`` and
    /// ``Code/responseTooLarge``.
    public var transportError: HTTPTransportError?

    /// Creates an error.
    public init(
        code: Code, message: String, serverError: OAuthServerError? = nil, idTokenProblem: IDTokenProblem? = nil,
        sessionError: WebAuthenticationSessionError? = nil, transportError: HTTPTransportError? = nil
    ) {
        self.code = code
        self.message = message
        self.serverError = serverError
        self.idTokenProblem = idTokenProblem
        self.sessionError = sessionError
        self.transportError = transportError
    }

    /// The code and message.
    public var description: String { "\(code): \(message)" }

    /// The kinds of failure. New kinds may be added; match with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code's name.
        public var description: String { name }

        /// The browser session failed or was cancelled; see ``OAuthError/sessionError``.
        public static let session = Code("session")
        /// The server answered with an OAuth error response; see ``OAuthError/serverError``.
        public static let server = Code("server")
        /// The authorization response's `state` was missing or not the one sent.
        public static let stateMismatch = Code("stateMismatch")
        /// The authorization response's `iss` (RFC 9207) was not the expected issuer.
        public static let issuerMismatch = Code("issuerMismatch")
        /// The authorization response had no `iss` although the server's metadata promises one.
        public static let issuerMissing = Code("issuerMissing")
        /// The authorization response had neither a code nor an error, or something it must not.
        public static let invalidCallback = Code("invalidCallback")
        /// An access token arrived in a URL's query, where it leaks into logs and history.
        public static let tokenInQuery = Code("tokenInQuery")
        /// The ID token failed validation; see ``OAuthError/idTokenProblem``.
        public static let invalidIDToken = Code("invalidIDToken")
        /// The UserInfo response's `sub` differs from the ID token's.
        public static let userInfoSubjectMismatch = Code("userInfoSubjectMismatch")
        /// A response was not the JSON (or form) it should be, or lacked a required member.
        public static let invalidResponse = Code("invalidResponse")
        /// An endpoint answered with an HTTP status that is neither success nor an OAuth error.
        public static let unexpectedStatus = Code("unexpectedStatus")
        /// The request could not be sent or the response not received.
        public static let transportFailed = Code("transportFailed")
        /// An endpoint did not answer in time.
        public static let timedOut = Code("timedOut")
        /// An endpoint's response was larger than allowed.
        public static let responseTooLarge = Code("responseTooLarge")
        /// The discovery document or JWKS was unusable (wrong issuer, missing endpoints, …).
        public static let invalidMetadata = Code("invalidMetadata")
        /// An endpoint URL is neither `https` nor `http` to a loopback address.
        public static let insecureEndpoint = Code("insecureEndpoint")
        /// The provider has no endpoint for this operation (revocation, UserInfo, device flow).
        public static let endpointUnavailable = Code("endpointUnavailable")
        /// The client configuration is incomplete or contradictory.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A refresh was asked for, but there is no refresh token.
        public static let noRefreshToken = Code("noRefreshToken")
        /// The device code expired before the person approved (RFC 8628 `expired_token`, or
        /// `expires_in` passed).
        public static let deviceCodeExpired = Code("deviceCodeExpired")
    }
}

/// The ID token check that failed (OpenID Connect Core §3.1.3.7, §12.2).
public struct IDTokenProblem: Sendable, Hashable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The check's name.
    public var description: String { name }

    /// Not a compact JWS with a JSON header and payload.
    public static let malformed = IDTokenProblem("malformed")
    /// `alg` is `none`, an HMAC algorithm without a client secret, or one this client never accepts.
    public static let forbiddenAlgorithm = IDTokenProblem("forbiddenAlgorithm")
    /// `alg` is a real algorithm but not one this client expects.
    public static let unexpectedAlgorithm = IDTokenProblem("unexpectedAlgorithm")
    /// No key in the JWKS matches the token's `kid` and `alg`, even after re-fetching it once.
    public static let unknownKey = IDTokenProblem("unknownKey")
    /// The signature does not verify.
    public static let badSignature = IDTokenProblem("badSignature")
    /// `iss` is not the provider's issuer.
    public static let wrongIssuer = IDTokenProblem("wrongIssuer")
    /// `aud` is missing or does not contain the client ID.
    public static let wrongAudience = IDTokenProblem("wrongAudience")
    /// `aud` names other audiences and `azp` is missing or not the client ID.
    public static let untrustedAudience = IDTokenProblem("untrustedAudience")
    /// `exp` is missing or past, beyond the allowed leeway.
    public static let expired = IDTokenProblem("expired")
    /// `iat` is missing, or later than now beyond the allowed leeway.
    public static let badIssuedAt = IDTokenProblem("badIssuedAt")
    /// `nbf` is later than now beyond the allowed leeway.
    public static let notYetValid = IDTokenProblem("notYetValid")
    /// A time claim (`exp`, `iat`, `nbf`, `auth_time`) is not a finite number of seconds
    /// between 1970 and the end of 9999.
    public static let badTime = IDTokenProblem("badTime")
    /// `sub` is missing or empty.
    public static let missingSubject = IDTokenProblem("missingSubject")
    /// A `nonce` was sent and the token's is missing or different.
    public static let wrongNonce = IDTokenProblem("wrongNonce")
    /// A refreshed ID token's `iss` or `sub` differs from the original's.
    public static let identityChanged = IDTokenProblem("identityChanged")
}
