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
        terminal.line("  refresh token:  " + (tokens.refreshToken == nil ? "none" : "held"))
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
        object["issuer"] = EntryDescription.issuer(of: entry) ?? NSNull()
        object["subject"] = subject ?? NSNull()
        object["expires_at"] = tokens.expiresAt.map(JSONDate.string) ?? NSNull()
        output.emit(object)
    }
}
