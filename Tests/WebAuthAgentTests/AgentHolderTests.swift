// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthOAuth
import WebAuthTokenStore

/// The agent's decisions, driven by a clock the test sets.
@Suite("The agent's holder: serving, refreshing ahead, forgetting")
struct AgentHolderTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// An entry whose access token was received at `start` and lives `lifetime` seconds.
    static func entry(lifetime: TimeInterval = 1000, token: String = "at-1") -> StoredTokens {
        StoredTokens(
            tokens: TokenSet(
                accessToken: token, refreshToken: "rt", expiresAt: start.addingTimeInterval(lifetime),
                receivedAt: start), clientID: "client")
    }

    @Test func aHeldTokenValidLongEnoughIsServedElseRefreshedFirst() {
        var holder = AgentHolder(policy: .init())
        holder.add(Self.entry(), profile: "work", source: .store, now: Self.start)
        guard case .serve(let line) = holder.decide(profile: "work", minimumValidity: .seconds(60), now: Self.start)
        else {
            Issue.record("not served")
            return
        }
        #expect(line.last == UInt8(ascii: "\n"))
        let answer = AgentAnswer(line: Array(line.dropLast()))
        #expect(answer?.token?.accessToken == "at-1")
        #expect(answer?.token?.expiresAt == Self.start.addingTimeInterval(1000).timeIntervalSince1970)
        #expect(!String(decoding: line, as: UTF8.self).contains("rt"), "the refresh token stays in the agent")
        // 950 s in, 50 s are left: a request for 60 s needs a refresh, one for 30 s does not.
        let later = Self.start.addingTimeInterval(950)
        #expect(holder.decide(profile: "work", minimumValidity: .seconds(60), now: later) == .refresh)
        #expect(holder.decide(profile: "work", minimumValidity: .seconds(30), now: later) != .refresh)
        #expect(holder.decide(profile: "other", minimumValidity: .seconds(60), now: later) == .notHeld)
    }

    @Test func aTokenIsRefreshedAheadInTheLastFifthOfItsLifetime() {
        var holder = AgentHolder(policy: .init())
        holder.add(Self.entry(lifetime: 1000), profile: "work", source: .store, now: Self.start)
        #expect(!holder.needsRefreshAhead("work", now: Self.start.addingTimeInterval(799)))
        #expect(holder.needsRefreshAhead("work", now: Self.start.addingTimeInterval(800)))
        #expect(holder.profilesToRefreshAhead(now: Self.start.addingTimeInterval(900)) == ["work"])
        #expect(holder.nextEvent(now: Self.start) == Self.start.addingTimeInterval(800))

        var renewed = Self.entry(lifetime: 1000, token: "at-2").tokens
        renewed.receivedAt = Self.start.addingTimeInterval(800)
        renewed.expiresAt = Self.start.addingTimeInterval(1800)
        holder.refreshed("work", tokens: renewed)
        #expect(!holder.needsRefreshAhead("work", now: Self.start.addingTimeInterval(900)))
        #expect(holder.nextEvent(now: Self.start.addingTimeInterval(900)) == Self.start.addingTimeInterval(1600))
    }

    @Test func aRefusedProfileIsRefusedUntilAddedAgainAndNotRefreshedAhead() {
        var holder = AgentHolder(policy: .init())
        holder.add(Self.entry(), profile: "work", source: .store, now: Self.start)
        holder.refusedRefresh("work", reason: "invalid_grant")
        let late = Self.start.addingTimeInterval(900)
        #expect(holder.decide(profile: "work", minimumValidity: .zero, now: late) == .refused("invalid_grant"))
        #expect(!holder.needsRefreshAhead("work", now: late))
        holder.add(Self.entry(), profile: "work", source: .store, now: late)
        #expect(holder.decide(profile: "work", minimumValidity: .zero, now: late) != .refused("invalid_grant"))
    }

    @Test func aProfileIsForgottenAfterItsLifetime() {
        var holder = AgentHolder(policy: .init(lifetime: .seconds(300)))
        holder.add(Self.entry(), profile: "work", source: .agentOnly, now: Self.start)
        holder.add(Self.entry(), profile: "short", source: .store, now: Self.start, lifetime: .seconds(100))
        #expect(holder.forgetExpired(now: Self.start.addingTimeInterval(99)) == [])
        #expect(holder.forgetExpired(now: Self.start.addingTimeInterval(100)) == ["short"])
        #expect(
            holder.decide(profile: "work", minimumValidity: .zero, now: Self.start.addingTimeInterval(300)) == .notHeld)
        #expect(holder.forgetExpired(now: Self.start.addingTimeInterval(300)) == ["work"])
    }

    @Test func aProfileNotAskedForDuringTheIdleTimeIsForgotten() {
        var holder = AgentHolder(policy: .init(idle: .seconds(60)))
        holder.add(Self.entry(), profile: "work", source: .store, now: Self.start)
        holder.used("work", now: Self.start.addingTimeInterval(50))
        #expect(holder.forgetExpired(now: Self.start.addingTimeInterval(100)) == [])
        #expect(holder.nextEvent(now: Self.start.addingTimeInterval(100)) == Self.start.addingTimeInterval(110))
        #expect(holder.forgetExpired(now: Self.start.addingTimeInterval(110)) == ["work"])
    }
}

