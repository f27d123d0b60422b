// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthAgentProtocol
import WebAuthCore
package import WebAuthOAuth
import WebAuthTokenFiles
package import WebAuthTokenStore

/// What the agent holds and what it should do next, as a pure state machine: every decision is
/// a function of the held profiles, the agent's ``Policy`` and the time it is given (the clock
/// seam), so the tests drive it with any time they like.
///
/// - A token request is served from the held token when it stays valid for the validity asked;
///   otherwise the profile must be refreshed first.
/// - A profile is refreshed ahead of time when its access token enters the last fifth of its
///   lifetime (``refreshAheadFraction``).
/// - A profile is forgotten its lifetime after it was added, or when no token of it was asked
///   for during the idle time.
/// - A profile whose refresh the provider refused is marked: each request gets that refusal
///   until it is added again.
/// - Through the forwarding door (``AgentDoor/forwarding``) only profiles added with
///   `--forward` are held at all: any other is answered as not held.
package struct AgentHolder: Sendable {
    /// The agent's limits on how long it holds profiles.
    package struct Policy: Sendable, Hashable {
        /// Forget a profile this long after it was added; `nil`: never.
        package var lifetime: Duration?
        /// Forget a profile no token of which was asked for during this long; `nil`: never.
        package var idle: Duration?

        /// A policy.
        package init(lifetime: Duration? = nil, idle: Duration? = nil) {
            self.lifetime = lifetime
            self.idle = idle
        }
    }

    /// Where a held profile came from.
    package enum Source: String, Sendable, Hashable {
        /// The token store: refreshed tokens are written back to it under the profile's lock.
        case store
        /// Signed in to the agent alone (`login --agent-only`): nothing is on disk.
        case agentOnly = "agent-only"
    }

    /// One held profile.
    package struct Held: Sendable {
        /// The entry's long-lived copy (its token-store encoding), in locked memory; `nil` when
        /// it could not be encoded.
        private var sealedEntry: SealedBytes?
        /// The entry as it was given, when it could not be encoded.
        private var unsealed: StoredTokens?
        /// The answer line that hands out the access token, in locked memory: made once per
        /// token, so that serving it is a copy.
        private var sealedAnswer: SealedBytes
        /// When the access token was received.
        package private(set) var receivedAt: Date
        /// When the access token expires, if known.
        package private(set) var expiresAt: Date?

        /// The profile's entry: its tokens and the configuration that refreshes them (decoded
        /// from locked memory on each use: a refresh, not a token request).
        package var entry: StoredTokens {
            get {
                sealedEntry?.entry ?? unsealed ?? StoredTokens(tokens: TokenSet(accessToken: ""), clientID: "")
            }
            set {
                sealedEntry = SealedBytes(sealing: newValue)
                unsealed = sealedEntry == nil ? newValue : nil
                sealedAnswer = SealedBytes(AgentAnswer.tokenLine(serving: newValue))
                receivedAt = newValue.tokens.receivedAt
                expiresAt = newValue.tokens.expiresAt
            }
        }

        /// The answer to a token request for the held token, as one line (`\n` included).
        package var answerLine: [UInt8] { sealedAnswer.bytes }

        init(
            entry: StoredTokens, source: Source, addedAt: Date, forgetAt: Date?, lastUsedAt: Date, refusal: String?,
            forwarded: Bool
        ) {
            self.forwarded = forwarded
            self.receivedAt = entry.tokens.receivedAt
            self.expiresAt = entry.tokens.expiresAt
            self.sealedAnswer = SealedBytes([])
            self.source = source
            self.addedAt = addedAt
            self.forgetAt = forgetAt
            self.lastUsedAt = lastUsedAt
            self.refusal = refusal
            self.entry = entry
        }

        /// Where it came from.
        package var source: Source
        /// When it was added.
        package var addedAt: Date
        /// When it is forgotten, from the lifetime; `nil`: not for its age.
        package var forgetAt: Date?
        /// When a token of it was last handed out (or, before that, when it was added).
        package var lastUsedAt: Date
        /// Why the provider refused its refresh, when it did.
        package var refusal: String?
        /// Whether the forwarding socket serves its tokens (`agent add --forward`).
        package var forwarded: Bool
    }

    /// The part of an access token's lifetime, at its end, in which it is refreshed ahead.
    package static let refreshAheadFraction = 0.2

    /// The policy.
    package let policy: Policy
    /// The held profiles, by name.
    package private(set) var profiles: [String: Held] = [:]

    /// An empty holder with `policy`.
    package init(policy: Policy) {
        self.policy = policy
    }

    /// Holds `entry` as `profile` from `now` on (replacing what was held, and any refusal);
    /// `lifetime` overrides the policy's; `forwarded` serves it on the forwarding socket too.
    package mutating func add(
        _ entry: StoredTokens, profile: String, source: Source, now: Date, lifetime: Duration? = nil,
        forwarded: Bool = false
    ) {
        let life = lifetime ?? policy.lifetime
        profiles[profile] = Held(
            entry: entry, source: source, addedAt: now, forgetAt: life.map { now.addingTimeInterval($0.seconds) },
            lastUsedAt: now, refusal: nil, forwarded: forwarded)
    }

    /// The profile held under `profile` as the request's `door` sees it: through the forwarding
    /// door, only a forwarded one.
    package func held(_ profile: String, through door: AgentDoor) -> Held? {
        guard let held = profiles[profile], door == .full || held.forwarded else { return nil }
        return held
    }

    /// Forgets `profile`; whether it was held.
    @discardableResult
    package mutating func remove(_ profile: String) -> Bool {
        profiles.removeValue(forKey: profile) != nil
    }

    /// What a token request for `profile` needing `minimumValidity` gets at `now`.
    package enum Decision: Sendable, Hashable {
        /// The held token, as it is: its answer line (``Held/answerLine``).
        case serve([UInt8])
        /// The held token is not valid long enough: refresh, then serve.
        case refresh
        /// The profile is not held.
        case notHeld
        /// The provider refused the profile's refresh, with its reason.
        case refused(String)
    }

    /// The decision for a token request through `door` (see ``Decision``).
    package func decide(profile: String, minimumValidity: Duration, now: Date, door: AgentDoor = .full) -> Decision {
        guard let held = held(profile, through: door), !isForgettable(held, now: now) else { return .notHeld }
        if let refusal = held.refusal { return .refused(refusal) }
        // The rule every token store and the fast path hand tokens out by.
        guard TokenFreshnessRule.isFresh(expiresAt: held.expiresAt, at: now, minimumValidity: minimumValidity) else {
            return .refresh
        }
        return .serve(held.answerLine)
    }

    /// The answer line for a token request that can be served as it is — the profile held, not
    /// refused, its token fresh for `minimumValidity` — recorded as a use at `now`; `nil` when
    /// the request needs more (see ``decide(profile:minimumValidity:now:door:)``).
    package mutating func serveAsHeld(
        profile: String, minimumValidity: Duration, now: Date, door: AgentDoor = .full
    ) -> [UInt8]? {
        guard
            case .serve(let line) = decide(profile: profile, minimumValidity: minimumValidity, now: now, door: door)
        else { return nil }
        used(profile, now: now)
        return line
    }

    /// Records that a token of `profile` was handed out at `now` (for the idle time).
    package mutating func used(_ profile: String, now: Date) {
        profiles[profile]?.lastUsedAt = now
    }

    /// Takes refreshed tokens (and a clearing of any refusal).
    package mutating func refreshed(_ profile: String, tokens: TokenSet) {
        guard profiles[profile] != nil else { return }
        profiles[profile]?.entry.tokens = tokens
        profiles[profile]?.refusal = nil
    }

    /// Marks `profile` refused by the provider: requests get `reason` until it is added again.
    package mutating func refusedRefresh(_ profile: String, reason: String) {
        profiles[profile]?.refusal = reason
    }

    /// Whether `profile`'s access token is in the last fifth of its lifetime at `now`, so that
    /// it should be refreshed ahead (and can be: not refused).
    package func needsRefreshAhead(_ profile: String, now: Date) -> Bool {
        guard let held = profiles[profile], held.refusal == nil, let due = refreshAheadAt(held) else { return false }
        return now >= due
    }

    /// When `held`'s access token enters the last fifth of its lifetime; `nil` when its expiry
    /// is not known.
    func refreshAheadAt(_ held: Held) -> Date? {
        guard let expiresAt = held.expiresAt else { return nil }
        let lifetime = max(0, expiresAt.timeIntervalSince(held.receivedAt))
        return expiresAt.addingTimeInterval(-lifetime * Self.refreshAheadFraction)
    }

    /// The profiles to refresh ahead at `now`.
    package func profilesToRefreshAhead(now: Date) -> [String] {
        profiles.keys.sorted().filter { needsRefreshAhead($0, now: now) }
    }

    /// Forgets the profiles whose lifetime or idle time is over at `now`; their names.
    package mutating func forgetExpired(now: Date) -> [String] {
        let gone = profiles.filter { isForgettable($0.value, now: now) }.keys.sorted()
        for name in gone { profiles.removeValue(forKey: name) }
        return gone
    }

    /// The next time something is due — a refresh ahead, a lifetime or idle time ending — after
    /// `now`, if any.
    package func nextEvent(now: Date) -> Date? {
        var times: [Date] = []
        for held in profiles.values {
            if let forgetAt = held.forgetAt { times.append(forgetAt) }
            if let idle = policy.idle { times.append(held.lastUsedAt.addingTimeInterval(idle.seconds)) }
            if held.refusal == nil, let due = refreshAheadAt(held) { times.append(due) }
        }
        return times.filter { $0 > now }.min()
    }

    private func isForgettable(_ held: Held, now: Date) -> Bool {
        if let forgetAt = held.forgetAt, now >= forgetAt { return true }
        if let idle = policy.idle, now >= held.lastUsedAt.addingTimeInterval(idle.seconds) { return true }
        return false
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension AgentAnswer {
    /// The answer that hands out `entry`'s access token, with what the helpers print beside it
    /// (the provider's name and token endpoint host for git's user name, the ID token and its
    /// validated claims for kubectl), as one line. Never the refresh token.
    static func tokenLine(serving entry: StoredTokens) -> [UInt8] {
        let tokens = entry.tokens
        let configuration = entry.configuration
        let claims = tokens.idToken == nil ? nil : tokens.idTokenClaims
        return AgentAnswer(
            ok: true,
            token: AgentAnswer.Token(
                accessToken: tokens.accessToken, tokenType: tokens.tokenType,
                expiresAt: tokens.expiresAt?.timeIntervalSince1970, idToken: tokens.idToken,
                idTokenExpiresAt: claims?.expiresAt.timeIntervalSince1970, providerName: configuration?.name,
                tokenEndpointHost: configuration?.endpoints.token?.host,
                idTokenClaims: claims.map {
                    AgentAnswer.Token.IDClaims(
                        issuer: $0.issuer, subject: $0.subject, audience: $0.audience,
                        issuedAt: $0.issuedAt.timeIntervalSince1970)
                }, issuer: configuration?.issuer?.absoluteString, clientID: configuration?.clientID ?? entry.clientID)
        ).line()
    }
}
