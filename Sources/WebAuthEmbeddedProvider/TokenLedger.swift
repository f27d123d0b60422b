// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What a family of tokens stands for: a person's authorization of a client for some scopes.
struct TokenGrant: Sendable, Hashable {
    /// The client the tokens were issued to.
    var clientID: String
    /// The person (`sub`).
    var subject: String
    /// The scopes granted.
    var scopes: [String]
    /// When the person signed in (`auth_time`).
    var authenticatedAt: Date
    /// The thumbprint of the DPoP key the tokens are bound to (RFC 9449), if they are.
    var dpopJKT: String? = nil
    /// The audiences and resources a token exchange issued the tokens for (RFC 8693).
    var audience: [String] = []
}

/// The provider's bookkeeping of issued tokens, as a value: which access and refresh tokens
/// exist, which grant ("family") each belongs to, which refresh tokens were rotated away, and
/// what revoking one means for the others. Pure: tokens and times come in as arguments, so
/// every rule is tested without a server.
///
/// Only the digests of tokens are kept (``ProviderSecrets/digest(_:)``); callers pass the
/// tokens themselves and the ledger digests them.
struct TokenLedger: Sendable {
    /// A grant and the tokens issued for it.
    struct Family: Sendable {
        var grant: TokenGrant
        var accessTokens: Set<String> = []
        var refreshTokens: Set<String> = []
        /// When the last of its tokens expires.
        var expiresAt: Date
    }

    private struct AccessRecord: Sendable {
        var family: Int
        var expiresAt: Date
    }

    private struct RefreshRecord: Sendable {
        var family: Int
        var expiresAt: Date
        /// Rotated away: presenting it again means someone kept a copy.
        var isRetired: Bool
    }

    /// How long tokens live, and whether refresh tokens rotate.
    struct Policy: Sendable {
        var accessTokenLifetime: Duration
        var refreshTokenLifetime: Duration
        var rotatesRefreshTokens: Bool
    }

    let policy: Policy
    /// The most families kept; beyond it, expired families go first, then the oldest.
    let capacity: Int
    private(set) var families: [Int: Family] = [:]
    private var accessTokens: [String: AccessRecord] = [:]
    private var refreshTokens: [String: RefreshRecord] = [:]
    private var nextFamily = 1

    init(policy: Policy, capacity: Int) {
        self.policy = policy
        self.capacity = max(capacity, 1)
    }

    /// Tokens the ledger has just recorded, for the response.
    struct Issued: Sendable {
        var family: Int
        var accessToken: String
        var accessTokenExpiresAt: Date
        /// The new refresh token; `nil` when a refresh without rotation keeps the old one.
        var refreshToken: String?
        var grant: TokenGrant
    }

    /// Records a new family for `grant` with its first access token and refresh token (none for
    /// the client credentials grant).
    mutating func issue(_ grant: TokenGrant, accessToken: String, refreshToken: String?, now: Date) -> Issued {
        makeRoom(now: now)
        let family = nextFamily
        nextFamily += 1
        let accessExpiry = now.adding(policy.accessTokenLifetime)
        let refreshExpiry = refreshToken == nil ? accessExpiry : now.adding(policy.refreshTokenLifetime)
        families[family] = Family(grant: grant, expiresAt: max(accessExpiry, refreshExpiry))
        addAccessToken(accessToken, to: family, expiresAt: accessExpiry)
        if let refreshToken { addRefreshToken(refreshToken, to: family, expiresAt: refreshExpiry) }
        return Issued(
            family: family, accessToken: accessToken, accessTokenExpiresAt: accessExpiry, refreshToken: refreshToken,
            grant: grant)
    }

    /// Why a refresh was refused.
    enum RefreshRefusal: Error, Sendable, Hashable {
        /// Not a refresh token of this provider (or of a revoked grant).
        case unknown
        /// Issued to another client.
        case otherClient
        /// Past its lifetime.
        case expired
        /// Already rotated away: the family has now been revoked.
        case reused
        /// Bound to a DPoP key the request did not prove (RFC 9449 §5).
        case wrongKey
    }

