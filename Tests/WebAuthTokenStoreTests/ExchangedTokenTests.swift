// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth
import WebAuthTokenStore

/// The tokens a profile's access token was exchanged for, as its entry keeps them: one per
/// target, only while they are valid, and a bounded number.
@Suite("Exchanged tokens kept with a profile")
struct ExchangedTokenTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func exchange(
        _ audience: String, token: String, expiresIn: TimeInterval = 3600, receivedAgo: TimeInterval = 0
    )
        -> StoredExchange
    {
        StoredExchange(
            target: ExchangeTarget(audience: audience),
            tokens: TokenSet(
                accessToken: token, expiresAt: now + expiresIn, receivedAt: now - receivedAgo),
            issuedTokenType: .accessToken)
    }

    private var entry: StoredTokens {
        StoredTokens(tokens: TokenSet(accessToken: "own", expiresAt: now + 3600), clientID: "client")
    }

    @Test func aTargetIsTheSameWhateverOrderItsScopesCameIn() {
        #expect(
            ExchangeTarget(audience: "a", scopes: ["write", "read", "read"])
                == ExchangeTarget(audience: "a", scopes: ["read", "write"]))
        #expect(ExchangeTarget(audience: "a") != ExchangeTarget(audience: "a", scopes: ["read"]))
        #expect(ExchangeTarget(audience: "a") != ExchangeTarget(resource: URL(string: "https://a.example")))
    }

    @Test func aNewTokenForATargetReplacesTheOldOne() {
        var stored = entry
        stored.keep(exchange("billing", token: "first"), now: now)
        stored.keep(exchange("reports", token: "other"), now: now)
        stored.keep(exchange("billing", token: "second"), now: now)
        #expect(stored.exchangedTokens.map(\.tokens.accessToken).sorted() == ["other", "second"])
        #expect(
            stored.exchangedToken(for: ExchangeTarget(audience: "billing"), now: now)?.tokens.accessToken == "second")
    }

    @Test func onlyATokenValidLongEnoughIsHandedOutAndExpiredOnesAreDropped() {
        var stored = entry
        stored.keep(exchange("soon", token: "soon", expiresIn: 30), now: now)
        #expect(
            stored.exchangedToken(for: ExchangeTarget(audience: "soon"), now: now, minimumValidity: .seconds(60)) == nil
        )
        #expect(
            stored.exchangedToken(for: ExchangeTarget(audience: "soon"), now: now, minimumValidity: .seconds(10)) != nil
        )
        stored.keep(exchange("later", token: "later"), now: now + 60)
        #expect(stored.exchangedTokens.map(\.tokens.accessToken) == ["later"], "the expired one is gone")
    }

    @Test func atMostTheLimitAreKeptTheNewest() {
        var stored = entry
        let limit = StoredExchange.limitPerProfile
        for index in 0...limit {
            stored.keep(exchange("audience-\(index)", token: "t\(index)", receivedAgo: Double(limit - index)), now: now)
        }
        #expect(stored.exchangedTokens.count == limit)
        #expect(!stored.exchangedTokens.contains { $0.tokens.accessToken == "t0" }, "the oldest went")
        #expect(stored.exchangedTokens.contains { $0.tokens.accessToken == "t\(limit)" })
    }

    @Test func theyRoundTripAndAnEntryWithoutThemIsWrittenAsBefore() throws {
        var stored = entry
        #expect(!String(decoding: try stored.encoded(), as: UTF8.self).contains("exchangedTokens"))
        var withScopes = exchange("billing", token: "x")
        withScopes.target = ExchangeTarget(
            audience: "billing", resource: URL(string: "https://api.example.com/"), scopes: ["b", "a"])
        stored.keep(withScopes, now: now)
        let decoded = try StoredTokens.decode(try stored.encoded(), profile: "p", location: "memory")
        #expect(decoded.exchangedTokens == stored.exchangedTokens)
        #expect(decoded.exchangedTokens.first?.target.scopes == ["a", "b"])
        #expect(!stored.exchangedTokens[0].description.contains("x,"), "no token value: \(stored.exchangedTokens[0])")
    }
}
