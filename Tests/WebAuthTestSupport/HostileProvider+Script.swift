import Foundation
import HTTPTypes
import Synchronization
import WebAuthTesting

extension HostileProvider {
    /// Everything about how the provider behaves; change it at any time with
    /// ``HostileProvider/script(_:)``. The defaults are a well-behaved, strict OpenID provider:
    /// PKCE `S256` required, `iss` in authorization responses (RFC 9207), one-time codes,
    /// rotating refresh tokens, `RS256` ID tokens with the nonce of the authorization request.
    package struct Script: Sendable {
        /// The subject (`sub`) the provider signs in.
        package var subject = "user-1234"
        /// The discovery documents.
        package var metadata = Metadata()
        /// `/authorize`.
        package var authorize = Authorize()
        /// `/token`: codes, refresh tokens, client authentication.
        package var token = Token()
        /// The ID token in token responses.
        package var idToken = IDToken()
        /// `/jwks`.
        package var jwks = JWKS()
        /// `/userinfo`.
        package var userInfo = UserInfo()
        /// `/device_authorization` and device-code polling at `/token`.
        package var device = Device()
        /// Fault switches by endpoint: applied before the endpoint's own logic.
        package var faults: [Endpoint: Fault] = [:]

        /// The default script.
        package init() {}
    }

    /// The provider's endpoints, for fault switches and the request log.
    package enum Endpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `/.well-known/openid-configuration`.
        case openIDConfiguration = "/.well-known/openid-configuration"
        /// `/.well-known/oauth-authorization-server` (RFC 8414).
        case authorizationServerMetadata = "/.well-known/oauth-authorization-server"
        /// `/authorize`.
        case authorize = "/authorize"
        /// `/token`.
        case token = "/token"
        /// `/jwks`.
        case jwks = "/jwks"
        /// `/userinfo`.
        case userInfo = "/userinfo"
        /// `/revoke` (RFC 7009).
        case revocation = "/revoke"
        /// `/device_authorization` (RFC 8628).
        case deviceAuthorization = "/device_authorization"
        /// `/device`: the verification page a person would open.
        case deviceVerification = "/device"

