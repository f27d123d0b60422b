// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// A form a client posted to a back-channel endpoint (token, revocation, device authorization),
/// with the client it authenticated as.
struct ClientPost {
    /// The authenticated client.
    var client: EmbeddedProvider.Client
    /// The form's items, in order, duplicates kept.
    var form: [(name: String, value: String)]

    /// Either the accepted post, or the answer that ends the request.
    enum Check {
        case accepted(ClientPost)
        case rejected(ProviderEngine.Answer)
    }
}

extension ProviderEngine {
    /// The parameters a request may carry more than once.
    static let repeatable: Set<String> = ["resource", "audience"]

    /// The start every back-channel endpoint shares: `POST` only, an
    /// `application/x-www-form-urlencoded` body, client authentication (RFC 6749 §2.3.1,
    /// §3.2.1) with a Basic challenge when the client tried HTTP Basic, and no parameter sent
    /// more than once (RFC 6749 §3.1: `invalid_request`), so that no endpoint has to choose
    /// between two values. `resource` (RFC 8707 §2) and `audience` (RFC 8693 §2.1) are the
    /// exceptions those documents make: each may be sent several times.
    ///
    /// - Parameter loggedGrantType: The grant type the request log records for a refused
    ///   client, from the form (only the token endpoint has one).
    func checkClientPost(
        _ request: ServerRequest, loggedGrantType: ([(name: String, value: String)]) -> String? = { _ in nil }
    ) -> ClientPost.Check {
        guard request.method == "POST" else { return .rejected(Answer(ProviderHTTP.methodNotAllowed(["POST"]))) }
        guard let form = ProviderHTTP.formParameters(request) else {
            return .rejected(errorAnswer(.invalidRequest("the body must be application/x-www-form-urlencoded")))
        }
        let now = configuration.clock.now()
        let assertions = ClientAssertionCheck.Context(
            issuer: issuer,
            tokenEndpoint: configuration.acceptsTokenEndpointAssertionAudience
                ? issuer + EmbeddedProvider.Endpoint.token.path : nil,
            now: now)
        let authenticated: EmbeddedProvider.Client
        switch ClientAuthentication.authenticate(
            authorization: request.header("Authorization"), form: form, clients: clients,
            assertions: assertions)
        {
        case .failed(let error, let challenge):
            return .rejected(
                errorAnswer(
                    error, grantType: loggedGrantType(form), challenge: challenge ? ProviderHTTP.basicChallenge : nil))
        case .asserted(let client, _, let identifier, let expiresAt):
            // RFC 7523 §3 (7): an assertion is used once; its jti is remembered until it expires.
            let fresh = state.withLock { state in
                let key = ProviderSecrets.digest(client.id + " " + identifier)
                guard state.seenAssertions.value(for: key, now: now) == nil else { return false }
                state.seenAssertions.insert(true, for: key, expiresAt: expiresAt, now: now)
                return true
            }
            guard fresh else {
                let error = ProtocolError(
                    code: "invalid_client", description: "the client assertion was already used (jti replayed)",
                    status: 401)
                return .rejected(errorAnswer(error, grantType: loggedGrantType(form)))
            }
            authenticated = client
        case .authenticated(let client, _):
            authenticated = client
        }
        var seen = Set<String>()
        for item in form where !Self.repeatable.contains(item.name) && !seen.insert(item.name).inserted {
            let name = item.name.isSafeProtocolToken ? item.name : "a parameter"
            return .rejected(errorAnswer(.invalidRequest("\(name) is repeated"), grantType: loggedGrantType(form)))
        }
        return .accepted(ClientPost(client: authenticated, form: form))
    }
}
