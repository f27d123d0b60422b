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
/// the listener itself with the environment's own receiver (``bind(_:with:)``), asks for the
/// temporary credentials with the listener's redirect URI, and then starts the session with
/// this receiver, which gives it that same listener. The port is never released in between, so
/// no other program can take it.
///
/// The listener answers each callback request by the rule of the session that took it — which
/// holds the gate (`OAuth1CallbackGate`) as its `acceptsCallback` — so that what it receives is
/// decided once, by the session; until a session takes it, it refuses every callback request.
final class PreboundLoopbackReceiver: CallbackReceiver {
    /// The bound listener.
    let listener: any CallbackListener
    /// The rule of the session that took the listener; `nil` until one did.
    private let sessionRule: Locked<(@Sendable (URL) -> CallbackVerdict)?>

    private init(listener: any CallbackListener, sessionRule: Locked<(@Sendable (URL) -> CallbackVerdict)?>) {
        self.listener = listener
        self.sessionRule = sessionRule
    }

    /// Binds `callback` with `receiver`, refusing every callback request until a session
    /// listens.
    static func bind(
        _ callback: Callback, with receiver: any CallbackReceiver
    ) async throws(WebAuthenticationSessionError) -> PreboundLoopbackReceiver {
        let sessionRule = Locked<(@Sendable (URL) -> CallbackVerdict)?>(nil)
        let listener = try await receiver.listen(for: callback) { url in
            guard let rule = sessionRule.withLock({ $0 }) else {
                return .refused(.callbackMismatch("no sign-in is waiting for the callback yet"))
            }
            return rule(url)
        }
        return PreboundLoopbackReceiver(listener: listener, sessionRule: sessionRule)
    }

    func canReceive(_ callback: Callback) -> Bool { callback.isLoopback }

    /// Returns the bound listener, which answers each callback request by `deciding` from now on.
    func listen(
        for callback: Callback, deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        sessionRule.withLock { $0 = deciding }
        return listener
    }
}
