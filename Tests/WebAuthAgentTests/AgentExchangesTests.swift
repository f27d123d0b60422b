// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthOAuth
import WebAuthTokenStore

/// The exchanged tokens the agent keeps per profile and target, driven by a clock the test sets.
@Suite("The agent's exchanged tokens: kept per profile and target, while valid, bounded")
struct AgentExchangesTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A token received at `at` that lives `lifetime` seconds.
    static func token(_ value: String, at: Date = start, lifetime: TimeInterval = 600) -> TokenSet {
        TokenSet(accessToken: value, expiresAt: at.addingTimeInterval(lifetime), scopes: ["read"], receivedAt: at)
    }

    static let billing = ExchangeTarget(audience: "billing", scopes: ["read", "write"])

    @Test func aKeptTokenIsServedWhileValidForTheValidityAskedAndNotAfter() {
        var table = AgentExchanges()
        table.keep(
            Self.token("billing-1"), issuedTokenType: .accessToken, profile: "work", for: Self.billing, now: Self.start)
        let kept = table.tokens(profile: "work", for: Self.billing, minimumValidity: .seconds(60), now: Self.start)
        #expect(kept?.accessToken == "billing-1")
        #expect(kept?.scopes == ["read"])
        // 550 s in, 50 s are left: enough for 30 s, not for 60 s.
        let later = Self.start.addingTimeInterval(550)
        #expect(table.tokens(profile: "work", for: Self.billing, minimumValidity: .seconds(30), now: later) != nil)
        #expect(table.tokens(profile: "work", for: Self.billing, minimumValidity: .seconds(60), now: later) == nil)
        #expect(
            table.tokens(
                profile: "work", for: Self.billing, minimumValidity: .zero, now: Self.start.addingTimeInterval(600))
                == nil)
    }

    @Test func targetsAreTheSameWhateverOrderTheirScopesCameInAndOthersAreNot() {
        var table = AgentExchanges()
        table.keep(
            Self.token("billing-1"), issuedTokenType: .accessToken, profile: "work", for: Self.billing, now: Self.start)
        let reordered = ExchangeTarget(audience: "billing", scopes: ["write", "read", "write"])
        #expect(
            table.tokens(profile: "work", for: reordered, minimumValidity: .seconds(60), now: Self.start)?.accessToken
                == "billing-1")
        for other in [
            ExchangeTarget(audience: "billing"), ExchangeTarget(audience: "billing", scopes: ["read"]),
            ExchangeTarget(audience: "reports", scopes: ["read", "write"]),
            ExchangeTarget(resource: URL(string: "https://billing.example/"), scopes: ["read", "write"]),
        ] {
            #expect(table.tokens(profile: "work", for: other, minimumValidity: .zero, now: Self.start) == nil)
        }
        #expect(table.tokens(profile: "home", for: Self.billing, minimumValidity: .zero, now: Self.start) == nil)
    }

    @Test func aNewTokenForATargetReplacesTheOldAndExpiredOnesAreDropped() {
        var table = AgentExchanges()
        let reports = ExchangeTarget(audience: "reports")
        table.keep(
            Self.token("reports-1", lifetime: 100), issuedTokenType: .accessToken, profile: "work", for: reports,
            now: Self.start)
        table.keep(
            Self.token("billing-1"), issuedTokenType: .accessToken, profile: "work", for: Self.billing, now: Self.start)
        let later = Self.start.addingTimeInterval(200)
        table.keep(
            Self.token("billing-2", at: later), issuedTokenType: .accessToken, profile: "work", for: Self.billing,
            now: later)
        #expect(table.targets(of: "work") == [Self.billing], "the expired reports token is dropped")
        #expect(
            table.tokens(profile: "work", for: Self.billing, minimumValidity: .zero, now: later)?.accessToken
                == "billing-2")
    }

    @Test func eachProfileKeepsAtMostTheLimitTheNewest() {
        var table = AgentExchanges()
        let limit = StoredExchange.limitPerProfile
        for index in 0..<(limit + 3) {
            let at = Self.start.addingTimeInterval(Double(index))
            table.keep(
                Self.token("t-\(index)", at: at), issuedTokenType: .accessToken, profile: "work",
                for: ExchangeTarget(audience: "a-\(index)"), now: at)
        }
        table.keep(
            Self.token("home"), issuedTokenType: .accessToken, profile: "home", for: Self.billing, now: Self.start)
        let targets = table.targets(of: "work")
        #expect(targets.count == limit)
        #expect(targets.first == ExchangeTarget(audience: "a-3"), "the oldest three are dropped")
        #expect(targets.last == ExchangeTarget(audience: "a-\(limit + 2)"))
        #expect(table.targets(of: "home") == [Self.billing], "another profile's are its own")
    }

    @Test func aProfilesTokensAreForgottenWithItAndOnlyItsOwn() {
        var table = AgentExchanges()
        for profile in ["work", "home", "ci"] {
            table.keep(
                Self.token(profile), issuedTokenType: .accessToken, profile: profile, for: Self.billing,
                now: Self.start)
        }
        table.forget("work")
        #expect(table.profiles == ["home", "ci"])
        table.forgetAll { $0 == "ci" }
        #expect(table.profiles == ["ci"])
        #expect(
            table.tokens(profile: "ci", for: Self.billing, minimumValidity: .zero, now: Self.start)?.accessToken == "ci"
        )
    }
}

/// The protocol's target fields and the exchange's typed failure.
@Suite("Agent protocol: target requests")
struct AgentTargetProtocolTests {
    @Test func aTargetRequestIsOneVersionOneLineThatReadsBackAsItself() throws {
        let request = AgentRequest(
            .token, profile: "work", minimumValidity: 60, scopes: ["read", "write"], audience: "billing",
            resource: "https://api.example.com/v1")
        let line = request.line()
        let text = String(decoding: line.dropLast(), as: UTF8.self)
        #expect(
            text
                == #"{"audience":"billing","min_validity":60,"op":"token","profile":"work","resource":"https://api.example.com/v1","scopes":["read","write"],"v":1}"#
        )
        #expect(AgentRequest(line: Array(line.dropLast())) == request)
        // A request without a target has none of the fields, as before.
        let plain = String(decoding: AgentRequest(.token, profile: "work").line().dropLast(), as: UTF8.self)
        #expect(!plain.contains("resource") && !plain.contains("audience") && !plain.contains("scopes"))
    }

    @Test func anExchangeFailureCarriesTheProvidersErrorAndATokenAnswerItsScopes() throws {
        let failure = AgentAnswer(
            ok: false,
            error: .init(
                code: .exchangeFailed, message: "the token endpoint refused: invalid_target",
                oauth: .init(code: "server", error: "invalid_target", errorDescription: "no such audience")))
        let line = String(decoding: failure.line().dropLast(), as: UTF8.self)
        #expect(
            line.contains(#""oauth":{"code":"server","error":"invalid_target","error_description":"no such audience"}"#)
        )
        let read = try #require(AgentAnswer(line: Array(line.utf8)))
        #expect(read == failure)

        let token = AgentAnswer(
            ok: true, token: .init(accessToken: "at", tokenType: "Bearer", expiresAt: 1, scopes: ["read"]))
        #expect(AgentAnswer(line: Array(token.line().dropLast()))?.token?.scopes == ["read"])
    }
}
