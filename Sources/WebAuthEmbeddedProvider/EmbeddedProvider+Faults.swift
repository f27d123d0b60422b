// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

// The faults here are the ones an honest provider shows (slow, an error answer, a broken or
// garbled response, unexpected claims). The forgeries a client's security checks are tested
// against (a wrong `iss` or `state`, `alg: none`, a signature that does not verify…) are in
// EmbeddedProvider+Forgeries.swift.
extension EmbeddedProvider {
    /// The provider's endpoints, by path.
    public enum Endpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// OpenID Connect Discovery: `/.well-known/openid-configuration`.
        case openIDConfiguration = "/.well-known/openid-configuration"
        /// RFC 8414 metadata: `/.well-known/oauth-authorization-server`.
        case authorizationServerMetadata = "/.well-known/oauth-authorization-server"
        /// The authorization endpoint: `/authorize`.
        case authorization = "/authorize"
        /// Where the login form posts: `/login`.
        case login = "/login"
        /// Where the consent form posts: `/consent`.
        case consent = "/consent"
        /// The token endpoint: `/token`.
        case token = "/token"
        /// The UserInfo endpoint: `/userinfo`.
        case userInfo = "/userinfo"
        /// The JSON Web Key Set: `/jwks`.
        case jwks = "/jwks"
        /// The revocation endpoint (RFC 7009): `/revoke`.
        case revocation = "/revoke"
        /// The device authorization endpoint (RFC 8628): `/device_authorization`.
        case deviceAuthorization = "/device_authorization"
        /// The device verification page, where the person enters the user code: `/device`.
        case deviceVerification = "/device"
        /// The pushed authorization request endpoint (RFC 9126): `/par`.
        case pushedAuthorization = "/par"
        /// The end-session endpoint (OpenID Connect RP-Initiated Logout 1.0): `/end_session`.
        case endSession = "/end_session"
        /// The client registration endpoint (RFC 7591): `/register`; a registration's own
        /// `registration_client_uri` (RFC 7592) is below it, `/register/{client_id}`.
        case registration = "/register"

        /// The path, such as `/token`.
        public var path: String { rawValue }

        /// The path.
        public var description: String { rawValue }

