// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// A pushed request's answer (RFC 9126 §2.2).
struct PushedAuthorizationBody: Encodable {
    var requestURI: String
    var expiresIn: Int

    private enum CodingKeys: String, CodingKey {
        case requestURI = "request_uri"
        case expiresIn = "expires_in"
    }
}

extension ProviderEngine {
    /// The `request_uri` prefix RFC 9126 §2.2 suggests.
    static let requestURIPrefix = "urn:ietf:params:oauth:request_uri:"

    // MARK: - POST /par

    /// RFC 9126 §2: the client authenticates as at the token endpoint; the parameters get the
    /// authorization endpoint's checks; a valid request is kept under a one-time
    /// `request_uri` and answered `201`.
    func pushAuthorization(_ request: ServerRequest) -> Answer {
        let (client, form): (EmbeddedProvider.Client, [(name: String, value: String)])
        switch checkClientPost(request) {
        case .rejected(let answer): return answer
        case .accepted(let post): (client, form) = (post.client, post.form)
        }
        // The client's credentials are not authorization parameters; client_id is, once.
        var parameters = form.filter { !["client_secret", "client_id"].contains($0.name) }
        let namedIDs = form.filter { $0.name == "client_id" }.map(\.value)
        guard namedIDs.allSatisfy({ $0 == client.id }), namedIDs.count <= 1 else {
            return errorAnswer(.invalidRequest("client_id does not match the authenticated client"))
        }
        parameters.append((name: "client_id", value: client.id))
        // §2.1: a pushed request cannot itself refer to another.
        guard !parameters.contains(where: { $0.name == "request_uri" }) else {
            return errorAnswer(.invalidRequest("request_uri cannot be pushed"))
        }
        let authorization: AuthorizationRequest
        switch AuthorizationRequestCheck.check(parameters, clients: clients) {
        case .refuse(let problem):
            return errorAnswer(.invalidRequest(problem.message))
        case .redirectError(_, _, let error):
            return errorAnswer(error)
        case .accept(let accepted):
            authorization = accepted
        }
        let now = clock.now()
        let requestURI = Self.requestURIPrefix + ProviderSecrets.randomToken()
        let lifetime = configuration.pushedRequestLifetime
        state.withLock {
            $0.pushedRequests.insert(
                authorization, for: ProviderSecrets.digest(requestURI), expiresAt: now.adding(lifetime), now: now)
        }
        let seconds = Int(lifetime.components.seconds)
        return Answer(
            ProviderHTTP.json(PushedAuthorizationBody(requestURI: requestURI, expiresIn: seconds), status: 201))
    }

    /// The pushed request an authorization request refers to with `request_uri`, taken (it
    /// opens once): it must be live and pushed by the client the request names (§4).
    func pushedRequest(_ parameters: [(name: String, value: String)], now: Date) -> Result<
        AuthorizationRequest, PageProblem
    > {
        let uris = parameters.filter { $0.name == "request_uri" }.map(\.value)
        let clientIDs = parameters.filter { $0.name == "client_id" }.map(\.value)
        guard uris.count == 1, clientIDs.count == 1, let uri = uris.first else {
            return .failure(
                PageProblem(title: "Invalid request", message: "The request needs one client_id and one request_uri."))
        }
        let key = ProviderSecrets.digest(uri)
        return state.withLock { state in
            guard let pushed = state.pushedRequests.value(for: key, now: now) else {
                _ = state.pushedRequests.remove(key)
                return .failure(
                    PageProblem(
                        title: "Request expired",
                        message: "This sign-in request has expired or was already used. Start the sign-in again."))
            }
            _ = state.pushedRequests.remove(key)
            guard pushed.clientID == clientIDs.first else {
                return .failure(
                    PageProblem(title: "Invalid request", message: "The request_uri belongs to another application."))
            }
            return .success(pushed)
        }
    }
}
