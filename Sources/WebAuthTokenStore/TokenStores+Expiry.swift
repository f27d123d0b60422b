// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthCore
import WebAuthOAuth

extension TokenStores {
    /// Marks the stored access token of `profile` as expired, so that the next
    /// ``freshTokens(profile:minimumValidity:)`` refreshes it — but only while the stored access
    /// token is `accessToken`. Nothing else changes: the refresh token, the ID token and the
    /// configuration stay, so this is not a sign-out.
    ///
    /// A program told that a token was refused (git's credential helper `erase`) calls this
    /// with the token it was told about. When another process has refreshed in the meantime,
    /// the stored token is a newer one and is left alone. The check and the change run under
    /// the profile's lock (see ``StoredProfile``).
    ///
    /// ```swift
    /// let expired = try await TokenStores().expireAccessToken(profile: "work", ifItIs: refused)
    /// ```
    ///
    /// - Parameters:
    ///   - profile: The profile.
    ///   - accessToken: The access token that was refused.
    ///   - now: The time the token counts as expired from.
    /// - Returns: Whether the stored access token was `accessToken` and is now marked expired;
    ///   `false` when the profile is not signed in or holds another access token.
    /// - Throws: ``TokenStoreError`` when the stores cannot be read or written.
    @discardableResult
    public func expireAccessToken(profile: String, ifItIs accessToken: String, now: Date = Date()) async throws
        -> Bool
    {
        guard let (_, entry) = try await find(profile: profile), entry.tokens.accessToken == accessToken else {
            return false
        }
        var expired = false
        do {
            _ = try await StoredProfile(profile, in: self).update { tokens in
                guard tokens.accessToken == accessToken else { return tokens }
                var changed = tokens
                changed.expiresAt = min(tokens.expiresAt ?? now, now)
                expired = true
                return changed
            }
        } catch let error as TokenStoreError where error.code == .notSignedIn {
            return false  // signed out meanwhile: nothing to expire
        }
        return expired
    }
}
