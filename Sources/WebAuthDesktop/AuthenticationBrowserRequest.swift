// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import WebAuthCore

/// A sign-in a session hands to the person's web-authentication browser: what Apple's
/// `ASWebAuthenticationSessionRequest` carries.
///
/// Every request that crosses the socket is checked on arrival as the session checked it before
/// sending: the URL is `https` (or `http` to a loopback address), the callback a custom scheme
/// or an `https` address, the header fields ones a browser may send.
public struct AuthenticationBrowserRequest: Sendable, Hashable {
    /// The request's identifier, the same on both sides.
    public var uuid: UUID
    /// The authentication page to open.
    public var url: URL
    /// The callback that completes the request.
    public var callback: Callback
    /// Whether the browser should use a session that shares and keeps nothing.
    public var prefersEphemeralSession: Bool
    /// Header fields to send with the first request to ``url``.
    public var additionalHeaderFields: [String: String]

    /// Creates a request.
    public init(
        uuid: UUID = UUID(), url: URL, callback: Callback, prefersEphemeralSession: Bool = false,
        additionalHeaderFields: [String: String] = [:]
    ) {
        self.uuid = uuid
        self.url = url
        self.callback = callback
        self.prefersEphemeralSession = prefersEphemeralSession
        self.additionalHeaderFields = additionalHeaderFields
    }

    /// Checks what a request may hold.
    func validate() throws(AuthenticationBrowserError) {
        do {
            _ = try AuthorizationURLPolicy.validate(url)
        } catch {
            throw .protocolViolation("the request's URL is not allowed: \(error.message)")
        }
        guard callback.isCustomScheme || callback.isHTTPS else {
            throw .protocolViolation("the request's callback must be a custom scheme or an https address")
        }
        if let violation = HeaderFieldPolicy.firstViolation(in: additionalHeaderFields) {
            throw .protocolViolation("the request's header fields are not allowed: \(violation.message)")
        }
    }
}
