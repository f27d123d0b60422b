// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform

@testable import WebAuthOAuth

@Suite("Device authorization grant (RFC 8628)")
struct DeviceFlowTests {
    @Test func pollingFollowsTheIntervalAndSlowsDown() {
        let start = Date(timeIntervalSince1970: 0)
        var polling = DevicePolling(interval: .seconds(5), expiresAt: start.addingTimeInterval(600))
        #expect(polling.start(now: start) == .wait(.seconds(5)))
        #expect(polling.next(after: .pending, now: start) == .wait(.seconds(5)))
        #expect(polling.next(after: .slowDown, now: start) == .wait(.seconds(10)))
        #expect(polling.next(after: .pending, now: start) == .wait(.seconds(10)))
        #expect(polling.next(after: .slowDown, now: start) == .wait(.seconds(15)))
        #expect(polling.next(after: .timedOut, now: start) == .wait(.seconds(30)))
        #expect(polling.next(after: .tokens, now: start) == .finish)
        #expect(polling.next(after: .denied, now: start) == .deny)
        #expect(polling.next(after: .expired, now: start) == .expire)
        #expect(polling.next(after: .pending, now: start.addingTimeInterval(590)) == .expire)
    }

    @Test func aTinyIntervalIsRaisedToOneSecondAndAHugeOneLowered() {
        let polling = DevicePolling(interval: .zero, expiresAt: Date(timeIntervalSince1970: 100))
        #expect(polling.interval == .seconds(1))
        #expect(DevicePolling(interval: .seconds(86_400), expiresAt: .distantFuture).interval == .seconds(300))
    }

    @Test func backingOffNeverPollsFasterThanTheServerAsked() {
        let start = Date(timeIntervalSince1970: 0)
        var polling = DevicePolling(interval: .seconds(90), expiresAt: start.addingTimeInterval(3600))
        #expect(polling.next(after: .timedOut, now: start) == .wait(.seconds(90)))
        var quick = DevicePolling(interval: .seconds(20), expiresAt: start.addingTimeInterval(3600))
        #expect(quick.next(after: .timedOut, now: start) == .wait(.seconds(40)))
        #expect(quick.next(after: .timedOut, now: start) == .wait(.seconds(60)))
        #expect(quick.next(after: .timedOut, now: start) == .wait(.seconds(60)))
    }