        /// Whether the endpoint answers with HTML pages for a person (else JSON for programs).
        var isPage: Bool {
            switch self {
            case .authorization, .login, .consent, .deviceVerification, .endSession: true
            default: false
            }
        }
    }

    /// A fault an endpoint shows, for testing how a client copes: a delay before answering,
    /// an error response, a body that is not JSON, or a connection closed mid-response.
    ///
    /// ```swift
    /// provider.setFault(.delay(.seconds(30)), for: .token)                 // the client times out
    /// provider.setFault(.error("temporarily_unavailable", status: 503), for: .token)
    /// provider.setFault(.garbageBody.times(1), for: .jwks)                 // once, then normal
    /// provider.setFault(.closedMidResponse, for: .token)                  // the answer breaks off
    /// provider.setFault(nil, for: .token)                                  // back to normal
    /// ```
    public struct Fault: Sendable, Hashable, CustomStringConvertible {
        /// What the endpoint answers while the fault is set.
        public enum Answer: Sendable, Hashable {
            /// The endpoint's normal answer (with the fault's delay, if any).
            case normal
            /// An RFC 6749 error response: JSON `{"error", "error_description"}` with `status`
            /// from a JSON endpoint; from `/authorize`, once the client and redirect URI check
            /// out, a redirect carrying `error`, `error_description`, `state` and `iss`; from
            /// the other pages, an error page with `status`.
            case error(status: Int, error: String, description: String?)
            /// `200 OK` with `Content-Type: application/json` and a `Content-Length` announcing
            /// more body than follows: the connection closes after the first bytes of it, as when
            /// a server or a proxy in front of it dies while answering. The request has no effect
            /// (a code is not used up, a token not issued or rotated).
            case closedMidResponse
            /// `200 OK` with `Content-Type: application/json` and a body that is not JSON.
            case garbage
            /// Exactly this status, `Content-Type` and body, whatever the request: what a
            /// broken server, or a proxy or login wall in front of it, sends instead of the
            /// endpoint's answer. The request has no effect.
            case fixed(status: Int, contentType: String, body: String)
            /// The connection closes without a byte of answer. The request has no effect.
            case closedWithoutAnswer
        }

        /// How long the endpoint waits before it even looks at the request. The request has
        /// no effect while it waits (a code is not used up, a token not issued); when the wait
        /// ends it is handled as a slow server would, even if the client gave up meanwhile —
        /// unless the provider has been shut down.
        public var delay: Duration
        /// What the endpoint answers.
        public var answer: Answer
        /// How many more requests the fault applies to; `nil` for every request until it is
        /// removed.
        public var remaining: Int?

        /// Creates a fault.
        public init(delay: Duration = .zero, answer: Answer = .normal, remaining: Int? = nil) {
            self.delay = delay
            self.answer = answer
            self.remaining = remaining
        }

        /// Waits `delay`, then answers normally.
        public static func delay(_ delay: Duration) -> Fault { Fault(delay: delay) }

        /// Answers with the RFC 6749 error `error` (such as `server_error`), its description,
        /// and `status` (default 400).
        public static func error(_ error: String, description: String? = nil, status: Int = 400) -> Fault {
            Fault(answer: .error(status: status, error: error, description: description))
        }

        /// Answers `200 OK` with a body that is not JSON.
        public static let garbageBody = Fault(answer: .garbage)

        /// Starts a `200 OK` answer and closes the connection partway through its body.
        public static let closedMidResponse = Fault(answer: .closedMidResponse)

        /// Closes the connection without answering at all.
        public static let closedWithoutAnswer = Fault(answer: .closedWithoutAnswer)

        /// Answers exactly `status`, `contentType` and `body` instead of the endpoint's answer,
        /// such as `.answer(503, body: "<html>down</html>", contentType: "text/html")`.
        public static func answer(_ status: Int, body: String = "", contentType: String = "application/json") -> Fault {
            Fault(answer: .fixed(status: status, contentType: contentType, body: body))
        }

        /// Answers `200 OK` with an HTML page (`text/html`) where JSON belongs, as a login
        /// wall or a captive portal does.
        public static let htmlInsteadOfJSON = answer(
            200, body: "<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>",
            contentType: "text/html; charset=utf-8")

        /// Answers `200 OK` with a JSON content type and an empty body.
        public static let emptyBody = answer(200)

        /// Answers `200 OK` with a JSON array where a JSON object belongs.
        public static let jsonArray = answer(200, body: #"["access_token", "abc"]"#)

        /// Answers `200 OK` with a valid JSON object of `byteCount` bytes (default 2 MiB):
        /// for testing that a client bounds what it reads.
        public static func oversizedBody(byteCount: Int = 2 << 20) -> Fault {
            let prefix = #"{"padding":""#
            let suffix = #""}"#
            let padding = String(repeating: "a", count: max(0, byteCount - prefix.utf8.count - suffix.utf8.count))
            return answer(200, body: prefix + padding + suffix)
        }

        /// The same fault for the next `count` requests only; then the endpoint is normal again.
        public func times(_ count: Int) -> Fault {
            var copy = self
            copy.remaining = max(count, 0)
            return copy
        }

        /// The same fault, waiting `delay` first.
        public func delayed(by delay: Duration) -> Fault {
            var copy = self
            copy.delay = delay
            return copy
        }

        /// The answer, the delay and how many requests are left.
        public var description: String {
            var parts: [String] = []
            switch answer {
            case .normal: break
            case .error(let status, let error, _): parts.append("error \(error) (HTTP \(status))")
            case .garbage: parts.append("garbage body")
            case .closedMidResponse: parts.append("closed mid-response")
            case .fixed(let status, let contentType, let body):
                parts.append("HTTP \(status) \(contentType), \(body.utf8.count) bytes")
            case .closedWithoutAnswer: parts.append("closed without answer")
            }
            if delay > .zero { parts.append("delay \(delay)") }
            if let remaining { parts.append("\(remaining) more") }
            return "Fault(" + (parts.isEmpty ? "none" : parts.joined(separator: ", ")) + ")"
        }
    }

    /// Changes to the claims of the ID tokens the provider issues — "wrong claims" for testing
    /// a client's ID token validation. `nil` members leave the claim as it would be.
    ///
    /// ```swift
    /// provider.overrideIDTokenClaims(.init(audience: ["someone-else"]))     // wrong aud
    /// provider.overrideIDTokenClaims(.init(lifetime: .seconds(-600)))      // already expired
    /// provider.overrideIDTokenClaims(.init(removedClaims: ["nonce"]))      // nonce missing
    /// provider.overrideIDTokenClaims(nil)                                  // correct again
    /// ```
    public struct IDTokenClaimOverrides: Sendable, Hashable {
        /// `iss` instead of the issuer.
        public var issuer: String?
        /// `sub` instead of the user's subject.
        public var subject: String?
        /// `aud` instead of `[client_id]`.
        public var audience: [String]?
        /// `azp` instead of the client ID.
        public var authorizedParty: String?
        /// `nonce` instead of the one the client sent.
        public var nonce: String?
        /// `tid` instead of the tenant (or added, for a provider that is not multi-tenant).
        public var tenantID: String?
        /// `exp` as `iat` plus this (negative: the token has already expired), instead of the
        /// configured ID token lifetime.
        public var lifetime: Duration?
        /// `iat` as now plus this (positive: issued in the future), instead of now.
        public var issuedAtOffset: Duration?
        /// Claims left out altogether, by name (`iss`, `sub`, `aud`, `exp`, `iat`, `nonce`,
        /// `azp`, `auth_time`, …).
        public var removedClaims: Set<String>
        /// More string claims, by name, such as a `groups` claim of 9,000 characters; a name
        /// the provider already sets keeps the provider's value.
        public var additionalClaims: [String: String]

        /// Creates overrides; leave out what should stay correct.
        public init(
            issuer: String? = nil, subject: String? = nil, audience: [String]? = nil, authorizedParty: String? = nil,
            nonce: String? = nil, lifetime: Duration? = nil, issuedAtOffset: Duration? = nil,
            removedClaims: Set<String> = [], tenantID: String? = nil, additionalClaims: [String: String] = [:]
        ) {
            self.additionalClaims = additionalClaims
            self.issuer = issuer
            self.tenantID = tenantID
            self.subject = subject
            self.audience = audience
            self.authorizedParty = authorizedParty
            self.nonce = nonce
            self.lifetime = lifetime
            self.issuedAtOffset = issuedAtOffset
            self.removedClaims = removedClaims
        }
    }

    /// One request the provider answered, as its log keeps it: never a query, a body, a
    /// header value, a token, a code or a password.
    public struct LoggedRequest: Sendable, Hashable, CustomStringConvertible {
        /// The method, such as `POST`.
        public var method: String
        /// The path, such as `/token`.
        public var path: String
        /// The endpoint at that path; `nil` for a path the provider does not serve.
        public var endpoint: Endpoint?
        /// The status answered.
        public var status: Int
        /// For the token endpoint: the `grant_type` sent, if it was a known one.
        public var grantType: String?
        /// The RFC 6749 `error` code answered (in the body or in the redirect), if any.
        public var error: String?
        /// When the request arrived.
        public var receivedAt: Date
        /// For a form a client posted to the token, revocation, device authorization or pushed
        /// authorization endpoint: how the client presented itself, by the method's registered
        /// name (RFC 7591 §2) — `client_secret_basic` (an HTTP Basic `Authorization`),
        /// `client_secret_post` (a `client_secret` in the form) or `none` (a `client_id`
        /// alone) — whether or not the credentials were right. `nil` for other requests. The
        /// name only, never a credential.
        public var clientAuthentication: String?
        /// For the revocation endpoint: the `token_type_hint` sent, if it was `access_token` or
        /// `refresh_token` (RFC 7009 §2.1). Tells which kind of token a client revoked, and in
        /// what order, without the token.
        public var tokenTypeHint: String?

        /// Creates an entry; the provider makes these, tests read them.
        public init(
            method: String, path: String, endpoint: Endpoint?, status: Int, grantType: String? = nil,
            error: String? = nil, receivedAt: Date = Date(), clientAuthentication: String? = nil,
            tokenTypeHint: String? = nil
        ) {
            self.method = method
            self.path = path
            self.endpoint = endpoint
            self.status = status
            self.grantType = grantType
            self.error = error
            self.receivedAt = receivedAt
            self.clientAuthentication = clientAuthentication
            self.tokenTypeHint = tokenTypeHint
        }

        /// Such as `POST /token 400 (refresh_token, invalid_grant)`.
        public var description: String {
            let details = [grantType, error].compactMap { $0 }
            return "\(method) \(path) \(status)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
        }
    }
}
