// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthPlatform

@testable import WebAuthOAuth

/// Pushed authorization requests (RFC 9126) through the transport seam: when a sign-in
/// pushes, what it posts, what the browser opens, expiry, and the answers refused. The same
/// paths run over real HTTP against the embedded provider.
@Suite("Pushed authorization requests")
struct PushedAuthorizationTests {
    static let issuer = "https://as.example"

    /// Metadata with a PAR endpoint, requiring pushes or not.
    static func metadata(required: Bool?) -> String {
        let requirement = required.map { #","require_pushed_authorization_requests":\#($0)"# } ?? ""
        return #"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/authorize","#
            + #""token_endpoint":"https://as.example/token","pushed_authorization_request_endpoint":"https://as.example/par""#
            + requirement + "}"
    }

    private func client(
        use: PushedAuthorizationUse = .automatic, required: Bool? = true, secret: String? = nil,
        clock: ManualClock = ManualClock(), par: @escaping @Sendable (HTTPTransportRequest) -> HTTPTransportResponse
    ) throws -> (OAuthClient, ScriptedTransport) {
        let transport = ScriptedTransport { request in
            request.url.path == "/par" ? par(request) : .json(200, Self.metadata(required: required))
        }
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                issuer: URL(string: Self.issuer)!, clientID: "cli", clientSecret: secret, scopes: ["openid"],
                usePushedAuthorization: use, dpop: .persistent),
            transport: transport, clock: clock.oauthClock)
        return (client, transport)
    }

    static let created = HTTPTransportResponse.json(
        201, #"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#)

    @Test func aRequiredPushPostsTheParametersAndTheBrowserOpensOnlyTheReference() async throws {
        let (client, transport) = try client(secret: "s3cret-value") { _ in Self.created }
        let authorization = try await client.prepareAuthorization()
        #expect(authorization.usesPushedAuthorization)
        let url = try await authorization.authorizationURL(redirectURI: URL(string: "http://127.0.0.1:5/callback")!)
        let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(url.path == "/authorize")
        #expect(query.map(\.name) == ["client_id", "request_uri"])
        #expect(query.last?.value == "urn:ietf:params:oauth:request_uri:abc")
        let push = try #require(transport.requests.last)
        #expect(push.method == "POST" && push.url.path == "/par")
        #expect(push.headerFields[.authorization]?.hasPrefix("Basic ") == true)
        let form = push.formParameters
        #expect(form["redirect_uri"] == "http://127.0.0.1:5/callback")
        #expect(form["state"] == authorization.request.state)
        #expect(form["code_challenge_method"] == "S256")
        #expect(form["dpop_jkt"] == client.dpopKey?.thumbprint)
    }

    @Test func aPublicClientSendsItsIDOnce() async throws {
        let (client, transport) = try client { _ in Self.created }
        _ = try await client.prepareAuthorization().authorizationURL(redirectURI: URL(string: "http://127.0.0.1:5/cb")!)
        let body = String(decoding: try #require(transport.requests.last?.body), as: UTF8.self)
        #expect(body.components(separatedBy: "client_id=").count == 2)
    }

    @Test func automaticDoesNotPushUnlessRequiredAndNeverRefusesARequirement() async throws {
        let (optional, _) = try client(required: false) { _ in Self.created }
        #expect(try await !optional.prepareAuthorization().usesPushedAuthorization)
        let (always, _) = try client(use: .always, required: nil) { _ in Self.created }
        #expect(try await always.prepareAuthorization().usesPushedAuthorization)
        let (never, _) = try client(use: .never) { _ in Self.created }
        await #expect {
            _ = try await never.prepareAuthorization()
        } throws: { error in
            (error as? OAuthError)?.code == .invalidConfiguration
        }
    }

    @Test func aRequestURIExpiredOnArrivalIsPushedAgainThenGivenUpOn() async throws {
        let clock = ManualClock()
        let pushes = Locked(0)
        let (client, _) = try client(clock: clock) { _ in
            // The first answer arrives after its request_uri has expired.
            let count = pushes.withLock { count in
                count += 1
                return count
            }
            if count == 1 { clock.advance(.seconds(61)) }
            return .json(201, #"{"request_uri":"urn:r:\#(count)","expires_in":60}"#)
        }
        let url = try await client.prepareAuthorization().authorizationURL(
            redirectURI: URL(string: "http://127.0.0.1:5/cb")!)
        #expect(pushes.withLock { $0 } == 2)
        #expect(url.query?.contains("request_uri=urn%3Ar%3A2") == true)

        let (stale, _) = try self.client { _ in .json(201, #"{"request_uri":"urn:r","expires_in":0}"#) }
        await #expect {
            _ = try await stale.prepareAuthorization().authorizationURL(
                redirectURI: URL(string: "http://127.0.0.1:5/cb")!)
        } throws: { error in
            (error as? OAuthError)?.code == .pushedRequestExpired
        }
    }

    @Test(arguments: [
        (
            HTTPTransportResponse.json(200, #"{"request_uri":"urn:r","expires_in":60}"#),
            OAuthError.Code.unexpectedStatus
        ),
        (HTTPTransportResponse.json(201, #"{"expires_in":60}"#), .invalidResponse),
        (HTTPTransportResponse.json(201, #"{"request_uri":"not a uri","expires_in":60}"#), .invalidResponse),
        (HTTPTransportResponse.json(400, #"{"error":"invalid_request","error_description":"no"}"#), .server),
    ])
    func answersOtherThan201WithARequestURIAreRefused(answer: HTTPTransportResponse, code: OAuthError.Code) async throws
    {
        let (client, _) = try client { _ in answer }
        await #expect {
            _ = try await client.prepareAuthorization().authorizationURL(
                redirectURI: URL(string: "http://127.0.0.1:5/cb")!)
        } throws: { error in
            (error as? OAuthError)?.code == code
        }
    }
}
