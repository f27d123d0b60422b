// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCore
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The switches that change what token and device authorization responses carry, and the one
/// that approves device authorizations without a browser.
@Suite("Embedded provider: forged responses")
struct ResponseForgeryTests {
    @Test func aDeviceAuthorizationIsApprovedAtOnceWhileTheSwitchIsOn() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            let client = try makeClient(provider)
            let tokens = try await client.pollDeviceAuthorization(try await client.startDeviceAuthorization())
            #expect(tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            #expect(provider.requests(to: .token).map(\.error) == [nil], "the first poll brings the tokens")

            // Switched off: a new authorization waits for a person again.
            provider.approveDeviceAuthorizations(as: nil)
            let waiting = try await client.startDeviceAuthorization()
            let poll = try await provider.postForm(
                .token,
                [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                    ("device_code", waiting.deviceCode), ("client_id", "webauth-demo"),
                ])
            // Polled at once, so `slow_down`; either way, no tokens.
            let answer = try jsonObject(poll)
            #expect(answer["access_token"] == nil)
            #expect(["authorization_pending", "slow_down"].contains(answer["error"] as? String))
        }
    }

    @Test func deviceAuthorizationMembersAreSentAsForged() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            provider.forgeDeviceAuthorizationMembers([
                "user_code": .string("AB\u{1B}[2J"), "expires_in": .number(1e300), "interval": .null,
            ])
            let answer = try await provider.postForm(
                .deviceAuthorization, [("client_id", "webauth-demo"), ("scope", "openid")])
            let object = try jsonObject(answer)
            #expect(object["user_code"] as? String == "AB\u{1B}[2J")
            #expect(object["expires_in"] as? Double == 1e300)
            #expect(object["interval"] is NSNull)
            #expect(object["device_code"] is String, "the rest is the provider's own")

            provider.forgeDeviceAuthorizationMembers(nil)
            let honest = try jsonObject(
                try await provider.postForm(.deviceAuthorization, [("client_id", "webauth-demo"), ("scope", "openid")]))
            #expect(honest["expires_in"] as? Int == 600)
        }
    }

    @Test func tokenResponseMembersAreSentAsForgedAndTheTokensStillWork() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            provider.forgeTokenResponseMembers(["scope": .string("admin"), "expires_in": .integer(-1)])
            let answer = try await refresh(try #require(tokens.refreshToken), at: provider)
            let object = try jsonObject(answer)
            #expect(object["scope"] as? String == "admin")
            #expect(object["expires_in"] as? Int == -1)
            let accessToken = try #require(object["access_token"] as? String)
            #expect(provider.isActive(accessToken: accessToken))
        }
    }

    @Test func refreshesComeWithoutAnIDTokenWhileTheSwitchIsOn() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.idToken != nil)
            provider.withholdIDTokensOnRefresh(true)
            let withheld = try jsonObject(try await refresh(try #require(tokens.refreshToken), at: provider))
            #expect(withheld["id_token"] == nil)
            #expect(withheld["refresh_token"] is String)

            provider.withholdIDTokensOnRefresh(false)
            let rotated = try #require(withheld["refresh_token"] as? String)
            #expect(try jsonObject(try await refresh(rotated, at: provider))["id_token"] is String)
        }
    }

    @Test func additionalIDTokenClaimsAreAddedButNeverReplaceTheProvidersOwn() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let groups = String(repeating: "g", count: 9000)
            provider.overrideIDTokenClaims(.init(additionalClaims: ["groups": groups, "sub": "someone-else"]))
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let payload = try #require(tokens.idToken?.split(separator: ".").dropFirst().first)
            let json = try #require(Data(base64URLEncoded: payload))
            let claims = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(claims["groups"] as? String == groups)
            #expect(claims["sub"] as? String == EmbeddedProvider.User.demo.subject)
        }
    }

    private func refresh(_ refreshToken: String, at provider: EmbeddedProvider) async throws -> RawHTTPClient.Response {
        try await provider.postForm(
            .token, [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", "webauth-demo")])
    }
}
