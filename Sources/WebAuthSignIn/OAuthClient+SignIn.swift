// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import WebAuth
public import WebAuthOAuth
import WebAuthPlatform

extension OAuthClient {
    /// Signs the person in: opens the authorization page in a browser session, waits for the
    /// redirect, checks it and exchanges the code for tokens (validating the ID token for
    /// OpenID Connect).
    ///
    /// A forged callback (wrong `state`) does not end the session: the session keeps waiting
    /// for the real one.
    ///
    /// - Parameters:
    ///   - environment: Where the browser session runs. Default `SessionEnvironment.standard`.
    ///   - configureSession: Adjusts the session before it starts (timeout, ephemeral browser,
    ///     progress handler, logger…).
    /// - Returns: The validated tokens.
    /// - Throws: `OAuthError` — `OAuthError.Code.session` when the browser session ends
    ///   without a callback (cancelled, timed out…), or any check's code.
    public func signIn(
        environment: SessionEnvironment = .standard,
        configureSession: (WebAuthSession) -> Void = { _ in }
    ) async throws(OAuthError) -> TokenSet {
        let authorization = try await prepareAuthorization()
        // The keys that will check the ID token are fetched while the person signs in, not
        // after the callback; a prefetch still under way when the sign-in ends is cancelled.
        let cancelKeyFetch = await prefetchKeysWhileSigningIn()
        defer { cancelKeyFetch?() }
        // A push that fails ends the session; its own error is the one reported.
        let pushFailure = PushFailure()
        let session = WebAuthSession(
            callback: authorization.callback, environment: environment,
            pushingAuthorizationURL: { (redirectURI) throws(WebAuthenticationSessionError) in
                do throws(OAuthError) {
                    return try await authorization.authorizationURL(redirectURI: redirectURI)
                } catch {
                    pushFailure.error.withLock { $0 = error }
                    throw .invalidAuthorizationURL("the authorization request could not be pushed: \(error.code)")
                }
            })
        let validator = authorization.validator
        session.acceptsReceivedCallback = { received in validator.answersRequest(received.parameters) }
        session.logger = logger
        configureSession(session)
        let received = try await session.receivedCallback(orFailure: { pushFailure.error.withLock { $0 } })
        return try await completeAuthorization(authorization, received: received)
    }
}

extension WebAuthSession {
    /// Runs the session and returns the callback it received; when it ends without one, the
    /// error `failure` gives (the reason it was ended, when the flow ended it itself), else an
    /// `OAuthError.Code.session` error wrapping the session's.
    func receivedCallback(orFailure failure: () -> OAuthError? = { nil }) async throws(OAuthError) -> ReceivedCallback {
        do throws(WebAuthenticationSessionError) {
            return try await authenticate()
        } catch {
            if let failure = failure() { throw failure }
            throw OAuthError(code: .session, message: "the browser session ended: \(error)", sessionError: error)
        }
    }
}

/// The error a failed push (PAR) ended the session with, kept for the sign-in to throw.
private final class PushFailure: Sendable {
    let error = Locked<OAuthError?>(nil)
}