        /// The path.
        package var path: String { rawValue }
        /// The path.
        package var description: String { rawValue }
    }

    /// A fault switch: the endpoint answers with a fixed response instead of its own, and/or
    /// late.
    ///
    /// ```swift
    /// $0.faults[.token] = .garbageJSON
    /// $0.faults[.token] = .delay(.seconds(5))                       // the real answer, late
    /// $0.faults[.jwks] = .status(503, body: "<html>down</html>", contentType: "text/html")
    /// $0.faults[.userInfo] = .oversized()                           // 2 MiB of JSON
    /// $0.faults[.token] = Fault.status(500, body: "").times(1)      // once, then normal
    /// ```
    package struct Fault: Sendable {
        /// The answer instead of the endpoint's own; `nil` keeps the endpoint's own answer.
        package var response: ServerResponse?
        /// How long to wait before answering (added to the response's own delay).
        package var delay: Duration
        /// A gate the answer waits for (at most 30 seconds), for tests that must act while a
        /// request is held.
        package var gate: Gate?
        /// How many more requests the fault applies to; `nil` for all.
        package var remaining: Int?

        /// A fault.
        package init(response: ServerResponse? = nil, delay: Duration = .zero, gate: Gate? = nil, remaining: Int? = nil)
        {
            self.response = response
            self.delay = delay
            self.gate = gate
            self.remaining = remaining
        }

        /// The same fault for the next `count` requests only.
        package func times(_ count: Int) -> Fault {
            var copy = self
            copy.remaining = count
            return copy
        }

        /// The endpoint's own answer, `duration` late.
        package static func delay(_ duration: Duration) -> Fault { Fault(delay: duration) }

        /// The endpoint's own answer once `gate` opens.
        package static func hold(until gate: Gate) -> Fault { Fault(gate: gate) }

        /// A fixed status and body.
        package static func status(
            _ status: Int, body: String = "", contentType: String = "application/json"
        ) -> Fault {
            Fault(
                response: ServerResponse(
                    status: status, headerFields: [.contentType: contentType],
                    body: Array(body.utf8)))
        }

        /// `200` with a JSON content type and a body that is not JSON (cut off mid-object).
        package static let garbageJSON = status(200, body: #"{"access_token": "abc", "token_type": "#)
        /// `200` with a JSON content type and an HTML page as the body.
        package static let htmlInsteadOfJSON = Fault(
            response: ServerResponse.html("<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>"))
        /// `200` with an empty body.
        package static let emptyBody = status(200, body: "")
        /// A JSON array where an object belongs.
        package static let jsonArray = status(200, body: #"["access_token", "abc"]"#)

        /// `200` with a valid JSON object of `size` bytes (default 2 MiB).
        package static func oversized(size: Int = 2 << 20) -> Fault {
            let prefix = #"{"padding":""#
            let suffix = #""}"#
            let padding = String(repeating: "a", count: max(0, size - prefix.utf8.count - suffix.utf8.count))
            return status(200, body: prefix + padding + suffix)
        }

        /// `200` with a body bigger than its `Content-Length` says, or exactly the given bytes:
        /// whatever arrives on the wire.
        package static func raw(_ bytes: [UInt8]) -> Fault { Fault(response: .raw(bytes, status: 0)) }

        /// The connection closes without any answer.
        package static let closeWithoutAnswer = raw([])
    }

    /// A latch a held request waits on; a test opens it.
    ///
    /// ```swift
    /// let gate = HostileProvider.Gate()
    /// provider.script { $0.faults[.authorize] = .hold(until: gate) }
    /// // … the browser's request to /authorize is now held; act meanwhile …
    /// gate.open()
    /// ```
    package final class Gate: Sendable {
        private let state = Mutex(GateState())

        /// A closed gate.
        package init() {}

        /// Whether the gate is open.
        package var isOpen: Bool { state.withLock { $0.isOpen } }

        /// How many requests are waiting at the gate now.
        package var waitingCount: Int { state.withLock { $0.waiters.count } }

        /// Opens the gate: held requests proceed, later ones do not wait.
        package func open() {
            let waiters = state.withLock { state in
                state.isOpen = true
                defer { state.waiters = [:] }
                return state.waiters
            }
            for waiter in waiters.values { waiter.resume() }
        }

        /// Waits until the gate is open, `timeout` has passed or the task is cancelled.
        package func wait(timeout: Duration = .seconds(30)) async {
            _ = await withDeadline(timeout) { await self.waitUntilOpen() }
        }

        private func waitUntilOpen() async {
            let id = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state in
                        if state.isOpen || state.cancelled.remove(id) != nil { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                    state.cancelled.insert(id)
                    return nil
                }
                waiter?.resume()
            }
        }
    }

    /// The discovery documents (`/.well-known/openid-configuration` and RFC 8414
    /// `/.well-known/oauth-authorization-server` serve the same one).
    ///
    /// ```swift
    /// $0.metadata["issuer"] = "https://evil.example"
    /// $0.metadata["authorization_response_iss_parameter_supported"] = false
    /// $0.metadata.remove("jwks_uri")                                  // missing endpoint
    /// ```
    package struct Metadata: Sendable {
        /// Members changed by the script: a value replaces the default, `nil` removes it.
        package var changes: [String: JSONValue?] = [:]

        /// Metadata with the defaults.
        package init() {}

        /// The changed value of `member`: setting a value replaces the default; setting `nil`
        /// restores the default (use ``remove(_:)`` to leave the member out).
        package subscript(member: String) -> JSONValue? {
            get { changes[member] ?? nil }
            set {
                if let newValue { changes[member] = .some(newValue) } else { changes.removeValue(forKey: member) }
            }
        }

        /// Leaves `member` out of the document.
        package mutating func remove(_ member: String) {
            changes[member] = .some(nil)
        }
    }

    /// How `/authorize` answers.
    package struct Authorize: Sendable {
        /// What the redirect carries.
        package var response = Response.code
        /// Where the response parameters go; `nil`: the query for a code or an error, the
        /// fragment for tokens.
        package var responseMode: ResponseMode?
        /// The `state` in the response.
        package var state = StateValue.echo
        /// The `iss` in the response (RFC 9207).
        package var issuer = IssuerValue.automatic
        /// More parameters for the response.
        package var extraParameters: [URLQueryItem] = []
        /// Where to redirect instead of the request's `redirect_uri`.
        package var redirectTarget: String?
        /// Whether a request without a PKCE `code_challenge` is refused (`invalid_request`).
        package var requirePKCE = true
        /// Whether `code_challenge_method=plain` is accepted (else `invalid_request`).
        package var allowPlainPKCE = false

        /// The default: a code with the state, `iss` as the metadata promises.
        package init() {}

        /// What the authorization response carries.
        package enum Response: Sendable, Hashable {
            /// A fresh one-time code.
            case code
            /// Tokens as the implicit flow returns them: `access_token`, `token_type`,
            /// `expires_in` (and an `id_token` when the scope has `openid`).
            case token
            /// An error response.
            case error(code: String, description: String? = nil, uri: String? = nil)
            /// Neither a code nor an error: only `state` and `iss`.
            case nothing
            /// No redirect at all: a `200` login page that never finishes.
            case loginPage
        }

        /// Where the response parameters go.
        package enum ResponseMode: Sendable, Hashable {
            /// In the redirect URI's query.
            case query
            /// In the redirect URI's fragment.
            case fragment
        }

        /// The `state` in the response.
        package enum StateValue: Sendable, Hashable {
            /// The request's `state`, as received.
            case echo
            /// No `state`.
            case absent
            /// This value.
            case value(String)
        }

        /// The `iss` in the response.
        package enum IssuerValue: Sendable, Hashable {
            /// The provider's issuer when the served metadata says
            /// `authorization_response_iss_parameter_supported: true`, else none.
            case automatic
            /// The provider's issuer, whatever the metadata says.
            case correct
            /// No `iss`.
            case absent
            /// This value.
            case value(String)
        }
    }

    /// How `/token` answers.
    package struct Token: Sendable {
        /// `expires_in` of access tokens; `nil` leaves it out.
        package var accessTokenLifetime: Int? = 3600
        /// `token_type`.
        package var tokenType = "Bearer"
        /// Whether responses carry a refresh token.
        package var issueRefreshToken = true
        /// Whether each refresh returns a new refresh token and retires the old one.
        package var rotateRefreshTokens = true
        /// `scope` in responses; `nil` echoes what was granted.
        package var scope: String?
        /// More members for successful responses (a value of `.null` is sent as `null`).
        package var extraMembers: [String: JSONValue] = [:]
        /// The client secret a confidential client must present (Basic or in the body); `nil`
        /// accepts public clients that send only `client_id`.
        package var clientSecret: String?
        /// An error every token request gets instead (after it is recorded), such as
        /// `invalid_client`.
        package var forcedError: ErrorResponse?
        /// Whether a `401` to a client that authenticated with HTTP Basic carries
        /// `WWW-Authenticate: Basic realm="hostile-provider"`, as RFC 6749 §5.2 requires.
        ///
        /// Note: FoundationNetworking's `URLSession` on Linux never completes a request whose
        /// response is a `401` with a Basic challenge unless its delegate cancels the challenge
        /// (observed with Swift 6.3.1); a transport on it runs into its own deadline instead.
        package var basicChallenge = true

        /// The default.
        package init() {}
    }

    /// An OAuth error response body (RFC 6749 §5.2) and its status.
    package struct ErrorResponse: Sendable, Hashable {
        /// `error`.
        package var code: String
        /// `error_description`.
        package var description: String?
        /// `error_uri`.
        package var uri: String?
        /// The HTTP status (400, or 401 for `invalid_client`).
        package var status: Int

        /// An error response.
        package init(code: String, description: String? = nil, uri: String? = nil, status: Int = 400) {
            self.code = code
            self.description = description
            self.uri = uri
            self.status = status
        }

        /// The JSON body.
        package var json: JSONValue {
            var members: [String: JSONValue] = ["error": .string(code)]
            if let description { members["error_description"] = .string(description) }
            if let uri { members["error_uri"] = .string(uri) }
            return .object(members)
        }
    }

    /// The ID token in token responses.
    package struct IDToken: Sendable {
        /// When a token response has one.
        package var issuance = Issuance.whenOpenIDScope
        /// How it is signed.
        package var signing = Signing.rs256
        /// Seconds from `iat` to `exp`.
        package var lifetime = 600
        /// A change to the claims after the defaults are filled in (`iss`, `sub`, `aud` = the
        /// client, `iat`, `exp`, `auth_time`, and `nonce` for the code flow).
        package var editClaims: ClaimsEditor?
        /// Exactly this text as `id_token`, instead of minting one.
        package var replacement: String?

        /// The default: an `RS256` token whenever the scope has `openid`.
        package init() {}

        /// When a token response carries an ID token.
        package enum Issuance: Sendable, Hashable {
            /// When the granted scope has `openid` (refreshes included).
            case whenOpenIDScope
            /// As ``whenOpenIDScope``, but not for refreshes.
            case notOnRefresh
            /// Always.
            case always
            /// Never.
            case never
        }
    }

    /// `/jwks`: which public keys it serves.
    package struct JWKS: Sendable {
        /// The keys served.
        package var keys: [Key] = [.rsa, .ec]
        /// A rotation: after this many fetches, ``Rotation/keys`` are served instead.
        package var rotation: Rotation?

        /// The default: ``Key/rsa`` and ``Key/ec``.
        package init() {}

        /// A key rotation at the JWKS.
        package struct Rotation: Sendable, Hashable {
            /// How many fetches see the old keys.
            package var afterFetches: Int
            /// The keys served from then on.
            package var keys: [Key]

            /// A rotation.
            package init(afterFetches: Int, keys: [Key]) {
                self.afterFetches = afterFetches
                self.keys = keys
            }
        }
    }

    /// `/userinfo`.
    package struct UserInfo: Sendable {
        /// The `sub` it answers with; `nil` for ``Script/subject``.
        package var subject: String?
        /// More claims.
        package var claims: [String: JSONValue] = ["name": "Test User", "email": "user@example.com"]
        /// Whether only access tokens the provider issued (and did not revoke) are accepted.
        package var requireValidToken = true

        /// The default.
        package init() {}
    }

    /// `/device_authorization` and device-code polling.
    package struct Device: Sendable {
        /// The answers to successive polls of one device code; the last one repeats.
        package var pollAnswers: [PollAnswer] = [.authorizationPending, .success]
        /// `interval` in seconds; `nil` leaves it out.
        package var interval: Int? = 1
        /// `expires_in` in seconds.
        package var expiresIn = 600
        /// The `user_code`.
        package var userCode = "WDJB-MJHT"
        /// Whether the response has `verification_uri_complete`.
        package var includeVerificationURIComplete = true
        /// Members that replace or add to the response's (a value of `.null` is sent as `null`),
        /// such as `"expires_in": .double(1e300)` or a hostile `verification_uri`.
        package var extraMembers: [String: JSONValue] = [:]

        /// The default: pending once, then success.
        package init() {}

        /// One answer to a device-code poll.
        package enum PollAnswer: Sendable, Hashable {
            /// `authorization_pending`.
            case authorizationPending
            /// `slow_down`.
            case slowDown
            /// Tokens.
            case success
            /// `expired_token`.
            case expiredToken
            /// `access_denied`.
            case accessDenied
            /// Another error.
            case error(ErrorResponse)
        }
    }
}

/// The state of a ``HostileProvider/Gate``.
private struct GateState: Sendable {
    var isOpen = false
    var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    /// Waiters cancelled before they registered.
    var cancelled: Set<UUID> = []
}
