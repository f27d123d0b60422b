// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthCore
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenFiles
import WebAuthTokenStore

/// The agent's timer (``AgentService/keepTime()``) on a clock the test moves: a profile is
/// forgotten when its lifetime or idle time ends, a refresh ahead begins in the last fifth of
/// the token's life and a failed one is tried again 5 s later — each at the moment due, not
/// before, and without waiting for real time.
@Suite("The agent's timer")
struct AgentTimeTests {
    static let start = AgentServiceTests.start
    static let asker = AgentServiceTests.asker

    /// Runs `body` with the service's timer running on `clock`, stopped afterwards.
    static func withTimer(
        _ service: AgentService, on clock: ManualAgentClock, _ body: () async throws -> Void
    ) async throws {
        let timer = Task { await service.keepTime() }
        defer { timer.cancel() }
        try #require(await eventually(within: .seconds(10)) { clock.sleepsBegun >= 1 }, "the timer waits")
        try await body()
        timer.cancel()
        await timer.value
    }

    /// Moves `clock` to `seconds` after the start and returns once the timer has done what was
    /// due then and waits again.
    static func move(_ clock: ManualAgentClock, to seconds: TimeInterval) async throws {
        let before = clock.sleepsBegun
        clock.set(start.addingTimeInterval(seconds))
        try #require(
            await eventually(within: .seconds(10)) { clock.sleepsBegun > before },
            "the timer went round at \(seconds) s")
    }

    @Test func aProfileIsForgottenWhenItsLifetimeEndsNotBefore() async throws {
        let clock = ManualAgentClock(Self.start)
        let service = AgentService(
            policy: .init(), stores: TokenStores(selection: .file, environment: ["HOME": "/nonexistent"]),
            clock: clock, logger: .webAuthSilent)
        let entry = try AgentDoorsTests.text(AgentDoorsTests.entry())
        #expect(
            await service.answer(AgentRequest(.add, profile: "work", entry: entry, lifetime: 100), from: Self.asker).ok)
        try await Self.withTimer(service, on: clock) {
            try await Self.move(clock, to: 99)
            #expect(await service.holds("work"), "99 s of a 100 s lifetime")
            try await Self.move(clock, to: 100)
            #expect(await !service.holds("work"), "forgotten by the timer, not by a request")
        }
    }

    @Test func aProfileIsForgottenWhenNoTokenIsAskedForDuringTheIdleTime() async throws {
        let clock = ManualAgentClock(Self.start)
        let service = try await AgentServiceTests.service(policy: .init(idle: .seconds(60)), clock: clock)
        try await Self.withTimer(service, on: clock) {
            try await Self.move(clock, to: 30)
            let token = try await AgentServiceTests.replyAsRead(AgentRequest(.token, profile: "work"), by: service)
            #expect(token.ok, "a use at 30 s")
            try await Self.move(clock, to: 60)
            #expect(await service.holds("work"), "60 s after it was added, but 30 s after its use")
            // The next use comes through the event loop: it counts as well.
            try await Self.move(clock, to: 80)
            #expect(service.immediateAnswer(to: AgentServiceTests.line(AgentRequest(.token, profile: "work"))) != nil)
            try await Self.move(clock, to: 139)
            #expect(await service.holds("work"))
            try await Self.move(clock, to: 140)
            #expect(await !service.holds("work"), "60 s without a use")
        }
    }

    @Test func aFailedRefreshAheadKeepsServingTheHeldTokenAndIsTriedAgainFiveSecondsLater() async throws {
        let clock = ManualAgentClock(Self.start)
        let transport = AgentDoorsTests.CountingTransport()
        let service = AgentService(
            policy: .init(), stores: TokenStores(selection: .file, environment: ["HOME": "/nonexistent"]),
            transport: transport, clock: clock, logger: .webAuthSilent)
        // A token living 1000 s: its last fifth begins at 800 s.
        let entry = try AgentDoorsTests.text(AgentDoorsTests.entry())
        #expect(await service.answer(AgentRequest(.add, profile: "work", entry: entry), from: Self.asker).ok)
        let request = AgentRequest(.token, profile: "work", minimumValidity: 1)
        #expect(try await AgentServiceTests.replyAsRead(request, by: service).ok)
        try await Self.withTimer(service, on: clock) {
            try await Self.move(clock, to: 799)
            #expect(transport.sent.isEmpty, "no refresh before the last fifth")
            try await Self.move(clock, to: 800)
            let tried = transport.sent.count
            #expect(tried > 0, "the refresh ahead began at 800 s")
            #expect(
                service.immediateAnswer(to: AgentServiceTests.line(request)) != nil,
                "the held token, valid 200 s more, is still served")
            try await Self.move(clock, to: 804)
            #expect(transport.sent.count == tried, "not tried again within 5 s")
            try await Self.move(clock, to: 805)
            #expect(transport.sent.count > tried, "tried again 5 s later")
            #expect(await service.holds("work"))
        }
    }
}
