// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Logging
import WebAuthCore

/// Talks to the provider's endpoints: builds form and JSON requests, adds client
/// authentication, and turns every outcome into a value or an ``OAuthError``. Logs the endpoint
/// and the status only — never a request body, a response body or a header value.
///
/// A server that quotes a request's secret (a code, a refresh token, the client secret…) back
/// in its `error_description` does not get it into an error: every secret the request carried is
/// withheld from the description.
struct EndpointClient: Sendable {
    let transport: any HTTPTransport
    let logger: Logger
    let timeout: Duration

    /// POSTs a form to `url` and decodes the JSON answer as `Response`.
    ///
    /// - Parameters:
    ///   - dpop: Puts a DPoP proof on the request (and sends it once more when the server asks
    ///     for a nonce).
    ///   - expectedStatus: The one success status accepted (as `201` for a pushed
    ///     authorization request); `nil` accepts any `2xx`.
    func postForm<Response: Decodable>(
        _ parameters: [(String, String)], to url: URL, endpoint: OAuthEndpoint,
        authentication: ClientCredentials?, dpop: DPoPProofing? = nil, expectedStatus: Int? = nil,
        as type: Response.Type = Response.self
    ) async throws(OAuthError) -> Response {
        let (request, response) = try await sendForm(
            parameters, to: url, endpoint: endpoint, authentication: authentication, dpop: dpop)
        if let expectedStatus, (200..<300).contains(response.status), response.status != expectedStatus {
            throw OAuthError(
                code: .unexpectedStatus,
                message: "the \(endpoint) endpoint answered HTTP \(response.status), not \(expectedStatus)")
        }
        return try decodeSuccess(response, endpoint: endpoint, withholding: request.secrets)
    }

    /// POSTs a form to `url` and returns the raw response once it is known to be a success.
    func postFormExpectingSuccess(
        _ parameters: [(String, String)], to url: URL, endpoint: OAuthEndpoint, authentication: ClientCredentials?,
        dpop: DPoPProofing? = nil
    ) async throws(OAuthError) {
        let (request, response) = try await sendForm(
            parameters, to: url, endpoint: endpoint, authentication: authentication, dpop: dpop)
        guard (200..<300).contains(response.status) else {
            throw failure(response, endpoint: endpoint, withholding: request.secrets)
        }
    }

    /// GETs `url` (with an access token, if given: `Bearer`, or `DPoP` with a proof when `dpop`
    /// is set) and decodes the JSON answer.
    func getJSON<Response: Decodable>(
        _ url: URL, endpoint: OAuthEndpoint, accessToken: String? = nil, dpop: DPoPProofing? = nil,
        as type: Response.Type = Response.self
    ) async throws(OAuthError) -> Response {
        var fields: HTTPFields = [.accept: "application/json"]
        if let accessToken {
            fields[.authorization] = "\(dpop == nil ? "Bearer" : "DPoP") \(accessToken)"
        }
        let request = SecretCarryingRequest(
            request: HTTPTransportRequest(method: "GET", url: url, headerFields: fields, timeout: timeout),
            secrets: accessToken.map { [$0] } ?? [])
        let response = try await send(
            { () throws(OAuthError) in request }, endpoint: endpoint, dpop: dpop, accessToken: accessToken)
        return try decodeSuccess(response, endpoint: endpoint, withholding: request.secrets)
    }

    // MARK: - Requests

    /// Form parameters whose values are secrets.
    static let secretParameters: Set<String> = [
        "code", "code_verifier", "refresh_token", "token", "client_secret", "device_code", "client_assertion",
    ]

    /// Builds and sends a form request — built again for a second attempt, so that a client
    /// assertion is never sent twice — and returns the request last sent with its answer.
    private func sendForm(
        _ parameters: [(String, String)], to url: URL, endpoint: OAuthEndpoint, authentication: ClientCredentials?,
        dpop: DPoPProofing?
    ) async throws(OAuthError) -> (SecretCarryingRequest, HTTPTransportResponse) {
        var last: SecretCarryingRequest?
        let response = try await send(
            { () throws(OAuthError) in
                let request = try formRequest(parameters, to: url, authentication: authentication)
                last = request
                return request
            }, endpoint: endpoint, dpop: dpop)
        guard let last else { preconditionFailure("a response without a request") }
        return (last, response)
    }

