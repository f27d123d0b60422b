// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthOAuth
import WebAuthPlatform

/// A transport that tells when the first request to an endpoint goes out, then sends it on:
/// how `webauth demo` sees, from outside `OAuthClient.signIn`, that the redirect was checked
/// and the code is being exchanged.
final class TokenRequestObserver: HTTPTransport {
    private let transport: any HTTPTransport
    private let waiting = Locked<(endpoint: URL, action: @Sendable () -> Void)?>(nil)

    init(sendingThrough transport: any HTTPTransport) {
        self.transport = transport
    }

    /// Runs `action` once, just before the first request to `endpoint` is sent.
    func onFirstRequest(to endpoint: URL, _ action: @escaping @Sendable () -> Void) {
        waiting.withLock { $0 = (endpoint, action) }
    }

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        let action = waiting.withLock { waiting -> (@Sendable () -> Void)? in
            guard let current = waiting, current.endpoint == request.url else { return nil }
            waiting = nil
            return current.action
        }
        action?()
        return try await transport.send(request)
    }
}
