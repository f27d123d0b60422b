import Crypto
import Foundation
import HTTPTypes
import Synchronization
import WebAuthTesting

/// The provider's state and endpoint logic, shared by its connections.
final class ProviderCore: Sendable {
    let state: Mutex<ProviderState>

    init(script: HostileProvider.Script) {
        state = Mutex(ProviderState(script: script))
    }

    typealias JSONValue = HostileProvider.JSONValue

    /// Answers one request: the fault switch for its endpoint first, then the endpoint.
    func handle(_ request: ServerRequest) async -> ServerResponse {
        guard let endpoint = HostileProvider.Endpoint(rawValue: request.path) else {
            return .text("not found: \(request.path)\n", status: 404)
        }
        let fault = state.withLock { state in
            if endpoint == .jwks { state.jwksFetches += 1 }
            return state.takeFault(for: endpoint)
        }
        if let gate = fault?.gate { await gate.wait() }
        var response: ServerResponse
        if let replacement = fault?.response {
            response = replacement
        } else {
            response = await answer(endpoint, request)
        }
        response.delay += fault?.delay ?? .zero
        return response
    }

    private func answer(_ endpoint: HostileProvider.Endpoint, _ request: ServerRequest) async -> ServerResponse {
        switch endpoint {
        case .openIDConfiguration, .authorizationServerMetadata:
            return .json(state.withLock { $0.metadataDocument() }.serialized)
        case .authorize:
            return await authorize(request)
        case .token:
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return await token(request)
        case .jwks:
            let keys = state.withLock { $0.servedKeys(afterFetch: $0.jwksFetches) }
            return .json(Self.jwksDocument(keys: keys).serialized)
        case .userInfo:
            return userInfo(request)
        case .revocation:
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return revoke(request)
        case .deviceAuthorization:
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return deviceAuthorization(request)
        case .deviceVerification:
            return .html("<!DOCTYPE html><html><body><p>Enter the code shown on your device.</p></body></html>")
        }
    }

    // MARK: /authorize

    private func authorize(_ request: ServerRequest) async -> ServerResponse {
        guard let redirectURI = request.queryValue("redirect_uri"), !redirectURI.isEmpty else {
            // RFC 6749 §4.1.2.1: no redirect to an unknown URI; tell the person instead.
            return .text("missing redirect_uri\n", status: 400)
        }
        let script = state.withLock { $0.script.authorize }
        if script.response == .loginPage {
            return .html("<!DOCTYPE html><html><body><form><input name=\"password\"></form></body></html>")
        }
        var parameters: [(String, String)] = []
        var pendingIDToken: (HostileProvider.Claims, HostileProvider.Signing)?
        let challenge = request.queryValue("code_challenge")
        let method = request.queryValue("code_challenge_method") ?? (challenge == nil ? nil : "plain")
        let pkceProblem: String? =
            if script.response != .code {
                nil
            } else if challenge == nil {
                script.requirePKCE ? "code_challenge is required" : nil
            } else if method == "plain" {
                script.allowPlainPKCE ? nil : "code_challenge_method plain is not allowed"
            } else if method != "S256" {
                "unsupported code_challenge_method"
            } else {
                nil
            }

        if let pkceProblem {
            parameters = [("error", "invalid_request"), ("error_description", pkceProblem)]
        } else {
            switch script.response {
            case .code:
                let code = Self.randomToken("code")
                state.withLock {
                    $0.codes[code] = CodeGrant(
                        clientID: request.queryValue("client_id"), redirectURI: redirectURI,
                        scope: request.queryValue("scope"), nonce: request.queryValue("nonce"), challenge: challenge,
                        challengeMethod: method)
                }
                parameters = [("code", code)]
            case .token:
                let scope = request.queryValue("scope")
                let accessToken = Self.randomToken("at")
                state.withLock {
                    $0.accessTokens[accessToken] = TokenGrant(
                        clientID: request.queryValue("client_id"), scope: scope, subject: $0.script.subject)
                }
                parameters = [("access_token", accessToken), ("token_type", "Bearer"), ("expires_in", "3600")]
                if let scope { parameters.append(("scope", scope)) }
                if Self.hasOpenID(scope) {
                    pendingIDToken = state.withLock {
                        $0.idTokenToMint(
                            grantType: "implicit", clientID: request.queryValue("client_id"),
                            nonce: request.queryValue("nonce"), scope: scope, isRefresh: false)
                    }
                }
            case .error(let code, let description, let uri):
                parameters = [("error", code)]
                if let description { parameters.append(("error_description", description)) }
                if let uri { parameters.append(("error_uri", uri)) }
            case .nothing, .loginPage:
                break
            }
        }
        if let pending = pendingIDToken {
            let (claims, signing) = pending
            guard let idToken = try? await HostileProvider.mint(claims, signing: signing) else {
                return .text("cannot mint an ID token with \(signing)\n", status: 500)
            }
            state.withLock { $0.mintedIDTokens.append(idToken) }
            parameters.append(("id_token", idToken))
        }

        switch script.state {
        case .echo: if let received = request.queryValue("state") { parameters.append(("state", received)) }
        case .absent: break
        case .value(let value): parameters.append(("state", value))
        }
        let issuer: String? = state.withLock { current in
            switch script.issuer {
            case .automatic:
                current.metadataDocument()["authorization_response_iss_parameter_supported"]?.boolValue == true
                    ? current.issuer : nil
            case .correct: current.issuer
            case .absent: nil
            case .value(let value): value
            }
        }
        if let issuer { parameters.append(("iss", issuer)) }
        parameters += script.extraParameters.map { ($0.name, $0.value ?? "") }

        let mode = script.responseMode ?? (script.response == .token ? .fragment : .query)
        let target = script.redirectTarget ?? redirectURI
        let location = Self.location(target, adding: parameters, in: mode)
        state.withLock { $0.authorizationRedirects.append(location) }
        return .redirect(to: location)
    }

