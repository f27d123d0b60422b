// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthOAuth

/// Numbers from a provider — `expires_in` of a token response (a number or, as some servers
/// send it, a string), the device flow's `expires_in` and `interval` — at zero, negative, huge,
/// fractional and non-finite: each is bounded or refused with a clear error, and nothing traps.
@Suite("Numbers from the provider")
struct ProviderNumbersTests {
    private static let endpoints = ClientConfiguration.Endpoints(
        authorization: URL(string: "https://as.example/authorize"), token: URL(string: "https://as.example/token"),
        deviceAuthorization: URL(string: "https://as.example/device"))

    private func client(_ transport: ScriptedTransport, clock: ManualClock) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(endpoints: Self.endpoints, clientID: "cli", scopes: ["read"]),
            transport: transport, clock: clock.oauthClock)
    }

    /// What `body` returned or threw.
    private func outcome<Value>(_ body: () async throws(OAuthError) -> Value) async -> Result<Value, OAuthError> {
        do throws(OAuthError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// What a value must become: a lifetime in seconds, or a refusal.
    enum Expected: Sendable, CustomStringConvertible {
        case lifetime(TimeInterval)
        case refused

        var description: String {
            switch self {
            case .lifetime(let seconds): "lifetime \(seconds)"
            case .refused: "refused"
            }
        }
    }

    private static let tenYears: TimeInterval = 10 * 365 * 86_400

    @Test(arguments: [
        ("0", Expected.lifetime(0)),
        ("-5", .lifetime(0)),
        ("-1e300", .lifetime(0)),
        ("1e300", .lifetime(tenYears)),
        ("0.5", .lifetime(0.5)),
        ("3600", .lifetime(3600)),
        (#""3600""#, .lifetime(3600)),
        (#""NaN""#, .refused),
        (#""inf""#, .refused),
        (#""-inf""#, .refused),
        (#""1e400""#, .refused),
    ])
    func tokenExpiresIn(_ value: String, _ expected: Expected) async throws {
        let transport = ScriptedTransport { _ in
            .json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":\#(value)}"#)
        }
        let clock = ManualClock()
        let now = clock.oauthClock.now()
        let client = try client(transport, clock: clock)
        switch await outcome({ () async throws(OAuthError) in
            try await client.refresh(TokenSet(accessToken: "a", refreshToken: "r"))
        }) {
        case .success(let tokens):
            guard case .lifetime(let seconds) = expected else {
                Issue.record("expires_in \(value) was taken: \(tokens)")
                return
            }
            let expiresAt = try #require(tokens.expiresAt)
            #expect(abs(expiresAt.timeIntervalSince(now) - seconds) < 0.001, "expires_in \(value)")
            // Every later use works: formatting, the expiry check, storing.
            _ = tokens.description
            #expect(tokens.isExpired(at: now.addingTimeInterval(seconds + 1)))
        case .failure(let error):
            guard case .refused = expected else {
                Issue.record("expires_in \(value) was refused: \(error)")
                return
            }
            #expect(error.code == .invalidResponse)
            #expect(error.message.contains("expires_in is not a finite number"), "\(error.message)")
        }
    }

    @Test(arguments: [
        ("expires_in", "0", Expected.lifetime(0)),
        ("expires_in", "-60", .lifetime(0)),
        ("expires_in", "1e300", .lifetime(86_400)),
        ("expires_in", "-1e300", .lifetime(0)),
        ("expires_in", "90.5", .lifetime(90.5)),
        ("expires_in", #""NaN""#, .refused),
        ("expires_in", "1e400", .refused),
        ("interval", "0", Expected.lifetime(0)),
        ("interval", "-3", .lifetime(0)),
        ("interval", "1e300", .lifetime(300)),
        ("interval", "2.5", .lifetime(2.5)),
        ("interval", #""inf""#, .refused),
    ])
    func deviceNumbers(_ field: String, _ value: String, _ expected: Expected) async throws {
        var members = [
            #""device_code":"D""#, #""user_code":"U""#, #""verification_uri":"https://as.example/d""#,
            #""expires_in":600"#, #""interval":5"#,
        ]
        members.removeAll { $0.hasPrefix("\"\(field)\"") }
        members.append("\"\(field)\":\(value)")
        let body = "{" + members.joined(separator: ",") + "}"
        let transport = ScriptedTransport { _ in .json(200, body) }
        let clock = ManualClock()
        let client = try client(transport, clock: clock)
        switch await outcome({ () async throws(OAuthError) in try await client.startDeviceAuthorization() }) {
        case .success(let authorization):
            guard case .lifetime(let seconds) = expected else {
                Issue.record("\(field) \(value) was taken: \(authorization)")
                return
            }
            if field == "interval" {
                #expect(authorization.interval == .milliseconds(Int64(seconds * 1000)), "interval \(value)")
            } else {
                let lifetime = authorization.expiresAt.timeIntervalSince(clock.oauthClock.now())
                #expect(abs(lifetime - seconds) < 0.001, "expires_in \(value)")
            }
            _ = authorization.description
        case .failure(let error):
            guard case .refused = expected else {
                Issue.record("\(field) \(value) was refused: \(error)")
                return
            }
            // A non-finite number in a string does not even decode as a number here: refused
            // either way, as an invalid response.
            #expect(error.code == .invalidResponse, "\(error)")
        }
    }

    @Test(arguments: ["access_token", "token_type", "refresh_token"])
    func aTokenWithCharactersRFC6749DoesNotAllowIsRefused(_ field: String) async throws {
        var members = ["access_token": "at", "token_type": "Bearer", "refresh_token": "rt"]
        members[field] = "x\u{1B}]52;c;aGk=\u{07}"
        let body = try String(decoding: JSONSerialization.data(withJSONObject: members), as: UTF8.self)
        let transport = ScriptedTransport { _ in .json(200, body) }
        let client = try client(transport, clock: ManualClock())
        do throws(OAuthError) {
            _ = try await client.refresh(TokenSet(accessToken: "a", refreshToken: "r"))
            Issue.record("a \(field) with an escape sequence was taken")
        } catch {
            #expect(error.code == .invalidResponse)
            #expect(error.message.contains(field))
        }
    }
}
