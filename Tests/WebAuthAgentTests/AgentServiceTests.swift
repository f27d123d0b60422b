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
/// decisions the holder makes for every request, with a clock the test sets. A line is read
/// once: the first time by the server, which hands it to the actor; after that the event loop
/// knows what it asks.
@Suite("The agent's immediate answers")
struct AgentServiceTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A service holding `work` (agent only: nothing on disk), its token living 1000 s from `start`.
    static func service(
        confirming: Bool = false, policy: AgentHolder.Policy = .init(),
        clock: ManualAgentClock = ManualAgentClock(start)
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

    /// `request` answered as the server answers its line: read once, then by the actor.
    static func replyAsRead(_ request: AgentRequest, by service: AgentService, through door: AgentDoor = .full)
        async throws -> AgentReply
    {
        let line = line(request)
        guard case .request(let read) = AgentRequest.read(line) else {
            throw AgentTestFailure("\(request) does not read back")
        }
        return await service.reply(to: read, line: line, from: asker, through: door)
    }

    @Test func aLineReadOnceIsAnsweredAtOnceAfterwardsAsTheActorAnsweredIt() async throws {
        let service = try await Self.service()
        let request = AgentRequest(.token, profile: "work", minimumValidity: 60)
        #expect(service.immediateAnswer(to: Self.line(request)) == nil, "a line never read is the server's to read")
        let fromActor = try await Self.replyAsRead(request, by: service)
        let immediate = try #require(service.immediateAnswer(to: Self.line(request)))
        #expect(immediate == fromActor.line, "the same bytes, made once when the token was held")
        #expect(fromActor.answer.token?.accessToken == "at-1")
        #expect(service.immediateAnswer(to: Self.line(request)) == immediate)
    }

    @Test func aHeldTokenIsRepliedWithTheLineTheHolderMadeAndAnythingElseAsAValue() async throws {
        let service = try await Self.service()
        let token = try await Self.replyAsRead(AgentRequest(.token, profile: "work"), by: service)
        guard case .heldToken(let line) = token else {
            Issue.record("a held token is replied with its line: \(token)")
            return
        }
        #expect(line.last == UInt8(ascii: "\n"))
        let other = try await Self.replyAsRead(AgentRequest(.token, profile: "other"), by: service)
        #expect(other == .answer(.failure(.notHeld, "the agent does not hold profile \"other\"")))
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
            AgentRequest(.status), AgentRequest(.remove, profile: "other"), AgentRequest(.stop),
        ]
        for request in unanswered {
            // Read and answered by the actor once; the event loop still leaves it.
            _ = try await Self.replyAsRead(request, by: service)
            #expect(service.immediateAnswer(to: Self.line(request)) == nil, "\(request)")
        }
        #expect(service.immediateAnswer(to: Array(#"{"v":2,"op":"token","profile":"work"}"#.utf8)) == nil)
        #expect(service.immediateAnswer(to: Array("not json".utf8)) == nil)
        #expect(await service.holds("work"), "declining changed nothing")
    }

    @Test func anAgentThatConfirmsAnswersNothingAtOnce() async throws {
        let service = try await Self.service(confirming: true)
        let request = AgentRequest(.token, profile: "work")
        _ = try await Self.replyAsRead(request, by: service)
        #expect(service.immediateAnswer(to: Self.line(request)) == nil)
    }

    @Test func aRemovedOrExpiredProfileIsNoLongerAnsweredAtOnce() async throws {
        let clock = ManualAgentClock(Self.start)
        let service = try await Self.service(clock: clock)
        let request = AgentRequest(.token, profile: "work", minimumValidity: 60)
        _ = try await Self.replyAsRead(request, by: service)
        #expect(service.immediateAnswer(to: Self.line(request)) != nil)
        clock.set(Self.start.addingTimeInterval(950))
        #expect(service.immediateAnswer(to: Self.line(request)) == nil, "50 s left: a refresh first")
        _ = await service.answer(AgentRequest(.remove, profile: "work"), from: Self.asker)
        #expect(service.immediateAnswer(to: Self.line(request)) == nil)
    }
}

/// A test's own failure, with what went wrong.
struct AgentTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
