// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore
import WebAuthPlatform

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A sign-in's authorization step, ready for a browser: the one-time request values, the
/// authorization URL builder and the validator for the response.
///
/// Made by ``OAuthClient/prepareAuthorization()`` for callers that run their own session. It
/// answers one response only: once a redirect with its `state` has been taken by
/// ``OAuthClient/completeAuthorization(_:received:)``, another one (a replay, a
/// second tab) is refused, copies of the value included.
public struct PreparedAuthorization: Sendable {
    /// The `state`, `nonce` and PKCE values of this sign-in.
    public let request: AuthorizationRequest
    /// Checks the redirect that answers this request.
    public let validator: AuthorizationResponseValidator
    /// The callback the session must wait for, made from the configured redirect URI.
    public let callback: Callback
    let authorizationEndpoint: URL
    let clientID: String
    let additionalParameters: [String: String]
    /// The push, when this sign-in pushes its request (RFC 9126).
    let push: PushedAuthorizationRequest?
    /// The key the tokens will be bound to (DPoP), named in `dpop_jkt`.
    let dpopKey: DPoPKey?
    /// Whether a response with this `state` has been taken; shared by every copy.
    private let answered = Answered()

    init(
        request: AuthorizationRequest, callback: Callback, authorizationEndpoint: URL, clientID: String,
        additionalParameters: [String: String], push: PushedAuthorizationRequest? = nil, dpopKey: DPoPKey? = nil,
        validator: AuthorizationResponseValidator
    ) {
        self.push = push
        self.dpopKey = dpopKey
        self.request = request
        self.callback = callback
        self.authorizationEndpoint = authorizationEndpoint
        self.clientID = clientID
        self.additionalParameters = additionalParameters
        self.validator = validator
    }

    /// Records that a response with this `state` is being taken; `false` if one already was.
    func takeAnswer() -> Bool {
        answered.flag.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }

    /// Whether the sign-in pushes its authorization request to the provider first (RFC 9126):
    /// then only ``authorizationURL(redirectURI:)`` makes the URL the browser must open.
    public var usesPushedAuthorization: Bool { push != nil }

    /// The URL the browser opens for the redirect URI the session gives its builder: for a
    /// pushed request, after pushing the parameters (the URL then carries only `client_id`
    /// and `request_uri`; a `request_uri` that expired on arrival is pushed once more);
    /// otherwise ``url(redirectURI:)``. Call it just before the browser opens.
    ///
    /// - Throws: ``OAuthError`` when the push fails (see ``OAuthError/Code/pushedRequestExpired``).
    public func authorizationURL(redirectURI: URL) async throws(OAuthError) -> URL {
        guard let push else { return url(redirectURI: redirectURI) }
        return try await push.authorizationURL(
            pushing: request.parameters(clientID: clientID, redirectURI: redirectURI, additional: additionalParameters))
    }

    /// The authorization URL with every parameter in it, for the redirect URI the session gives
    /// its builder (for loopback: with the bound port; otherwise the configured URI). For a
    /// sign-in that ``usesPushedAuthorization``, use ``authorizationURL(redirectURI:)``.
    public func url(redirectURI: URL) -> URL {
        request.url(
            authorizationEndpoint: authorizationEndpoint, clientID: clientID, redirectURI: redirectURI,
            additional: additionalParameters)
    }
}

/// A flag that copies of a ``PreparedAuthorization`` share.
private final class Answered: Sendable {
    let flag = Locked(false)
}
