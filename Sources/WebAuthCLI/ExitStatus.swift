// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
package import WebAuth
package import WebAuthOAuth
package import WebAuthTokenStore

/// The exit statuses of `webauth`, one per kind of ending, stable across releases.
package enum ExitStatus {
    /// The command did what was asked (for `open`: the callback arrived).
    package static let success: Int32 = 0
    /// A failure with no status of its own.
    package static let failure: Int32 = 1
    /// The person cancelled in the browser (closed the window), or refused there: the
    /// authorization endpoint answered `access_denied`, `consent_required`,
    /// `interaction_required` or `login_required`.
    package static let cancelledByUser: Int32 = 2
    /// No callback arrived within `--timeout`, or a device code expired unapproved.
    package static let timedOut: Int32 = 3
    /// No browser can be used, or none can do what was asked.
    package static let noBrowser: Int32 = 4
    /// The browser failed to start.
    package static let browserLaunchFailed: Int32 = 5
    /// The callback listener failed, such as a busy `--loopback-port`.
    package static let listenerFailed: Int32 = 6
    /// The authorization URL, the callback, a pasted URL, or what the calling program sent (git's
    /// credential input, `KUBERNETES_EXEC_INFO`, or the cluster it names when `exec-credential
    /// --cluster-server` allows others), or a redirect (`request`) was not acceptable.
    package static let invalidInput: Int32 = 7
    /// The profile has no stored sign-in, or its access token expired with no way to refresh
    /// it: run `webauth login`.
    package static let notSignedIn: Int32 = 8
    /// The provider refused: the refresh token (`invalid_grant`), the client (`invalid_client`),
    /// or the person on another device (`access_denied` in the device flow). Signing in again
    /// usually helps.
    package static let providerRefused: Int32 = 9
    /// The provider's answer was unusable or failed a check (metadata, ID token, an unexpected
    /// status, a missing endpoint, a server error).
    package static let providerError: Int32 = 10
    /// The provider could not be reached, or did not answer in time.
    package static let networkFailed: Int32 = 11
    /// The token store failed: unsafe permissions, a corrupt entry, a lock held too long, no
    /// usable keyring.
    package static let tokenStoreFailed: Int32 = 12
    /// `webauth logout` forgot the tokens here, but revoking them at the provider failed: they
    /// may stay valid until they expire.
    package static let revocationFailed: Int32 = 13
    /// `webauth logout --end-session` revoked and forgot the tokens, but signing out of the
    /// provider (its end-session page) failed: the person may still be signed in there.
    package static let endSessionFailed: Int32 = 14
    /// `request`: the server's final answer was a `1xx` or a `3xx` (a redirect that is not
    /// followed, such as `304`).
    package static let httpRedirection: Int32 = 20
    /// `request`: the server answered `4xx` (after one refresh and retry, for `401`).
    package static let httpClientError: Int32 = 21
    /// `request`: the server answered `5xx`.
    package static let httpServerError: Int32 = 22
    /// The command line, or the client configuration it names, could not be used (from
    /// swift-argument-parser for the command line).
    package static let usage: Int32 = 64
    /// Interrupted with Ctrl-C (SIGINT).
    package static let interrupted: Int32 = 130
    /// Terminated with SIGTERM.
    package static let terminated: Int32 = 143

    /// The status for a session error.
    package static func status(for error: WebAuthenticationSessionError) -> Int32 {
        switch error.code {
        case .canceledLogin where error.cancellationReason == .user: cancelledByUser
        case .canceledLogin: interrupted
        case .timedOut: timedOut
        case .noBrowserAvailable, .browserCannotHonorRequest, .presentationContextInvalid,
            .presentationContextNotProvided:
            noBrowser
        case .browserLaunchFailed: browserLaunchFailed
        case .callbackListenerFailed: listenerFailed
        case .invalidAuthorizationURL, .invalidCallback, .callbackMismatch, .noCallbackReceiver, .invalidHeaderField:
            invalidInput
        default: failure
        }
    }

    /// The status for an OAuth error.
    package static func status(for error: OAuthError) -> Int32 {
        switch error.code {
        case .session:
            return error.sessionError.map { status(for: $0) } ?? failure
        case .server:
            if let server = error.serverError, server.endpoint == .authorization,
                personalRefusals.contains(server.code)
            {
                return cancelledByUser
            }
            switch error.serverError?.code {
            case .serverError?, .temporarilyUnavailable?, .invalidRequest?, .unsupportedGrantType?,
                .unsupportedResponseType?, .unsupportedTokenType?:
                return providerError
            default:
                return providerRefused
            }
        case .stateMismatch, .issuerMismatch, .issuerMissing, .invalidCallback, .tokenInQuery:
            return invalidInput
        case .transportFailed, .timedOut:
            return networkFailed
        case .invalidConfiguration, .insecureEndpoint:
            return usage
        case .noRefreshToken:
            return notSignedIn
        case .redirectRefused:
            return invalidInput
        case .deviceCodeExpired:
            return timedOut
        default:
            return providerError
        }
    }

    /// The authorization endpoint's answers that mean the person, in the browser, did not let
    /// the sign-in go on: refused it, or did not consent, sign in or answer as the provider asked.
    package static let personalRefusals: Set<OAuthServerError.Code> = [
        .accessDenied, .consentRequired, .interactionRequired, .loginRequired,
    ]

    /// The status for an HTTP status code: `0` for `2xx`, else the status of its class.
    package static func status(forHTTPStatus code: Int) -> Int32 {
        switch code {
        case 200..<300: success
        case 400..<500: httpClientError
        case 500..<600: httpServerError
        default: httpRedirection
        }
    }

    /// The status for a token store error.
    package static func status(for error: TokenStoreError) -> Int32 {
        error.code == .invalidProfileName ? usage : tokenStoreFailed
    }

    /// The line a command's help gives in place of the table.
    static let pointer = "Exit statuses: `webauth help exit-status`, or `man webauth`."

    /// The table `webauth exit-status` prints, shown by `webauth help exit-status` and in the
    /// manual page.
    static let helpText = """
        Exit status:
          0    success (open: the callback arrived, its URL is on standard output)
          1    another failure
          2    the sign-in was cancelled or refused in the browser (access_denied, consent_required, …)
          3    timed out waiting for the callback (or the device code expired)
          4    no usable browser (or none can do what was asked)
          5    the browser failed to start
          6    the callback listener failed (for example the port is busy)
          7    the URL, callback, pasted URL, git's input, KUBERNETES_EXEC_INFO (or its cluster) or a redirect was not acceptable
          8    not signed in (no stored sign-in, or expired with no refresh token)
          9    the provider refused (invalid_grant, invalid_client, …): sign in again
          10   the provider's answer was unusable or failed a check
          11   the provider could not be reached or did not answer in time
          12   the token store failed (permissions, corrupt entry, lock, keyring)
          13   logout: forgotten here, but revoking at the provider failed
          14   logout --end-session: revoked and forgotten, but signing out of the provider failed
          20   request: the answer was 1xx or 3xx (a redirect that is not followed)
          21   request: the answer was 4xx
          22   request: the answer was 5xx
          64   usage error (or an unusable client configuration)
          130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
        """
}