    /// Exchanges `presented` for new tokens (RFC 6749 §6): a new access token always, and with
    /// rotation a new refresh token that replaces `presented`. A rotated-away token revokes
    /// the whole family (RFC 9700 §4.14.2).
    mutating func refresh(
        _ presented: String, clientID: String, newAccessToken: String, newRefreshToken: String, now: Date,
        dpopThumbprint: String? = nil
    ) -> Result<Issued, RefreshRefusal> {
        let digest = ProviderSecrets.digest(presented)
        guard let record = refreshTokens[digest], let family = families[record.family] else {
            return .failure(.unknown)
        }
        guard family.grant.clientID == clientID else { return .failure(.otherClient) }
        if let bound = family.grant.dpopJKT, bound != dpopThumbprint { return .failure(.wrongKey) }
        if record.isRetired {
            revokeFamily(record.family)
            return .failure(.reused)
        }
        guard record.expiresAt > now else { return .failure(.expired) }

        pruneExpiredAccessTokens(of: record.family, now: now)
        let accessExpiry = now.adding(policy.accessTokenLifetime)
        addAccessToken(newAccessToken, to: record.family, expiresAt: accessExpiry)
        var issuedRefresh: String?
        if policy.rotatesRefreshTokens {
            refreshTokens[digest]?.isRetired = true
            let refreshExpiry = now.adding(policy.refreshTokenLifetime)
            addRefreshToken(newRefreshToken, to: record.family, expiresAt: refreshExpiry)
            issuedRefresh = newRefreshToken
        }
        return .success(
            Issued(
                family: record.family, accessToken: newAccessToken, accessTokenExpiresAt: accessExpiry,
                refreshToken: issuedRefresh, grant: family.grant))
    }

    /// The grant of `accessToken` if it is live: issued, not revoked, not expired.
    func grant(forAccessToken accessToken: String, now: Date) -> TokenGrant? {
        guard let record = accessTokens[ProviderSecrets.digest(accessToken)], record.expiresAt > now else {
            return nil
        }
        return families[record.family]?.grant
    }

    /// Whether `refreshToken` would be accepted by ``refresh(_:clientID:newAccessToken:newRefreshToken:now:)``.
    func isLive(refreshToken: String, now: Date) -> Bool {
        guard let record = refreshTokens[ProviderSecrets.digest(refreshToken)] else { return false }
        return !record.isRetired && record.expiresAt > now && families[record.family] != nil
    }

    /// What revoking a token did.
    enum Revocation: Sendable, Hashable {
        /// The token is unknown, or belongs to another client: nothing changed.
        case nothing
        /// An access token was revoked.
        case accessToken
        /// A refresh token was revoked, and with it its whole family.
        case family
    }

    /// Revokes `token` (RFC 7009 §2.1) if `clientID` holds it: an access token alone, a
    /// refresh token with every token of its grant. `hint` says which table to look in first.
    mutating func revoke(_ token: String, hint: String?, clientID: String) -> Revocation {
        let digest = ProviderSecrets.digest(token)
        let refreshFirst = hint == "refresh_token"
        for lookRefresh in refreshFirst ? [true, false] : [false, true] {
            if lookRefresh, let record = refreshTokens[digest] {
                guard families[record.family]?.grant.clientID == clientID else { return .nothing }
                revokeFamily(record.family)
                return .family
            }
            if !lookRefresh, let record = accessTokens[digest] {
                guard families[record.family]?.grant.clientID == clientID else { return .nothing }
                accessTokens[digest] = nil
                families[record.family]?.accessTokens.remove(digest)
                return .accessToken
            }
        }
        return .nothing
    }

    /// Forgets every token of `family`.
    mutating func revokeFamily(_ family: Int) {
        guard let removed = families.removeValue(forKey: family) else { return }
        for digest in removed.accessTokens { accessTokens[digest] = nil }
        for digest in removed.refreshTokens { refreshTokens[digest] = nil }
    }

    /// How many families are live, for tests and bounds.
    var familyCount: Int { families.count }

    // MARK: - Internals

    private mutating func addAccessToken(_ token: String, to family: Int, expiresAt: Date) {
        let digest = ProviderSecrets.digest(token)
        accessTokens[digest] = AccessRecord(family: family, expiresAt: expiresAt)
        guard var record = families[family] else { return }
        record.accessTokens.insert(digest)
        record.expiresAt = max(record.expiresAt, expiresAt)
        families[family] = record
    }

    private mutating func addRefreshToken(_ token: String, to family: Int, expiresAt: Date) {
        let digest = ProviderSecrets.digest(token)
        refreshTokens[digest] = RefreshRecord(family: family, expiresAt: expiresAt, isRetired: false)
        guard var record = families[family] else { return }
        record.refreshTokens.insert(digest)
        record.expiresAt = max(record.expiresAt, expiresAt)
        families[family] = record
    }

    private mutating func pruneExpiredAccessTokens(of family: Int, now: Date) {
        guard let digests = families[family]?.accessTokens else { return }
        for digest in digests where (accessTokens[digest]?.expiresAt ?? now) <= now {
            accessTokens[digest] = nil
            families[family]?.accessTokens.remove(digest)
        }
    }

    /// Makes room for one more family: drops expired families, then the oldest ones.
    private mutating func makeRoom(now: Date) {
        guard families.count >= capacity else { return }
        for (id, family) in families where family.expiresAt <= now { revokeFamily(id) }
        while families.count >= capacity, let oldest = families.keys.min() { revokeFamily(oldest) }
    }
}

extension Date {
    /// The date `duration` later.
    func adding(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
