// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthCore
package import WebAuthOAuth
package import WebAuthTokenStore

/// The tokens the agent got by exchanging held profiles' access tokens (RFC 8693), kept in
/// memory per profile and ``ExchangeTarget`` so that asking again for the same target needs no
/// request while the kept token is valid for the validity asked.
///
/// The rules are the token store's for ``StoredTokens/exchangedTokens``: one token per target
/// (targets are equal whatever order their scopes were given in), expired ones dropped when
/// another is kept, and at most ``StoredExchange/limitPerProfile`` per profile, the newest.
/// Each profile's tokens are kept as one sealed entry (`SealedBytes`), in locked memory that is zeroed when
/// it is given back; ``forget(_:)`` and ``forgetAll(except:)`` drop a profile's.
package struct AgentExchanges: Sendable {
    /// The kept tokens, by profile: an entry holding only ``StoredTokens/exchangedTokens``.
    private var kept: [String: SealedBytes] = [:]

    /// An empty table.
    package init() {}

    /// The token kept for `profile` and `target`, if it is valid for at least
    /// `minimumValidity` after `now`.
    package func tokens(
        profile: String, for target: ExchangeTarget, minimumValidity: Duration, now: Date
    ) -> TokenSet? {
        kept[profile]?.entry?.exchangedToken(for: target, now: now, minimumValidity: minimumValidity)?.tokens
    }

    /// Keeps `tokens`, exchanged for `target`, for `profile`: in place of any token for that
    /// target, with the profile's expired tokens dropped and at most
    /// ``StoredExchange/limitPerProfile`` kept (the newest).
    package mutating func keep(
        _ tokens: TokenSet, issuedTokenType: TokenTypeIdentifier, profile: String, for target: ExchangeTarget,
        now: Date
    ) {
        var entry = kept[profile]?.entry ?? StoredTokens(tokens: TokenSet(accessToken: ""), clientID: "")
        entry.keep(StoredExchange(target: target, tokens: tokens, issuedTokenType: issuedTokenType), now: now)
        // An entry that cannot be sealed is not kept: the next request exchanges again.
        kept[profile] = SealedBytes(sealing: entry)
    }

    /// Forgets every token kept for `profile`.
    package mutating func forget(_ profile: String) {
        kept[profile] = nil
    }

    /// Forgets the tokens of every profile for which `isHeld` is `false`.
    package mutating func forgetAll(except isHeld: (String) -> Bool) {
        for profile in kept.keys where !isHeld(profile) { kept[profile] = nil }
    }

    /// The targets a token is kept for, for `profile` (expired ones included until they are
    /// dropped), sorted by when the token was received.
    package func targets(of profile: String) -> [ExchangeTarget] {
        kept[profile]?.entry?.exchangedTokens.map(\.target) ?? []
    }

    /// The profiles with kept tokens.
    package var profiles: Set<String> { Set(kept.keys) }
}
