// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthPlatform

/// Decides which callback URLs end an OAuth 1.0a session: those whose `oauth_token` (or
/// Twitter-style `denied`) is the temporary token this sign-in obtained.
///
/// The rule exists before the token does — the loopback listener is bound first, so that the
/// redirect URI can go into the temporary-credential request — and until ``expect(_:)`` is
/// called it accepts nothing.
final class OAuth1CallbackGate: Sendable {
    private let expected = Locked<String?>(nil)

    /// From now on, accept callbacks for `token`.
    func expect(_ token: String) { expected.withLock { $0 = token } }

    /// Whether `url` carries the expected token as `oauth_token` or `denied`.
    func accepts(_ url: URL) -> Bool {
        guard let token = expected.withLock({ $0 }) else { return false }
        let parameters = OAuth1CallbackGate.queryParameters(of: url)
        return parameters.contains { ($0.0 == "oauth_token" || $0.0 == "denied") && $0.1 == token }
    }

    /// The decoded query parameters of `url`, in order.
    static func queryParameters(of url: URL) -> [(String, String)] {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else {
            return []
        }
        return FormEncoding.decode(query)
    }
}

/// A receiver that hands the session a loopback listener that is already listening.
///
/// OAuth 1.0a sends the callback URI in the temporary-credential request, before the browser
/// opens, but a session binds its loopback port only once it starts. So ``OAuth1Client`` binds
/// the listener itself with the environment's own receiver, asks for the temporary credentials
/// with the listener's redirect URI, and then starts the session with this receiver, which
/// gives it that same listener. The port is never released in between, so no other program can
/// take it.
struct PreboundLoopbackReceiver: CallbackReceiver {
    /// The listener, bound with `OAuth1CallbackGate.accepts(_:)` as its acceptance rule.
    let listener: any CallbackListener

    func canReceive(_ callback: Callback) -> Bool { callback.isLoopback }

    /// Returns the bound listener. Its acceptance rule is the gate's, which is also the rule
    /// the session is given, so `accepting` adds nothing.
    func listen(
        for callback: Callback, accepting: @escaping @Sendable (URL) -> Bool
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        listener
    }
}
