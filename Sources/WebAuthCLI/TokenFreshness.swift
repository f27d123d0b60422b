import Foundation
import WebAuthOAuth
import WebAuthTokenStore

/// What `webauth token` does with a stored entry, decided from the entry and the time alone.
enum TokenFreshness: Equatable, Sendable {
    /// The access token is valid for at least the minimum validity: print it.
    case fresh
    /// It expires within the minimum validity and can be refreshed with this configuration.
    case needsRefresh(ClientConfiguration)
    /// It expires within the minimum validity and cannot be refreshed: sign in again.
    case cannotRefresh(CannotRefresh)

    /// Why an entry cannot be refreshed.
    enum CannotRefresh: Equatable, Sendable {
        /// There is no refresh token.
        case noRefreshToken
        /// The entry does not say which client and provider to refresh with.
        case noConfiguration
    }

    /// Decides for `entry` at `now`. A token with no known expiry is always fresh.
    static func of(_ entry: StoredTokens, now: Date, minimumValidity: Duration) -> TokenFreshness {
        guard entry.tokens.isExpired(at: now, margin: minimumValidity) else { return .fresh }
        guard entry.tokens.refreshToken != nil else { return .cannotRefresh(.noRefreshToken) }
        guard let configuration = entry.configuration else { return .cannotRefresh(.noConfiguration) }
        return .needsRefresh(configuration)
    }

    /// The failure to report for an entry that cannot be refreshed.
    static func failure(_ reason: CannotRefresh, profile: String) -> CommandFailure {
        switch reason {
        case .noRefreshToken: .expiredWithoutRefreshToken(profile: profile)
        case .noConfiguration: .noConfiguration(profile: profile, toDo: "refreshed")
        }
    }
}
