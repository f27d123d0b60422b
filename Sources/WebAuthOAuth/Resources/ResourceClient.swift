// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Sends requests to a resource server (an API) with an access token from an
/// ``AccessTokenProvider``: `Authorization: <token type> <access token>`, a refresh and one retry
/// when the server answers `401`, and redirects followed here, a bounded number of times, so that
/// the token never leaves the origin it was meant for.
///
/// DPoP-bound tokens (``TokenSet/isDPoPBound``) go as `Authorization: DPoP <access token>`
/// with a fresh proof (RFC 9449 §7) on every request, carrying `ath` and the server's latest
/// nonce; a `WWW-Authenticate: DPoP error="use_dpop_nonce"` answer with a new `DPoP-Nonce` is
/// answered by sending the request once more.
///
/// ```swift
/// let provider = try await TokenStores().accessTokenProvider(profile: "work")
/// let client = ResourceClient(tokenProvider: provider)
/// let response = try await client.send(HTTPTransportRequest(method: "GET", url: api))
/// print(response.status, String(decoding: response.body, as: UTF8.self))
/// ```
///
/// Only `https` URLs, or `http` to a loopback address, are sent to, the request's own and every
/// redirect's (`ResourceRedirect`). A redirect from `https` to anything else is refused, and
/// the token — and any `Authorization`, `Cookie` or `Proxy-Authorization` field of the request —
/// goes only to the request's origin.
public struct ResourceClient: Sendable {
    /// Where the access token comes from, and what refreshes it after a `401`.
    public let tokenProvider: AccessTokenProvider
    /// The network.
    public let transport: any HTTPTransport
    /// How many redirects one request follows. Default 10.
    public let maximumRedirects: Int
    /// The resource servers' DPoP nonces.
    private let dpopNonces = DPoPNonces()

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - tokenProvider: Where the access token comes from.
    ///   - transport: The network. Default ``CurlTransport``.
    ///   - maximumRedirects: How many redirects one request follows. Default 10.
    public init(
        tokenProvider: AccessTokenProvider, transport: any HTTPTransport = CurlTransport(),
        maximumRedirects: Int = 10
    ) {
        self.tokenProvider = tokenProvider
        self.transport = transport
        self.maximumRedirects = maximumRedirects
    }

    /// Sends `request` with the access token, following redirects, and returns the final
    /// response, whatever its status. When the server answers `401` to the token, the tokens are
    /// refreshed once (``AccessTokenProvider/refreshNow()``) and the request sent once more.
    ///
    /// - Throws: ``OAuthError/Code/insecureEndpoint`` for a URL that is neither `https` nor
    ///   `http` to loopback, ``OAuthError/Code/redirectRefused`` for a redirect that may not be
    ///   followed (or one too many); ``HTTPTransportError`` when the resource server cannot be
    ///   reached or its answer is too large or late; and what the token provider throws when it
    ///   cannot hand out or refresh a token (``OAuthError``, or its persistence's errors).
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        try Self.check(request.url)
        let first = try await follow(request, tokens: try await tokenProvider.freshTokens())
        guard first.response.status == 401, first.carriedToken else { return first.response }
        return try await follow(request, tokens: try await tokenProvider.refreshNow()).response
    }

    /// Checks that requests may be sent to `url`: `https`, or `http` to a loopback address.
    ///
    /// - Throws: ``OAuthError/Code/insecureEndpoint`` otherwise.
    public static func check(_ url: URL) throws(OAuthError) {
        try EndpointPolicy.check(url, role: "URL")
    }

    /// Sends `request` and the redirects it leads to; the token goes to the request's origin
    /// only. Returns the final response and whether it answered the token.
    private func follow(
        _ request: HTTPTransportRequest, tokens: TokenSet
    ) async throws -> (response: HTTPTransportResponse, carriedToken: Bool) {
        var current = request
        current.deliversRedirects = true
        var redirects = 0
        while true {
            var sent = current
            let carriesToken =
                current.url.hasSameOrigin(as: request.url) && current.headerFields[.authorization] == nil
            var dpop: DPoPProofing?
            if carriesToken {
                dpop = try tokenProvider.client.boundProofing(for: tokens).map {
                    DPoPProofing(key: $0.key, nonces: dpopNonces, clock: $0.clock)
                }
                sent.headerFields.append(
                    HTTPField(
                        name: .authorization,
                        value: "\(tokens.isDPoPBound ? "DPoP" : tokens.tokenType) \(tokens.accessToken)"))
            }
            var response = try await transport.send(dpop?.proving(sent, accessToken: tokens.accessToken) ?? sent)
            if let dpop, dpop.asksForNonce(response, from: sent.url) {
                response = try await transport.send(dpop.proving(sent, accessToken: tokens.accessToken))
                dpop.nonces.record(response, from: sent.url)
            }
            guard let next = try ResourceRedirect.next(after: current, response: response) else {
                return (response, carriesToken)
            }
            redirects += 1
            guard redirects <= maximumRedirects else {
                throw OAuthError(
                    code: .redirectRefused,
                    message: "\(request.url.redactedForLogs) redirected more than \(maximumRedirects) times")
            }
            current = next
        }
    }
}
