// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthOAuth
import WebAuthTokenStore

/// What `webauth login` reports once signed in: on standard error for people, and with
/// `--json` on standard output — never a token.
struct LoginSummary {
    /// The profile.
    let profile: String
    /// The stored entry.
    let entry: StoredTokens
    /// The store's kind.
    let kind: TokenStoreKind
    /// The store's location.
    let location: String
    /// How the sign-in went.
    let method: SignInPlan.Method
    /// The agent's socket, when the tokens went to the agent alone (nothing stored).
    var agentSocket: String? = nil

    /// Whether the provider granted `offline_access`, when it was asked for: `false` when the
    /// token answer's `scope` leaves it out (OpenID Connect Core §11 lets a provider ignore it,
    /// and its refresh token then ends with the browser's sign-in at the provider); `nil` when it
    /// was not asked for.
    var offlineAccessGranted: Bool? {
        guard entry.configuration?.scopes.contains("offline_access") == true else { return nil }
        return entry.tokens.scopes.contains("offline_access")
    }

    /// The refresh token line: held or none, and whether offline access was refused.
    var refreshTokenLine: String {
        let held = entry.tokens.refreshToken != nil
        guard offlineAccessGranted == false else { return held ? "held" : "none" }
        return held
            ? "held, but offline_access was not granted: it may stop working when the provider's browser session ends"
            : "none (offline_access was not granted)"
    }

    /// Writes the summary.
    func report(terminal: TerminalOutput, output: CommandOutput) {
        let tokens = entry.tokens
        let subject = tokens.idTokenClaims?.subject
        let issuer = EntryDescription.issuer(of: entry) ?? "the provider"
        terminal.success(
            "Signed in" + (subject.map { " as \($0)" } ?? "") + " at \(issuer) (profile \"\(profile)\").")
        let now = Date()
        terminal.line(
            "  scopes:         " + (tokens.scopes.isEmpty ? "(none listed)" : tokens.scopes.joined(separator: " ")))
        terminal.line("  access token:   " + EntryDescription.expiry(tokens.expiresAt, now: now))
        terminal.line("  refresh token:  " + refreshTokenLine)
        if let agentSocket {
            terminal.line("  held by:        the agent on \(agentSocket) (nothing stored)")
        } else {
            terminal.line("  stored in:      \(kind): \(location)")
        }
        guard output.json else { return }
        var object: [String: Any] = [
            "profile": profile, "client_id": entry.clientID, "scopes": tokens.scopes,
            "has_refresh_token": tokens.refreshToken != nil, "store": agentSocket == nil ? kind.rawValue : "agent",
            "location": agentSocket ?? location,
            "method": method.rawValue,
        ]
        if let granted = offlineAccessGranted { object["offline_access_granted"] = granted }
        object["issuer"] = EntryDescription.issuer(of: entry) ?? NSNull()
        object["subject"] = subject ?? NSNull()
        object["expires_at"] = tokens.expiresAt.map(JSONDate.string) ?? NSNull()
        output.emit(object)
    }
}
