// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Logging
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Pushes one sign-in's authorization request to the provider (RFC 9126) and makes the URL
/// the browser opens from the answer: the authorization endpoint with `client_id` and
/// `request_uri` only.
struct PushedAuthorizationRequest: Sendable {
    /// The pushed authorization request endpoint.
    let endpoint: URL
    /// The authorization endpoint the browser opens.
    let authorizationEndpoint: URL
    /// The client's identity, sent with the push as at the token endpoint (RFC 9126 §2).
    let authentication: ClientCredentials
    /// The provider's endpoints.
    let endpoints: EndpointClient
    /// The time source for `expires_in`.
    let clock: OAuthClock

    /// How many pushes one URL may take: a `request_uri` that has expired by the time its
    /// answer is read is pushed once more, then given up on.
    static let attempts = 2
    /// The longest `expires_in` believed: an hour (RFC 9126 suggests 5 to 600 seconds).
    static let longestLifetime: TimeInterval = 3600

    /// Pushes `parameters` and returns the URL for the browser.
    ///
    /// - Throws: ``OAuthError/Code/pushedRequestExpired`` when every `request_uri` had
    ///   expired on arrival; ``OAuthError/Code/unexpectedStatus`` for a success other than
    ///   `201`; ``OAuthError/Code/invalidResponse`` for an answer without a usable
    ///   `request_uri` or `expires_in`; ``OAuthError/Code/server`` when the provider refuses.
    func authorizationURL(pushing parameters: [(String, String)]) async throws(OAuthError) -> URL {
        // Client authentication adds client_id itself unless it uses HTTP Basic; a parameter
        // must not be sent twice (RFC 6749 §3.1).
        let body =
            authentication.method == .clientSecretBasic ? parameters : parameters.filter { $0.0 != "client_id" }
        for _ in 0..<Self.attempts {
            let sentAt = clock.now()
            let answer: PushedAuthorizationResponse = try await endpoints.postForm(
                body, to: endpoint, endpoint: .pushedAuthorization, authentication: authentication,
                expectedStatus: 201)
            let requestURI = try answer.checkedRequestURI()
            let lifetime = try ProviderNumbers.seconds(
                answer.expiresIn, field: "expires_in", within: 0...Self.longestLifetime)
            // The lifetime counts from the answer at the latest, so from the request to be safe.
            guard sentAt.addingTimeInterval(lifetime) > clock.now() else {
                endpoints.logger.info("pushed authorization request expired on arrival; pushing again")
                continue
            }
            return AuthorizationRequest.url(
                authorizationEndpoint, adding: [("client_id", authentication.clientID), ("request_uri", requestURI)])
        }
        throw OAuthError(
            code: .pushedRequestExpired,
            message: "the provider's request_uri expired before the browser could open it, \(Self.attempts) times")
    }
}

/// A pushed authorization request endpoint's answer (RFC 9126 §2.2).
struct PushedAuthorizationResponse: Decodable, Sendable {
    var requestURI: String
    var expiresIn: Double

    private enum CodingKeys: String, CodingKey {
        case requestURI = "request_uri"
        case expiresIn = "expires_in"
    }

    /// The `request_uri`, when it is one: an absolute URI of printable ASCII, at most 2048
    /// characters (it goes into the URL the browser opens).
    func checkedRequestURI() throws(OAuthError) -> String {
        guard !requestURI.isEmpty, requestURI.utf8.count <= 2048,
            requestURI.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }),
            URL(string: requestURI)?.scheme != nil
        else {
            throw OAuthError(
                code: .invalidResponse, message: "the pushed authorization request's request_uri is not a usable URI")
        }
        return requestURI
    }
}
