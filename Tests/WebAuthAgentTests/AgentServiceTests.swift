// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthCore
import WebAuthOAuth
import WebAuthPlatform
import WebAuthTokenFiles
import WebAuthTokenStore

/// What the agent answers at once, on its event loop, and what it leaves to the actor: the same
/// decisions the holder makes for every request, with a clock the test sets.
@Suite("The agent's immediate answers")
struct AgentServiceTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A service holding `work` (agent only: nothing on disk), its token living 1000 s from `start`.
    static func service(
        confirming: Bool = false, policy: AgentHolder.Policy = .init(), clock: ManualAgentClock = ManualAgentClock(start)
    ) async throws -> AgentService {
        let service = AgentService(
            policy: policy, stores: TokenStores(selection: .file, environment: ["HOME": "/nonexistent"]),
            confirmation: confirming ? { @Sendable _ in true } : nil, clock: clock, logger: .webAuthSilent)
        let entry = StoredTokens(
            tokens: TokenSet(
                accessToken: "at-1", refreshToken: "rt-1", expiresAt: start.addingTimeInterval(1000),
                receivedAt: start), clientID: "client")
        let text = String(decoding: try TokenEntryFormat.encoder().encode(entry), as: UTF8.self)
        let added = await service.answer(
            AgentRequest(.add, profile: "work", entry: text), from: Self.asker)
        #expect(added.ok)
        return service
    }

    static let asker = AgentService.Asker(processID: 1, userID: 0)

    static func line(_ request: AgentRequest) -> [UInt8] { Array(request.line().dropLast()) }

    @Test func aHeldFreshTokenIsAnsweredAtOnceAsTheActorWouldAnswerIt() async throws {
        let service = try await Self.service()
        let request = AgentRequest(.token, profile: "work", minimumValidity: 60)
        let immediate = try #require(service.immediateAnswer(to: Self.line(request)))
        let fromActor = await service.answer(request, from: Self.asker)
        #expect(AgentAnswer(line: Array(immediate.dropLast())) == fromActor)
        #expect(fromActor.token?.accessToken == "at-1")
        // The same line again, now read from memory, answers the same.
        #expect(service.immediateAnswer(to: Self.line(request)) == immediate)
    }

    @Test func whatNeedsMoreThanTheHeldTokenIsLeftToTheActor() async throws {
        let service = try await Self.service()
        let unanswered: [AgentRequest] = [
            AgentRequest(.token, profile: "work", minimumValidity: 2000),  // needs a refresh
            AgentRequest(.token, profile: "other"),  // not held
            AgentRequest(.token, profile: "work", scopes: ["read"]),
            AgentRequest(.token, profile: "work", audience: "api"),
            AgentRequest(.token, profile: "../work"),
            AgentRequest(.token, profile: "work", minimumValidity: -1),
            AgentRequest(.status), AgentRequest(.remove, profile: "work"), AgentRequest(.stop),
        ]
        for request in unanswered {
            #expect(service.immediateAnswer(to: Self.line(request)) == nil, "\(request)")
        }
        #expect(service.immediateAnswer(to: Array(#"{"v":2,"op":"token","profile":"work"}"#.utf8)) == nil)
        #expect(service.immediateAnswer(to: Array("not json".utf8)) == nil)
        #expect(await service.holds("work"), "declining changed nothing")
    }

    @Test func anAgentThatConfirmsAnswersNothingAtOnce() async throws {
        let service = try await Self.service(confirming: true)
        #expect(service.immediateAnswer(to: Self.line(AgentRequest(.token, profile: "work"))) == nil)
    }

    @Test func aRemovedOrExpiredProfileIsNoLongerAnsweredAtOnce() async throws {
        let clock = ManualAgentClock(Self.start)
        let service = try await Self.service(clock: clock)
        let request = Self.line(AgentRequest(.token, profile: "work", minimumValidity: 60))
        #expect(service.immediateAnswer(to: request) != nil)
        clock.set(Self.start.addingTimeInterval(950))
        #expect(service.immediateAnswer(to: request) == nil, "50 s left: a refresh first")
        _ = await service.answer(AgentRequest(.remove, profile: "work"), from: Self.asker)
        #expect(service.immediateAnswer(to: request) == nil)
    }
}