    /// `uri` with `parameters` added to its query (or as its fragment).
    static func location(
        _ uri: String, adding parameters: [(String, String)], in mode: HostileProvider.Authorize.ResponseMode
    ) -> String {
        let encoded = FormCoding.encode(parameters)
        var base = uri
        var fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        if mode == .fragment { return base + "#" + encoded }
        guard !encoded.isEmpty else { return base + fragment }
        let separator = !base.contains("?") ? "?" : (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&")
        return base + separator + encoded + fragment
    }

    // MARK: /token

    private func token(_ request: ServerRequest) async -> ServerResponse {
        let form = request.formItems.map { URLQueryItem(name: $0.name, value: $0.value) }
        let authentication = Self.clientAuthentication(request)
        var record = HostileProvider.TokenRequestRecord(
            grantType: request.formValue("grant_type"), clientAuthentication: authentication, form: form)
        let outcome = state.withLock { state in state.tokenOutcome(request, authentication: authentication) }
        var response: ServerResponse
        switch outcome {
        case .failure(let error):
            record.error = error.code
            // RFC 6749 §5.2: a client that tried Basic gets 401 with a Basic challenge.
            let challenge: String? =
                if error.status == 401, case .basic = authentication, state.withLock({ $0.script.token.basicChallenge })
                {
                    #"Basic realm="hostile-provider""#
                } else {
                    nil
                }
            response = Self.errorResponse(error, challenge: challenge)
        case .success(var members, let idToken):
            if let pending = idToken {
                let (claims, signing) = pending
                do {
                    let minted = try await HostileProvider.mint(claims, signing: signing)
                    state.withLock { $0.mintedIDTokens.append(minted) }
                    members["id_token"] = .string(minted)
                } catch {
                    let failure = HostileProvider.ErrorResponse(
                        code: "server_error", description: "cannot mint an ID token with \(signing)", status: 500)
                    record.error = failure.code
                    state.withLock { $0.tokenRequests.append(record) }
                    return Self.errorResponse(failure)
                }
            }
            response = .json(JSONValue.object(members).serialized)
            response.headerFields.append(HTTPField(name: HTTPField.Name("Pragma")!, value: "no-cache"))
        }
        state.withLock { $0.tokenRequests.append(record) }
        return response
    }

    static func clientAuthentication(_ request: ServerRequest) -> HostileProvider.ClientAuthentication {
        let bodyID = request.formValue("client_id")
        let bodySecret = request.formValue("client_secret")
        guard let authorization = request.header("Authorization") else {
            if let bodyID, let bodySecret { return .post(clientID: bodyID, secret: bodySecret) }
            return .none(clientID: bodyID)
        }
        guard bodySecret == nil else { return .several }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1])).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        else { return .malformed }
        // RFC 6749 §2.3.1: both parts are form-encoded before joining.
        let decode = { (part: Substring) in
            part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
        }
        let id = decode(decoded[..<colon])
        if let bodyID, bodyID != id { return .several }
        return .basic(clientID: id, secret: decode(decoded[decoded.index(after: colon)...]))
    }

    // MARK: /userinfo

    private func userInfo(_ request: ServerRequest) -> ServerResponse {
        var token: String?
        if let authorization = request.header("Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { token = String(parts[1]) }
        } else if request.method == "POST" {
            token = request.formValue("access_token")
        }
        return state.withLock { state in
            let script = state.script.userInfo
            let grant = token.flatMap { state.accessTokens[$0] }
            if script.requireValidToken, grant?.active != true {
                var response = ServerResponse.json(
                    HostileProvider.ErrorResponse(code: "invalid_token").json.serialized, status: 401)
                response.headerFields.append(HTTPField(name: .wwwAuthenticate, value: #"Bearer error="invalid_token""#))
                return response
            }
            var members = script.claims
            members["sub"] = .string(script.subject ?? grant?.subject ?? state.script.subject)
            return .json(JSONValue.object(members).serialized)
        }
    }

    // MARK: /revoke

    private func revoke(_ request: ServerRequest) -> ServerResponse {
        let record = HostileProvider.TokenRequestRecord(
            grantType: "revocation", clientAuthentication: Self.clientAuthentication(request),
            form: request.formItems.map { URLQueryItem(name: $0.name, value: $0.value) })
        return state.withLock { state in
            state.revocations.append(record)
            guard let token = request.formValue("token") else {
                return Self.errorResponse(.init(code: "invalid_request", description: "token is missing"))
            }
            state.accessTokens[token]?.active = false
            state.refreshTokens[token]?.active = false
            return ServerResponse(status: 200)
        }
    }

    // MARK: /device_authorization

    private func deviceAuthorization(_ request: ServerRequest) -> ServerResponse {
        state.withLock { state in
            let script = state.script.device
            let deviceCode = Self.randomToken("dc")
            state.deviceCodes[deviceCode] = DeviceGrant(
                clientID: request.formValue("client_id"), scope: request.formValue("scope"))
            let verificationURI = state.issuer + HostileProvider.Endpoint.deviceVerification.path
            var members: [String: JSONValue] = [
                "device_code": .string(deviceCode), "user_code": .string(script.userCode),
                "verification_uri": .string(verificationURI), "expires_in": .int(script.expiresIn),
            ]
            if let interval = script.interval { members["interval"] = .int(interval) }
            if script.includeVerificationURIComplete {
                members["verification_uri_complete"] = .string(
                    verificationURI + "?user_code=" + script.userCode.queryEncoded)
            }
            for (name, value) in script.extraMembers { members[name] = value }
            return .json(JSONValue.object(members).serialized)
        }
    }

    // MARK: Helpers

    static func errorResponse(_ error: HostileProvider.ErrorResponse, challenge: String? = nil) -> ServerResponse {
        var response = ServerResponse.json(error.json.serialized, status: error.status)
        if let challenge { response.headerFields.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
        return response
    }

    static func methodNotAllowed(_ allowed: String) -> ServerResponse {
        var response = ServerResponse.text("method not allowed\n", status: 405)
        response.headerFields.append(HTTPField(name: .allow, value: allowed))
        return response
    }

    static func jwksDocument(keys: [HostileProvider.Key]) -> JSONValue {
        ["keys": .array(keys.map(\.publicJWK))]
    }

    static func hasOpenID(_ scope: String?) -> Bool {
        scope?.split(separator: " ").contains("openid") == true
    }

    /// `prefix-` and 128 random bits in hex.
    static func randomToken(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = (0..<2).map { _ in
            let part = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - part.count) + part
        }
        return prefix + "-" + hex.joined()
    }

    static func defaultClaims(_ context: HostileProvider.IDTokenContext, lifetime: Int) -> HostileProvider.Claims {
        var claims = HostileProvider.Claims([
            "iss": .string(context.issuer), "sub": .string(context.subject),
            "aud": .string(context.clientID ?? ""),
        ])
        claims.setTime("iat", context.now)
        claims.setTime("auth_time", context.now)
        claims.setTime("exp", context.now.addingTimeInterval(TimeInterval(lifetime)))
        if let nonce = context.nonce { claims["nonce"] = .string(nonce) }
        return claims
    }
}

/// A code `/authorize` issued.
struct CodeGrant: Sendable {
    var clientID: String?
    var redirectURI: String
    var scope: String?
    var nonce: String?
    var challenge: String?
    var challengeMethod: String?
    var used = false
}

/// An access or refresh token the provider issued.
struct TokenGrant: Sendable {
    var clientID: String?
    var scope: String?
    var subject: String
    var active = true
}

/// A device code `/device_authorization` issued.
struct DeviceGrant: Sendable {
    var clientID: String?
    var scope: String?
    var polls = 0
}

/// What a token request comes to.
enum TokenOutcome: Sendable {
    /// An error response.
    case failure(HostileProvider.ErrorResponse)
    /// The response members, and the ID token to mint (outside the lock) and add.
    case success([String: HostileProvider.JSONValue], (HostileProvider.Claims, HostileProvider.Signing)?)
}

/// Everything the provider remembers; guarded by ``ProviderCore/state``.
struct ProviderState: Sendable {
    typealias JSONValue = HostileProvider.JSONValue

    var script: HostileProvider.Script
    var issuer = ""
    var codes: [String: CodeGrant] = [:]
    var accessTokens: [String: TokenGrant] = [:]
    var refreshTokens: [String: TokenGrant] = [:]
    var deviceCodes: [String: DeviceGrant] = [:]
    var jwksFetches = 0
    var tokenRequests: [HostileProvider.TokenRequestRecord] = []
    var revocations: [HostileProvider.TokenRequestRecord] = []
    var authorizationRedirects: [String] = []
    var mintedIDTokens: [String] = []

    init(script: HostileProvider.Script) {
        self.script = script
    }

    /// The fault for `endpoint`, counting it down.
    mutating func takeFault(for endpoint: HostileProvider.Endpoint) -> HostileProvider.Fault? {
        guard var fault = script.faults[endpoint] else { return nil }
        if let remaining = fault.remaining {
            guard remaining > 0 else {
                script.faults[endpoint] = nil
                return nil
            }
            fault.remaining = remaining - 1
            script.faults[endpoint] = remaining - 1 > 0 ? fault : nil
        }
        return fault
    }

    /// The discovery document with the script's changes.
    func metadataDocument() -> JSONValue {
        var members: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(issuer + "/token"),
            "jwks_uri": .string(issuer + "/jwks"),
            "userinfo_endpoint": .string(issuer + "/userinfo"),
            "revocation_endpoint": .string(issuer + "/revoke"),
            "device_authorization_endpoint": .string(issuer + "/device_authorization"),
            "response_types_supported": ["code", "token", "id_token"],
            "response_modes_supported": ["query", "fragment"],
            "grant_types_supported": [
                "authorization_code", "refresh_token", "implicit", "urn:ietf:params:oauth:grant-type:device_code",
            ],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "name", "email"],
            "authorization_response_iss_parameter_supported": true,
        ]
        for (name, value) in script.metadata.changes {
            members[name] = value
        }
        return .object(members)
    }

    /// The keys the JWKS serves at fetch number `fetch` (1 for the first).
    func servedKeys(afterFetch fetch: Int) -> [HostileProvider.Key] {
        if let rotation = script.jwks.rotation, fetch > rotation.afterFetches { return rotation.keys }
        return script.jwks.keys
    }

    /// The claims and signing of an ID token for a grant, or `nil` when the script says none.
    mutating func idTokenToMint(
        grantType: String, clientID: String?, nonce: String?, scope: String?, isRefresh: Bool
    ) -> (HostileProvider.Claims, HostileProvider.Signing)? {
        let script = self.script.idToken
        switch script.issuance {
        case .never: return nil
        case .whenOpenIDScope: guard ProviderCore.hasOpenID(scope) else { return nil }
        case .notOnRefresh: guard ProviderCore.hasOpenID(scope), !isRefresh else { return nil }
        case .always: break
        }
        let context = HostileProvider.IDTokenContext(
            grantType: grantType, clientID: clientID, nonce: nonce, scope: scope, subject: self.script.subject,
            issuer: issuer, now: Date(), previouslyMinted: mintedIDTokens.count)
        var claims = ProviderCore.defaultClaims(context, lifetime: script.lifetime)
        script.editClaims?(&claims, context)
        return (claims, script.signing)
    }

    /// Checks a token request and, when it succeeds, issues the tokens.
    mutating func tokenOutcome(
        _ request: ServerRequest, authentication: HostileProvider.ClientAuthentication
    ) -> TokenOutcome {
        typealias Failure = HostileProvider.ErrorResponse
        if let forced = script.token.forcedError { return .failure(forced) }
        switch authentication {
        case .several:
            return .failure(Failure(code: "invalid_request", description: "more than one client authentication"))
        case .malformed:
            return .failure(Failure(code: "invalid_client", description: "malformed credentials", status: 401))
        default:
            break
        }
        if let secret = script.token.clientSecret {
            switch authentication {
            case .basic(_, let sent) where sent == secret, .post(_, let sent) where sent == secret:
                break
            default:
                return .failure(
                    Failure(code: "invalid_client", description: "client authentication failed", status: 401))
            }
        }
        let clientID = authentication.clientID
        switch request.formValue("grant_type") {
        case "authorization_code":
            guard let code = request.formValue("code"), var grant = codes[code], !grant.used else {
                return .failure(Failure(code: "invalid_grant", description: "unknown or used code"))
            }
            grant.used = true
            codes[code] = grant
            if let expected = grant.clientID, expected != clientID {
                return .failure(Failure(code: "invalid_grant", description: "the code was issued to another client"))
            }
            guard request.formValue("redirect_uri") == grant.redirectURI else {
                return .failure(Failure(code: "invalid_grant", description: "redirect_uri does not match"))
            }
            if let challenge = grant.challenge {
                guard let verifier = request.formValue("code_verifier"),
                    Self.pkceMatches(verifier: verifier, challenge: challenge, method: grant.challengeMethod)
                else {
                    return .failure(Failure(code: "invalid_grant", description: "PKCE verification failed"))
                }
            }
            return issueTokens(
                grantType: "authorization_code", clientID: clientID ?? grant.clientID, scope: grant.scope,
                nonce: grant.nonce, isRefresh: false)
        case "refresh_token":
            guard let token = request.formValue("refresh_token"), let grant = refreshTokens[token], grant.active else {
                return .failure(
                    Failure(code: "invalid_grant", description: "unknown, rotated or revoked refresh token"))
            }
            if let expected = grant.clientID, let clientID, expected != clientID {
                return .failure(Failure(code: "invalid_grant", description: "the token was issued to another client"))
            }
            var outcome = issueTokens(
                grantType: "refresh_token", clientID: clientID ?? grant.clientID, scope: grant.scope, nonce: nil,
                isRefresh: true, refreshing: token)
            if !script.token.rotateRefreshTokens, case .success(var members, let idToken) = outcome {
                // Drop the new refresh token; the old one stays valid.
                if let issued = members["refresh_token"]?.stringValue { refreshTokens[issued] = nil }
                members["refresh_token"] = nil
                outcome = .success(members, idToken)
            }
            return outcome
        case "urn:ietf:params:oauth:grant-type:device_code":
            guard let code = request.formValue("device_code"), var grant = deviceCodes[code] else {
                return .failure(Failure(code: "invalid_grant", description: "unknown device code"))
            }
            let answers = script.device.pollAnswers
            let answer = answers.isEmpty ? .success : answers[min(grant.polls, answers.count - 1)]
            grant.polls += 1
            deviceCodes[code] = grant
            switch answer {
            case .authorizationPending: return .failure(Failure(code: "authorization_pending"))
            case .slowDown: return .failure(Failure(code: "slow_down"))
            case .expiredToken: return .failure(Failure(code: "expired_token"))
            case .accessDenied: return .failure(Failure(code: "access_denied", description: "the person refused"))
            case .error(let error): return .failure(error)
            case .success:
                deviceCodes[code] = nil
                return issueTokens(
                    grantType: "urn:ietf:params:oauth:grant-type:device_code", clientID: clientID ?? grant.clientID,
                    scope: grant.scope, nonce: nil, isRefresh: false)
            }
        default:
            return .failure(Failure(code: "unsupported_grant_type"))
        }
    }

    private mutating func issueTokens(
        grantType: String, clientID: String?, scope: String?, nonce: String?, isRefresh: Bool,
        refreshing oldRefreshToken: String? = nil
    ) -> TokenOutcome {
        let tokenScript = script.token
        let accessToken = ProviderCore.randomToken("at")
        accessTokens[accessToken] = TokenGrant(clientID: clientID, scope: scope, subject: script.subject)
        var members: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string(tokenScript.tokenType),
        ]
        if let lifetime = tokenScript.accessTokenLifetime { members["expires_in"] = .int(lifetime) }
        if let scope = tokenScript.scope ?? scope { members["scope"] = .string(scope) }
        if tokenScript.issueRefreshToken {
            let refreshToken = ProviderCore.randomToken("rt")
            refreshTokens[refreshToken] = TokenGrant(clientID: clientID, scope: scope, subject: script.subject)
            members["refresh_token"] = .string(refreshToken)
            if let oldRefreshToken, tokenScript.rotateRefreshTokens { refreshTokens[oldRefreshToken]?.active = false }
        }
        for (name, value) in tokenScript.extraMembers { members[name] = value }
        let idToken = idTokenToMint(
            grantType: grantType, clientID: clientID, nonce: nonce, scope: scope, isRefresh: isRefresh)
        if let replacement = script.idToken.replacement, idToken != nil {
            members["id_token"] = .string(replacement)
            return .success(members, nil)
        }
        return .success(members, idToken)
    }

    static func pkceMatches(verifier: String, challenge: String, method: String?) -> Bool {
        if method == "plain" { return verifier == challenge }
        return Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded == challenge
    }
}