extension AgentHolderTests {
    @Test func aHeldEntryReadsBackAsItWasAddedAndAfterARefresh() {
        var holder = AgentHolder(policy: .init())
        let entry = Self.entry()
        holder.add(entry, profile: "work", source: .agentOnly, now: Self.start)
        // Through the token store's entry format, as a file would keep it.
        let held = holder.profiles["work"]?.entry
        #expect(held?.tokens.accessToken == "at-1")
        #expect(held?.tokens.refreshToken == "rt")
        #expect(held?.tokens.expiresAt == entry.tokens.expiresAt)
        #expect(held?.clientID == entry.clientID)
        var renewed = entry.tokens
        renewed.accessToken = "at-2"
        renewed.refreshToken = "rt-2"
        holder.refreshed("work", tokens: renewed)
        #expect(holder.profiles["work"]?.entry.tokens.accessToken == "at-2")
        #expect(holder.profiles["work"]?.entry.tokens.refreshToken == "rt-2")
        #expect(holder.profiles["work"]?.source == .agentOnly)
    }
}

extension AgentHolderTests {
    @Test func servingAsHeldAnswersTheCurrentTokenCountsAsAUseAndDeclinesWhatNeedsMore() {
        var holder = AgentHolder(policy: .init(idle: .seconds(60)))
        holder.add(Self.entry(), profile: "work", source: .store, now: Self.start)
        let asked = Self.start.addingTimeInterval(50)
        let line = holder.serveAsHeld(profile: "work", minimumValidity: .seconds(60), now: asked)
        #expect(line.flatMap { AgentAnswer(line: Array($0.dropLast())) }?.token?.accessToken == "at-1")
        #expect(holder.profiles["work"]?.lastUsedAt == asked, "a use keeps the profile from its idle end")
        #expect(holder.forgetExpired(now: Self.start.addingTimeInterval(100)) == [])

        // A validity the token does not have, a refused or an unknown profile: left to the service.
        #expect(holder.serveAsHeld(profile: "work", minimumValidity: .seconds(990), now: asked) == nil)
        #expect(holder.serveAsHeld(profile: "other", minimumValidity: .zero, now: asked) == nil)
        holder.refusedRefresh("work", reason: "invalid_grant")
        #expect(holder.serveAsHeld(profile: "work", minimumValidity: .zero, now: asked) == nil)

        // A refresh makes the next answer carry the new token.
        holder.add(Self.entry(), profile: "work", source: .store, now: asked)
        var renewed = Self.entry(token: "at-2").tokens
        renewed.expiresAt = Self.start.addingTimeInterval(2000)
        holder.refreshed("work", tokens: renewed)
        let after = holder.serveAsHeld(profile: "work", minimumValidity: .seconds(1500), now: asked)
        #expect(after.flatMap { AgentAnswer(line: Array($0.dropLast())) }?.token?.accessToken == "at-2")
    }
}
