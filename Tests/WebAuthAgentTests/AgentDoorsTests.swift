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

/// The agent's two doors: what its forwarding socket serves (tokens of forwarded profiles, and
/// nothing else), what no request may name (a file, an endpoint), and when `--confirm` asks —
/// before an `add`, before a refresh a request causes, and per forwarded request.
@Suite("The agent's two doors")
struct AgentDoorsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let asker = AgentService.Asker(processID: 4242, userID: 0)

    /// The questions asked, and the answer each gets.
    final class Asked: Sendable {
        private let questions = Locked<[AgentService.Question]>([])
        let answer: Bool
        init(answer: Bool) { self.answer = answer }
        var all: [AgentService.Question] { questions.withLock { $0 } }
        var confirmation: AgentService.Confirmation {
            { question in
                self.questions.withLock { $0.append(question) }
                return self.answer
            }
        }
    }

    /// Every request the agent sends, refused as a network failure: what a refresh would cost.
    final class CountingTransport: HTTPTransport {
        private let requests = Locked<[URL]>([])
        var sent: [URL] { requests.withLock { $0 } }
        func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
            requests.withLock { $0.append(request.url) }
            throw HTTPTransportError(code: .connectionFailed, message: "no network in this test")
        }
    }

    /// An entry (agent only), its token living 1000 s from `start`, its configuration naming an
    /// issuer only.
    static func entry(
        configuration: ClientConfiguration? = ClientConfiguration(
            issuer: URL(string: "https://id.example.com")!, clientID: "client", scopes: ["openid"])
    ) -> StoredTokens {
        StoredTokens(
            tokens: TokenSet(
                accessToken: "at-1", refreshToken: "rt-1", expiresAt: start.addingTimeInterval(1000),
                receivedAt: start), clientID: "client", configuration: configuration)
    }

    static func text(_ entry: StoredTokens) throws -> String {
        String(decoding: try TokenEntryFormat.encoder().encode(entry), as: UTF8.self)
    }

    static func service(
        confirmation: AgentService.Confirmation? = nil, transport: (any HTTPTransport)? = nil
    ) -> AgentService {
        AgentService(
            policy: .init(), stores: TokenStores(selection: .file, environment: ["HOME": "/nonexistent"]),
            confirmation: confirmation, transport: transport, clock: ManualAgentClock(start), logger: .webAuthSilent)
    }

    /// A service holding `work` (not forwarded) and `shared` (forwarded).
    static func twoProfiles(confirmation: AgentService.Confirmation? = nil, transport: (any HTTPTransport)? = nil)
        async throws -> AgentService
    {
        let service = service(confirmation: confirmation, transport: transport)
        for (name, forward) in [("work", false), ("shared", true)] {
            let added = await service.answer(
                AgentRequest(.add, profile: name, entry: try text(entry()), forward: forward), from: asker)
            try #require(added.ok, "\(added)")
        }
        return service
    }

    static func line(_ request: AgentRequest) -> [UInt8] { Array(request.line().dropLast()) }

    @Test func theForwardingDoorServesTokensOfForwardedProfilesOnly() async throws {
        let service = try await Self.twoProfiles()
        let shared = AgentRequest(.token, profile: "shared")
        let work = AgentRequest(.token, profile: "work")

        let sharedThere = try await AgentServiceTests.replyAsRead(shared, by: service, through: .forwarding)
        #expect(sharedThere.answer.token?.accessToken == "at-1")
        #expect(service.immediateAnswer(to: Self.line(shared), through: .forwarding) != nil)

        let hidden = try await AgentServiceTests.replyAsRead(work, by: service, through: .forwarding).answer
        #expect(hidden.error?.code == .notHeld, "a profile not forwarded is not seen there: \(hidden)")
        #expect(
            service.immediateAnswer(to: Self.line(work), through: .forwarding) == nil,
            "a line read through either door is still answered as its door sees the profile")
        let exchanged = await service.answer(
            AgentRequest(.token, profile: "work", audience: "api"), from: Self.asker, through: .forwarding)
        #expect(exchanged.error?.code == .notHeld, "nor exchanged for another audience: \(exchanged)")

        // The full door serves both.
        #expect(await service.answer(work, from: Self.asker).token?.accessToken == "at-1")
        #expect(service.immediateAnswer(to: Self.line(work)) != nil)
    }

    @Test func theForwardingDoorRefusesEveryManagementRequest() async throws {
        let service = try await Self.twoProfiles()
        var keyFileConfiguration = ClientConfiguration(
            issuer: URL(string: "https://id.example.com")!, clientID: "client",
            clientAuthentication: .privateKeyJWT)
        keyFileConfiguration.clientKeyFile = URL(fileURLWithPath: "/root/.ssh/id_ecdsa")
        let refused: [AgentRequest] = [
            AgentRequest(.add, profile: "work"),
            AgentRequest(.add, profile: "work", forward: true),
            AgentRequest(.add, profile: "planted", entry: try Self.text(Self.entry()), forward: true),
            AgentRequest(
                .add, profile: "planted", entry: try Self.text(Self.entry(configuration: keyFileConfiguration))),
            AgentRequest(.remove, profile: "shared"),
            AgentRequest(.status),
            AgentRequest(.stop),
        ]
        for request in refused {
            let answer = await service.answer(request, from: Self.asker, through: .forwarding)
            #expect(!answer.ok, "\(request)")
            #expect(answer.error?.code == .notServedHere, "\(request): \(answer)")
            #expect(answer.status == nil)
        }
        #expect(await service.holds("shared"), "nothing was removed")
        #expect(await !service.holds("planted"), "nothing was added")
        #expect(
            await service.answer(AgentRequest(.token, profile: "work"), from: Self.asker, through: .forwarding)
                .error?.code == .notHeld, "nothing was made forwardable")
    }

    @Test func noEntryMayNameAFileOrAnEndpointEvenThroughTheFullDoor() async throws {
        let transport = CountingTransport()
        let service = Self.service(transport: transport)
        let issuer = URL(string: "https://id.example.com")!
        var keyFile = ClientConfiguration(issuer: issuer, clientID: "client", clientAuthentication: .privateKeyJWT)
        keyFile.clientKeyFile = URL(fileURLWithPath: "/root/.ssh/id_ecdsa")
        keyFile.clientAssertionAudience = .url(URL(string: "https://attacker.example")!)
        let endpoints = ClientConfiguration(
            endpoints: .init(
                authorization: URL(string: "https://attacker.example/authorize"),
                token: URL(string: "http://127.0.0.1:631/admin")),
            clientID: "client")
        var tokenEndpoint = Self.entry()
        tokenEndpoint.tokenEndpoint = "http://127.0.0.1:631/admin"
        var registered = Self.entry()
        registered.registration = ClientRegistration(
            clientID: "client", registrationAccessToken: "rat",
            registrationClientURI: URL(string: "http://127.0.0.1:631/admin"))
        let cases: [(String, StoredTokens)] = [
            ("a key file", Self.entry(configuration: keyFile)),
            ("endpoints", Self.entry(configuration: endpoints)),
            ("a token endpoint beside the configuration", tokenEndpoint),
            ("a registration with its management URI", registered),
        ]
        for (what, entry) in cases {
            // Due for a refresh at once: had it been held, the agent would have called out.
            var expiring = entry
            expiring.tokens.expiresAt = Self.start.addingTimeInterval(10)
            let answer = await service.answer(
                AgentRequest(.add, profile: "planted", entry: try Self.text(expiring)), from: Self.asker)
            #expect(answer.error?.code == .badRequest, "\(what): \(answer)")
            #expect(await !service.holds("planted"), "\(what)")
        }
        _ = await service.tick()
        #expect(transport.sent.isEmpty, "no request went anywhere: \(transport.sent)")
    }

    @Test func theQuestionComesBeforeTheRefreshARequestCauses() async throws {
        let transport = CountingTransport()
        let asked = Asked(answer: false)
        let service = Self.service(confirmation: asked.confirmation, transport: transport)
        let added = await service.answer(
            AgentRequest(.add, profile: "work", entry: try Self.text(Self.entry())), from: Self.asker)
        #expect(!added.ok, "the person refused the add too")
        // Hold it without a question, then ask for more validity than it has.
        let holding = Self.service(
            confirmation: { question in question.text.contains("to add") ? true : await asked.confirmation(question) },
            transport: transport)
        let held = await holding.answer(
            AgentRequest(.add, profile: "work", entry: try Self.text(Self.entry()), forward: true), from: Self.asker)
        try #require(held.ok, "\(held)")
        for door in [AgentDoor.full, .forwarding] {
            let answer = await holding.answer(
                AgentRequest(.token, profile: "work", minimumValidity: 2000), from: Self.asker, through: door)
            #expect(answer.error?.code == .confirmationRefused, "\(door): \(answer)")
        }
        #expect(transport.sent.isEmpty, "refused before any refresh: \(transport.sent)")
    }

    @Test func addingAsksTheAgentsQuestionFirst() async throws {
        let asked = Asked(answer: false)
        let service = Self.service(confirmation: asked.confirmation)
        let answer = await service.answer(
            AgentRequest(.add, profile: "work", entry: try Self.text(Self.entry()), forward: true), from: Self.asker)
        #expect(answer.error?.code == .confirmationRefused, "\(answer)")
        #expect(await !service.holds("work"))
        let question = try #require(asked.all.first)
        #expect(question.text.contains("add webauth profile \"work\""), "\(question.text)")
        #expect(question.text.contains("forwarding socket"), "the question says it would be forwarded")
        #expect(!question.needsTypedYes, "asked of this machine's own request")
    }

    @Test func aForwardedRequestIsAskedEachTimeAndOnlyATypedYesIsAsked() async throws {
        let allowing = Asked(answer: true)
        let service = try await Self.twoProfiles(confirmation: { question in
            question.text.contains("to add") ? true : await allowing.confirmation(question)
        })
        for _ in 0..<2 {
            let answer = await service.answer(
                AgentRequest(.token, profile: "shared"), from: Self.asker, through: .forwarding)
            #expect(answer.token?.accessToken == "at-1")
        }
        #expect(allowing.all.count == 2, "an allowance is not kept for the one ssh process: \(allowing.all)")
        #expect(allowing.all.allSatisfy { $0.needsTypedYes && $0.text.contains("forwarded request") })

        for _ in 0..<2 {
            _ = await service.answer(AgentRequest(.token, profile: "shared"), from: Self.asker)
        }
        #expect(allowing.all.count == 3, "the full door keeps an answer for its process a moment")
        #expect(allowing.all.last?.needsTypedYes == false)

        let refusing = Asked(answer: false)
        let refusingService = try await Self.twoProfiles(confirmation: { question in
            question.text.contains("to add") ? true : await refusing.confirmation(question)
        })
        for _ in 0..<2 {
            let answer = await refusingService.answer(
                AgentRequest(.token, profile: "shared"), from: Self.asker, through: .forwarding)
            #expect(answer.error?.code == .confirmationRefused)
        }
        #expect(refusing.all.count == 1, "a refusal is kept, so the fast path's handover asks no second time")
    }

    @Test func statusSaysWhichProfilesAreForwarded() async throws {
        let service = try await Self.twoProfiles()
        await service.servesForwarding(at: "/run/user/1000/webauth/agent.sock.forward")
        let status = try #require(await service.answer(AgentRequest(.status), from: Self.asker).status)
        #expect(status.forwardingSocket == "/run/user/1000/webauth/agent.sock.forward")
        #expect(status.profiles.map(\.name) == ["shared", "work"])
        #expect(status.profiles.map(\.forwarded) == [true, false])
    }
}
