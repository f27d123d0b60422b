// snippet.hide
// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0
// snippet.show

import WebAuthCompat

final class SessionHandler: NSObject, ASWebAuthenticationSessionWebBrowserSessionHandling {
    func begin(_ request: ASWebAuthenticationSessionRequest!) {
        // Open request.url — in a fresh profile if request.shouldUseEphemeralSession, sending
        // request.additionalHeaderFields — and, for the main-frame navigation to a URL that
        // request.callback matches, call request.complete(withCallbackURL:); if the person
        // gives up, request.cancelWithError(ASWebAuthenticationSessionError(.canceledLogin)).
    }

    func cancel(_ request: ASWebAuthenticationSessionRequest!) {
        // Close the page opened for the request, then:
        request.cancelWithError(ASWebAuthenticationSessionError(.canceledLogin))
    }
}

ASWebAuthenticationSessionWebBrowserSessionManager.shared.sessionHandler = SessionHandler()
