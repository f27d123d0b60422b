// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthCore
import WebAuthOAuth
import WebAuthPlatform

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// What a test of a client needs beyond the forgeries: the address a person would paste
/// (``ScriptedUserAgent/redirectAddress(from:to:)``), an error fault carried by the
/// authorization redirect, and a request log that names how the client authenticated and
/// which kind of token it revoked — never a credential or a token.
@Suite("Embedded provider: pasted redirects and the request log")
struct PastedRedirectAndRequestLogTests {
    @Test func theAgentStopsAtTheRedirectAndTheCodeInItStillWorks() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let authorization = RawAuthorization()
            let recorded = StepRecorder()
            var agent = ScriptedUserAgent()
            agent.onStep = { recorded.append($0) }
            let address = try await agent.redirectAddress(from: authorization.url(provider))
            let steps = recorded.steps
            #expect(address.absoluteString.hasPrefix(authorization.redirectURI + "?"), "\(address)")
            let query = URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "state" }?.value == authorization.state)
            #expect(query.first { $0.name == "iss" }?.value == provider.issuer.absoluteString)
            #expect(steps.contains(.filledLoginForm(username: EmbeddedProvider.User.demo.username)))
            #expect(steps.last == .stoppedAtRedirect(path: "/callback"), "\(steps)")
            #expect(!steps.contains(.reachedCallback(path: "/callback")), "the redirect was not requested")
            let code = try #require(query.first { $0.name == "code" }?.value)
            let exchanged = try await provider.exchange(code, authorization)
            #expect(exchanged.status == 200, "the code was not used up: \(exchanged.body)")
        }
    }

    @Test func anExplicitCallbackIsWhereTheAgentStops() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let authorization = RawAuthorization()
            // A callback on another path never matches: the agent requests the redirect (port 9
            // is closed) instead of stopping.
            let elsewhere = Callback.loopback(path: "/elsewhere")
            await #expect(throws: ScriptedUserAgentError.self) {
                try await ScriptedUserAgent().redirectAddress(from: authorization.url(provider), to: elsewhere)
            }
            let address = try await ScriptedUserAgent().redirectAddress(
                from: authorization.url(provider), to: .loopback(path: "/callback"))
            #expect(address.path == "/callback")
            // With no callback and no redirect_uri, there is nothing to stop at.
            await #expect(throws: ScriptedUserAgentError.self) {
                try await ScriptedUserAgent().redirectAddress(from: provider.url(.authorization))
            }
        }
    }

    @Test func anErrorFaultGoesBackInTheRedirectOnceClientAndRedirectURICheckOut() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let hostile = "\u{1B}]0;owned\u{07}\u{202E}rev"
            provider.setFault(.error(hostile, description: hostile), for: .authorization)
            provider.overrideAuthorizationResponse(
                .init(additionalParameters: ["error_uri": "https://e.example/\(hostile)"]))
            // Even a request the provider would refuse itself (no PKCE challenge) carries the
            // fault's error, as the fault promises once the client and redirect URI check out.
            for authorization in [RawAuthorization(), RawAuthorization(includeChallenge: false)] {
                let address = try await ScriptedUserAgent().redirectAddress(from: authorization.url(provider))
                let query = URLComponents(url: address, resolvingAgainstBaseURL: false)?.queryItems ?? []
                #expect(query.first { $0.name == "error" }?.value == hostile)
                #expect(query.first { $0.name == "error_description" }?.value == hostile)
                #expect(query.first { $0.name == "error_uri" }?.value == "https://e.example/\(hostile)")
                #expect(query.first { $0.name == "state" }?.value == authorization.state)
            }
            // An unknown client is still an error page: the fault never makes an open redirector.
            let unknown = try await RawHTTPClient.get(
                port: provider.port,
                target: RawAuthorization(clientID: "nobody").url(provider).path + "?"
                    + (RawAuthorization(clientID: "nobody").url(provider).query ?? ""))
            #expect(unknown.status == 400)
            #expect(unknown.header("Location") == nil)
        }
    }

    @Test func theLogNamesHowTheClientAuthenticatedAndNeverTheCredentials() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let secret = "backend-secret: with symbols & more"
            let basic =
                "Basic "
                + Data("backend:\(secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)".utf8)
                .base64EncodedString()
            let refresh = [("grant_type", "refresh_token"), ("refresh_token", "not-a-token")]
            _ = try await provider.postForm(.token, refresh + [("client_id", "webauth-demo")])
            _ = try await provider.postForm(.token, refresh + [("client_id", "backend"), ("client_secret", "wrong")])
            _ = try await provider.postForm(.token, refresh, headerFields: [.authorization: basic])
            _ = try await provider.postForm(
                .revocation, [("token", "r-1"), ("token_type_hint", "refresh_token"), ("client_id", "webauth-demo")])
            _ = try await provider.postForm(
                .revocation, [("token", "a-1"), ("token_type_hint", "access_token"), ("client_id", "webauth-demo")])
            _ = try await provider.postForm(
                .revocation, [("token", "x-1"), ("token_type_hint", "id_token"), ("client_id", "webauth-demo")])
            _ = try await RawHTTPClient.get(port: provider.port, target: "/jwks")

            let token = provider.requests(to: .token)
            #expect(token.map(\.clientAuthentication) == ["none", "client_secret_post", "client_secret_basic"])
            #expect(token.map(\.status) == [400, 401, 400], "the wrong secret is refused, the right one is not")
            let revocations = provider.requests(to: .revocation)
            #expect(revocations.map(\.tokenTypeHint) == ["refresh_token", "access_token", nil])
            #expect(revocations.allSatisfy { $0.clientAuthentication == "none" })
            #expect(provider.requests(to: .jwks).map(\.clientAuthentication) == [nil])
            let log = "\(provider.requests)" + provider.requests.map { String(reflecting: $0) }.joined()
            for value in [secret, "wrong", "not-a-token", "r-1", "a-1", "backend:"] {
                #expect(!log.contains(value), "the log holds \(value)")
            }
        }
    }
}

/// The steps a ``ScriptedUserAgent`` reports, collected across its task.
private final class StepRecorder: Sendable {
    private let storage = Locked<[ScriptedUserAgent.Step]>([])
    func append(_ step: ScriptedUserAgent.Step) { storage.withLock { $0.append(step) } }
    var steps: [ScriptedUserAgent.Step] { storage.withLock { $0 } }
}