    private func formRequest(
        _ parameters: [(String, String)], to url: URL, authentication: ClientCredentials?
    ) throws(OAuthError) -> SecretCarryingRequest {
        var parameters = parameters
        var fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .accept: "application/json"]
        if let authentication {
            switch authentication.method {
            case .clientSecretBasic:
                // RFC 6749 §2.3.1: each part form-encoded before Base64.
                let pair =
                    FormEncoding.escape(authentication.clientID) + ":"
                    + FormEncoding.escape(authentication.clientSecret ?? "")
                fields[.authorization] = "Basic \(Data(pair.utf8).base64EncodedString())"
            case .clientSecretPost:
                parameters.append(("client_id", authentication.clientID))
                parameters.append(("client_secret", authentication.clientSecret ?? ""))
            case .privateKeyJWT, .clientSecretJWT:
                // RFC 7523 §2.2: a fresh assertion for every request; client_id as well, which
                // RFC 7521 §4.2 allows and some providers want.
                parameters.append(("client_id", authentication.clientID))
                parameters.append(("client_assertion_type", ClientAssertion.type))
                parameters.append(("client_assertion", try authentication.assertion(to: url)))
            default:
                parameters.append(("client_id", authentication.clientID))
            }
        }
        var secrets = parameters.filter { Self.secretParameters.contains($0.0) }.map(\.1)
        if let secret = authentication?.clientSecret { secrets.append(secret) }
        return SecretCarryingRequest(
            request: HTTPTransportRequest(
                method: "POST", url: url, headerFields: fields, body: Data(FormEncoding.encode(parameters).utf8),
                timeout: timeout),
            secrets: secrets)
    }

    /// Sends the request `make` builds — with a fresh DPoP proof when `dpop` is set, and once
    /// more, built again with a new proof, when the server answers `use_dpop_nonce` with a new
    /// nonce (exactly one retry).
    private func send(
        _ make: () throws(OAuthError) -> SecretCarryingRequest, endpoint: OAuthEndpoint, dpop: DPoPProofing?,
        accessToken: String? = nil
    ) async throws(OAuthError) -> HTTPTransportResponse {
        let carrying = try make()
        guard let dpop else { return try await send(carrying, endpoint: endpoint) }
        var proven = carrying
        proven.request = dpop.proving(carrying.request, accessToken: accessToken)
        let response = try await send(proven, endpoint: endpoint)
        guard dpop.asksForNonce(response, from: carrying.request.url) else { return response }
        logger.debug("OAuth \(endpoint) asked for a DPoP nonce; sending once more")
        proven = try make()
        proven.request = dpop.proving(proven.request, accessToken: accessToken)
        let retried = try await send(proven, endpoint: endpoint)
        dpop.nonces.record(retried, from: carrying.request.url)
        return retried
    }

    func send(
        _ carrying: SecretCarryingRequest, endpoint: OAuthEndpoint
    ) async throws(OAuthError) -> HTTPTransportResponse {
        let request = carrying.request
        try EndpointPolicy.check(request.url, role: "\(endpoint) endpoint")
        let started = ContinuousClock.now
        do {
            let response = try await transport.send(request)
            logger.debug(
                "OAuth \(endpoint) answered",
                metadata: [
                    "method": "\(request.method)", "endpoint": "\(request.url.redactedForLogs)",
                    "status": "\(response.status)", "elapsed": "\(ContinuousClock.now - started)",
                ])
            return response
        } catch {
            logger.debug(
                "OAuth \(endpoint) failed",
                metadata: [
                    "endpoint": "\(request.url.redactedForLogs)", "error": "\(error.code)",
                    "cause": "\(error.detail ?? "-")",
                ])
            throw OAuthError(
                code: error.oauthCode, message: "\(endpoint) endpoint: \(error.message)", transportError: error)
        }
    }

    // MARK: - Responses

    private func decodeSuccess<Response: Decodable>(
        _ response: HTTPTransportResponse, endpoint: OAuthEndpoint, withholding secrets: [String]
    ) throws(OAuthError) -> Response {
        guard (200..<300).contains(response.status) else {
            throw failure(response, endpoint: endpoint, withholding: secrets)
        }
        // Some servers (GitHub's token endpoint) answer errors with 200.
        if let error = Self.serverError(in: response.body, endpoint: endpoint, withholding: secrets) {
            throw OAuthError(code: .server, message: "the \(endpoint) endpoint refused: \(error)", serverError: error)
        }
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch let error as DecodingError {
            throw OAuthError(
                code: .invalidResponse,
                message: "the \(endpoint) endpoint's answer is not the expected JSON: \(error.safeSummary)")
        } catch {
            throw OAuthError(code: .invalidResponse, message: "the \(endpoint) endpoint's answer is not JSON")
        }
    }

    /// The error for a non-success status: the OAuth error response if the body is one, else
    /// the status alone (the body is never quoted).
    func failure(
        _ response: HTTPTransportResponse, endpoint: OAuthEndpoint, withholding secrets: [String]
    ) -> OAuthError {
        if let error = Self.serverError(in: response.body, endpoint: endpoint, withholding: secrets) {
            return OAuthError(code: .server, message: "the \(endpoint) endpoint refused: \(error)", serverError: error)
        }
        // RFC 6749 §5.2: a 401 with an authentication challenge is how a token endpoint says
        // invalid_client (the transport may have had to drop the body to get the answer).
        if response.status == 401, response.headerFields[.wwwAuthenticate] != nil,
            [.token, .revocation, .deviceAuthorization, .pushedAuthorization].contains(endpoint)
        {
            let error = OAuthServerError(
                code: .invalidClient, rawDescription: "client authentication failed (HTTP 401)", endpoint: endpoint)
            return OAuthError(code: .server, message: "the \(endpoint) endpoint refused: \(error)", serverError: error)
        }
        return OAuthError(
            code: .unexpectedStatus, message: "the \(endpoint) endpoint answered HTTP \(response.status)",
            httpStatus: response.status)
    }

    /// An RFC 6749 §5.2 error object in `body`, if that is what it is, with each of `secrets`
    /// replaced by `[withheld]` in its code and description. Values shorter than 8 characters are left
    /// alone: real codes and tokens are far longer, and replacing every "r" would garble the text.
    static func serverError(
        in body: Data, endpoint: OAuthEndpoint, withholding secrets: [String] = []
    ) -> OAuthServerError? {
        struct ErrorBody: Decodable {
            var error: String
            var errorDescription: String?
            var errorURI: String?

            private enum CodingKeys: String, CodingKey {
                case error
                case errorDescription = "error_description"
                case errorURI = "error_uri"
            }
        }
        guard let object = try? JSONDecoder().decode(ErrorBody.self, from: body), !object.error.isEmpty else {
            return nil
        }
        // A server may quote a secret in `error` as well as in `error_description`.
        func withholdingSecrets(_ text: String) -> String {
            secrets.filter { $0.count >= 8 }.reduce(text) { text, secret in
                text.replacingOccurrences(of: secret, with: "[withheld]")
            }
        }
        return OAuthServerError(
            code: .init(rawValue: withholdingSecrets(object.error)),
            rawDescription: object.errorDescription.map(withholdingSecrets),
            uri: object.errorURI.flatMap(URL.init(string:)).flatMap { $0.scheme == "https" ? $0 : nil },
            endpoint: endpoint)
    }
}