    private func deviceClient(_ transport: ScriptedTransport, clock: ManualClock) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: .init(
                    authorization: URL(string: "https://as.example/authorize"),
                    token: URL(string: "https://as.example/token"),
                    deviceAuthorization: URL(string: "https://as.example/device")),
                clientID: "tv", scopes: ["read"]),
            transport: transport, clock: clock.oauthClock)
    }

    private static let start = #"""
        {"device_code":"DEV","user_code":"WDJB-MJHT","verification_uri":"https://as.example/device",
         "verification_uri_complete":"https://as.example/device?user_code=WDJB-MJHT","expires_in":1800,"interval":5}
        """#

    @Test func pollsThroughPendingAndSlowDownToTokens() async throws {
        let answers = ManualQueue([
            #"{"error":"authorization_pending"}"#, #"{"error":"slow_down"}"#, #"{"error":"authorization_pending"}"#,
            #"{"access_token":"at","token_type":"Bearer","refresh_token":"rt"}"#,
        ])
        let transport = ScriptedTransport { request in
            guard request.url.path != "/device" else { return .json(200, Self.start) }
            let answer = answers.next()
            return .json(answer.contains("access_token") ? 200 : 400, answer)
        }
        let clock = ManualClock()
        let client = try deviceClient(transport, clock: clock)
        let authorization = try await client.startDeviceAuthorization()
        #expect(authorization.userCode == "WDJB-MJHT")
        #expect(
            authorization.verificationURIComplete?.absoluteString == "https://as.example/device?user_code=WDJB-MJHT")
        #expect(!authorization.description.contains("DEV"))
        #expect(transport.requests[0].formParameters == ["scope": "read", "client_id": "tv"])

        let tokens = try await client.pollDeviceAuthorization(authorization)
        #expect(tokens.accessToken == "at")
        #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])
        let polls = transport.requests.dropFirst()
        #expect(polls.count == 4)
        #expect(polls.allSatisfy { $0.formParameters["device_code"] == "DEV" })
        #expect(
            polls.allSatisfy {
                $0.formParameters["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"
            })
    }

    @Test func outlandishIntervalAndLifetimeAreBounded() async throws {
        let transport = ScriptedTransport { _ in
            .json(
                200,
                #"{"device_code":"D","user_code":"U","verification_uri":"https://as.example/d","expires_in":1e300,"interval":1e300}"#
            )
        }
        let clock = ManualClock()
        let authorization = try await deviceClient(transport, clock: clock).startDeviceAuthorization()
        #expect(authorization.interval == DevicePolling.maximumInterval)
        #expect(authorization.expiresAt.timeIntervalSince(clock.oauthClock.now()) <= 86_400)
    }

    @Test func aUserCodeThatIsNotPlainTextIsRefused() async throws {
        for userCode in [#"WDJB\u001b[2J"#, #"AB\u202eCD"#, ""] {
            let transport = ScriptedTransport { _ in
                .json(
                    200,
                    #"{"device_code":"D","user_code":"\#(userCode)","verification_uri":"https://as.example/d","expires_in":60}"#
                )
            }
            let client = try deviceClient(transport, clock: ManualClock())
            do throws(OAuthError) {
                _ = try await client.startDeviceAuthorization()
                Issue.record("the user code \(userCode) was taken")
            } catch {
                #expect(error.code == .invalidResponse)
            }
        }
    }

    @Test func expiredTokenAndAccessDeniedEndPolling() async throws {
        for (answer, code) in [
            (#"{"error":"expired_token"}"#, OAuthError.Code.deviceCodeExpired),
            (#"{"error":"access_denied"}"#, OAuthError.Code.server),
        ] {
            let transport = ScriptedTransport { request in
                request.url.path == "/device" ? .json(200, Self.start) : .json(400, answer)
            }
            let client = try deviceClient(transport, clock: ManualClock())
            let authorization = try await client.startDeviceAuthorization()
            do {
                _ = try await client.pollDeviceAuthorization(authorization)
                Issue.record("polling did not end with \(answer)")
            } catch {
                #expect(error.code == code)
                #expect(transport.requests.count == 2, "one poll, then stop")
            }
        }
    }

    @Test func theLocalExpiryEndsPollingWithoutAServerAnswer() async throws {
        let transport = ScriptedTransport { request in
            request.url.path == "/device"
                ? .json(
                    200,
                    #"{"device_code":"D","user_code":"U","verification_uri":"https://as.example/d","expires_in":12}"#)
                : .json(400, #"{"error":"authorization_pending"}"#)
        }
        let clock = ManualClock()
        let client = try deviceClient(transport, clock: clock)
        let authorization = try await client.startDeviceAuthorization()
        do {
            _ = try await client.pollDeviceAuthorization(authorization)
            Issue.record("polling outlived the device code")
        } catch {
            #expect(error.code == .deviceCodeExpired)
            #expect(transport.requests.count == 3, "polls at 5 s and 10 s; the next would be at 15 s, past 12 s")
            #expect(clock.sleeps == [.seconds(5), .seconds(5)])
        }
    }
}

@Suite("Fresh access tokens")
struct AccessTokenProviderTests {
    @Test func concurrentCallersShareOneRefresh() async throws {
        let refreshes = Locked(0)
        let transport = ScriptedTransport { request in
            let count = refreshes.withLock { value -> Int in
                value += 1
                return value
            }
            // Real time is the point: the refresh stays open while the other callers arrive.
            try? await Task.sleep(for: .milliseconds(50))
            return .json(
                200,
                #"{"access_token":"at-\#(count)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(count)"}"#
            )
        }
        let clock = ManualClock()
        let client = try OAuthClient(
            configuration: ClientConfiguration(endpoints: TokenEndpointTests.endpoints, clientID: "c"),
            transport: transport, clock: clock.oauthClock)
        let stored = Locked<[String]>([])
        let provider = AccessTokenProvider(
            client: client,
            tokens: TokenSet(accessToken: "old", refreshToken: "rt-0", expiresAt: clock.now.addingTimeInterval(30))
        ) { refreshed in stored.withLock { $0.append(refreshed.refreshToken ?? "") } }

        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<40 { group.addTask { try await provider.accessToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tokens) == ["at-1"])
        #expect(refreshes.withLock { $0 } == 1)
        #expect(stored.withLock { $0 } == ["rt-1"])
        #expect(transport.requests.first?.formParameters["refresh_token"] == "rt-0")

        // Still fresh: no second refresh.
        #expect(try await provider.accessToken() == "at-1")
        #expect(refreshes.withLock { $0 } == 1)
        // Near expiry again: the rotated token is the one used.
        clock.advance(.seconds(3590))
        #expect(try await provider.accessToken() == "at-2")
        #expect(transport.requests.last?.formParameters["refresh_token"] == "rt-1")
    }

    @Test func aFailedRefreshIsReportedAndTheNextCallTriesAgain() async throws {
        let answers = ManualQueue([
            #"{"error":"temporarily_unavailable"}"#, #"{"access_token":"new","token_type":"Bearer","expires_in":600}"#,
        ])
        let transport = ScriptedTransport { _ in
            let answer = answers.next()
            return .json(answer.contains("error") ? 503 : 200, answer)
        }
        let clock = ManualClock()
        let client = try OAuthClient(
            configuration: ClientConfiguration(endpoints: TokenEndpointTests.endpoints, clientID: "c"),
            transport: transport, clock: clock.oauthClock)
        let provider = AccessTokenProvider(
            client: client, tokens: TokenSet(accessToken: "old", refreshToken: "r", expiresAt: clock.now))
        await #expect(throws: OAuthError.self) { try await provider.accessToken() }
        #expect(try await provider.accessToken() == "new")
        #expect(await provider.tokens.refreshToken == "r", "kept when the server sends no new one")
    }
}
