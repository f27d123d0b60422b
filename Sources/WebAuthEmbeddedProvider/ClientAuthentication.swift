// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Client authentication at the token, revocation and device authorization endpoints
/// (RFC 6749 §2.3), as a pure function of the request's `Authorization` header and form.
///
/// Public clients send `client_id` only. Confidential clients use `client_secret_basic`
/// (HTTP Basic; the ID and secret are form-decoded after Base64, RFC 6749 §2.3.1) or
/// `client_secret_post` (both in the form), never both. Secrets are compared in constant time.
enum ClientAuthentication {
    /// How the client presented itself.
    enum Method: String, Sendable, Hashable {
        case none
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case clientSecretJWT = "client_secret_jwt"
        case privateKeyJWT = "private_key_jwt"
    }

    /// The authenticated client and how it authenticated, or the error to answer with
    /// (`invalid_client` is `401`, with a Basic challenge when Basic was tried).
    ///
    /// A client assertion's `jti` and `exp` come with it, for the caller's replay check.
    enum Outcome: Sendable, Hashable {
        case authenticated(EmbeddedProvider.Client, Method)
        case asserted(EmbeddedProvider.Client, Method, identifier: String, expiresAt: Date)
        case failed(ProtocolError, challenge: Bool)
    }

    /// Authenticates the client of a request; `assertions` is what a client assertion
    /// (`client_assertion`, RFC 7523 §2.2) is checked against.
    static func authenticate(
        authorization: String?, form: [(name: String, value: String)], clients: [EmbeddedProvider.Client],
        assertions: ClientAssertionCheck.Context? = nil
    ) -> Outcome {
        let outcome = authenticateAny(
            authorization: authorization, form: form, clients: clients, assertions: assertions)
        // A client registered for one method may use no other (OpenID Connect Registration §2).
        if case .authenticated(let client, let method) = outcome, !client.accepts(method) {
            return .failed(
                ProtocolError(
                    code: "invalid_client", description: "this client must authenticate with its registered method",
                    status: 401), challenge: method == .clientSecretBasic)
        }
        return outcome
    }

    private static func authenticateAny(
        authorization: String?, form: [(name: String, value: String)], clients: [EmbeddedProvider.Client],
        assertions: ClientAssertionCheck.Context?
    ) -> Outcome {
        func invalidClient(_ description: String, basic: Bool) -> Outcome {
            .failed(ProtocolError(code: "invalid_client", description: description, status: 401), challenge: basic)
        }
        let formIDs = form.filter { $0.name == "client_id" }.map(\.value)
        let formSecrets = form.filter { $0.name == "client_secret" }.map(\.value)
        guard formIDs.count <= 1, formSecrets.count <= 1 else {
            return .failed(.invalidRequest("client_id or client_secret is repeated"), challenge: false)
        }
        let assertionTypes = form.filter { $0.name == "client_assertion_type" }.map(\.value)
        let assertionValues = form.filter { $0.name == "client_assertion" }.map(\.value)
        if !assertionTypes.isEmpty || !assertionValues.isEmpty {
            guard assertionTypes.count == 1, assertionValues.count == 1 else {
                return .failed(
                    .invalidRequest("client_assertion and client_assertion_type must each be sent once"),
                    challenge: false)
            }
            guard authorization == nil, formSecrets.isEmpty else {
                return .failed(
                    .invalidRequest("use one client authentication method, not an assertion and a secret"),
                    challenge: false)
            }
            guard assertionTypes[0] == ClientAssertionCheck.assertionType else {
                return invalidClient(
                    "client_assertion_type must be \(ClientAssertionCheck.assertionType)", basic: false)
            }
            guard let assertions else { return invalidClient("client assertions are not accepted here", basic: false) }
            switch ClientAssertionCheck.check(
                assertionValues[0], formClientID: formIDs.first, clients: clients, context: assertions)
            {
            case .success(let accepted):
                return .asserted(
                    accepted.client, accepted.method, identifier: accepted.identifier, expiresAt: accepted.expiresAt)
            case .failure(let error):
                return .failed(error, challenge: false)
            }
        }

        if let authorization, authorization.lowercased().hasPrefix("basic ") {
            guard let (id, secret) = basicCredentials(authorization) else {
                return invalidClient("the Basic credentials are malformed", basic: true)
            }
            guard formSecrets.isEmpty else {
                return .failed(
                    .invalidRequest("use one client authentication method, not Basic and client_secret"),
                    challenge: false)
            }
            if let formID = formIDs.first, formID != id {
                return .failed(.invalidRequest("client_id differs from the Basic credentials"), challenge: false)
            }
            guard let client = clients.first(where: { $0.id == id }), let expected = client.secret else {
                return invalidClient("client authentication failed", basic: true)
            }
            guard ProviderSecrets.constantTimeEquals(secret, expected) else {
                return invalidClient("client authentication failed", basic: true)
            }
            return .authenticated(client, .clientSecretBasic)
        }

        guard let id = formIDs.first, !id.isEmpty else {
            return invalidClient("client authentication is required", basic: false)
        }
        guard let client = clients.first(where: { $0.id == id }) else {
            return invalidClient("client authentication failed", basic: false)
        }
        switch (client.secret, formSecrets.first) {
        case (nil, nil):
            return .authenticated(client, .none)
        case (nil, .some):
            return invalidClient("this client is public and has no secret", basic: false)
        case (.some, nil):
            return invalidClient("this client must authenticate", basic: false)
        case (.some(let expected), .some(let presented)):
            guard ProviderSecrets.constantTimeEquals(presented, expected) else {
                return invalidClient("client authentication failed", basic: false)
            }
            return .authenticated(client, .clientSecretPost)
        }
    }

    /// How a request tried to authenticate its client, right or wrong: HTTP Basic, a
    /// `client_secret` in the form, or a `client_id` alone; `nil` when it did none of these.
    /// For the request log, which keeps the method and never the credentials.
    static func presentedMethod(authorization: String?, form: [(name: String, value: String)]) -> Method? {
        if let authorization, authorization.lowercased().hasPrefix("basic ") { return .clientSecretBasic }
        if form.contains(where: { $0.name == "client_secret" }) { return .clientSecretPost }
        if form.contains(where: { $0.name == "client_id" }) { return Method.none }
        return nil
    }

    /// The form-decoded client ID and secret of a `Basic` header, or `nil` if it is not one.
    static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        let encoded = header.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let pair = String(data: data, encoding: .utf8),
            let colon = pair.firstIndex(of: ":")
        else { return nil }
        func formDecoded(_ part: Substring) -> String? {
            part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        guard let id = formDecoded(pair[..<colon]), let secret = formDecoded(pair[pair.index(after: colon)...]),
            !id.isEmpty
        else { return nil }
        return (id, secret)
    }
}