/// A request and the secret values it carries (form values, the client secret, a bearer token).
struct SecretCarryingRequest: Sendable {
    var request: HTTPTransportRequest
    var secrets: [String]
}

/// The client's identity for a token-endpoint request.
struct ClientCredentials: Sendable {
    let clientID: String
    let clientSecret: String?
    let method: ClientAuthenticationMethod
    /// For `private_key_jwt`: the key the assertions are signed with.
    let key: ClientAssertionKey?
    /// For `private_key_jwt` and `client_secret_jwt`: the assertions' `aud`; `nil` for the URL
    /// of the endpoint each one is sent to.
    let audience: String?
    /// The time for the assertions' `iat` and `exp`.
    let now: @Sendable () -> Date

    init(
        _ configuration: ClientConfiguration, key: ClientAssertionKey? = nil, audience: String? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        clientID = configuration.clientID
        clientSecret = configuration.clientSecret
        method = configuration.effectiveClientAuthentication
        self.key = key
        self.audience = audience
        self.now = now
    }

    /// A new signed client assertion (RFC 7523 §2.2) for this client, for a request to `url`.
    func assertion(to url: URL) throws(OAuthError) -> String {
        let assertion = ClientAssertion(clientID: clientID, audience: audience ?? url.absoluteString, issuedAt: now())
        switch method {
        case .privateKeyJWT:
            guard let key else {
                throw OAuthError(code: .invalidConfiguration, message: "private_key_jwt needs a client key")
            }
            return try assertion.signed(with: key)
        default:
            return try assertion.signed(withSecret: clientSecret ?? "")
        }
    }
}
