// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import CryptoExtras
import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthURLSession

@testable import WebAuthOAuth

/// `private_key_jwt` and `client_secret_jwt` against the embedded provider, the strict
/// reference: sign-in, refresh and revocation (and the pushed authorization request on the
/// way) authenticate with a fresh assertion each, and the provider refuses a wrong key, an
/// expired assertion, a replayed `jti` and a wrong `aud` with `invalid_client`.
@Suite("JWT client authentication against the embedded provider")
struct JWTClientAuthenticationTests {
    static let keyClientID = "jwt-key-client"
    static let secretClientID = "jwt-secret-client"
    static let secret = "client-secret-jwt-secret-of-32-bytes"
    static let redirects = [URL(string: "http://127.0.0.1/callback")!]

    /// A provider with a `private_key_jwt` client registered with `registered` and a
    /// `client_secret_jwt` client, both registered for that method alone.
    static func configuration(
        registered: [ClientAssertionKey], tokenEndpointAudience: Bool = false, pushes: Bool = true
    ) -> EmbeddedProvider.Configuration {
        var keyClient = EmbeddedProvider.Client(id: keyClientID, redirectURIs: redirects)
        keyClient.publicJWKs = registered.map(\.publicJWK)
        keyClient.tokenEndpointAuthMethod = "private_key_jwt"
        keyClient.allowedScopes.insert("api")
        keyClient.allowsClientCredentials = !registered.isEmpty
        var secretClient = EmbeddedProvider.Client(id: secretClientID, secret: secret, redirectURIs: redirects)
        secretClient.tokenEndpointAuthMethod = "client_secret_jwt"
        // Registered for private_key_jwt, the client needs a key.
        var configuration = EmbeddedProvider.Configuration(
            clients: registered.isEmpty ? [secretClient] : [keyClient, secretClient])
        configuration.requiresPushedAuthorizationRequests = pushes
        configuration.acceptsTokenEndpointAssertionAudience = tokenEndpointAudience
        return configuration
    }

    static func keyClient(
        _ provider: EmbeddedProvider, key: ClientAssertionKey, audience: ClientAssertionAudience = .issuer,
        clock: OAuthClock = .system, transport: any HTTPTransport = URLSessionTransport()
    ) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: keyClientID, scopes: ["openid", "offline_access"],
                clientAuthentication: .privateKeyJWT, clientKey: key, clientAssertionAudience: audience),
            transport: transport, clock: clock)
    }

    static func newKey(_ kind: String) throws -> ClientAssertionKey {
        switch kind {
        case "ES256": try ClientAssertionKey(pem: P256.Signing.PrivateKey().pemRepresentation, keyID: "es")
        case "RS256": try ClientAssertionKey(pem: try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation)
        default:
            try ClientAssertionKey(
                pem: try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation, algorithm: .ps256, keyID: "ps")
        }
    }

    @Test(arguments: ["ES256", "RS256", "PS256"])
    func privateKeyJWTSignsInRefreshesAndRevokes(_ algorithm: String) async throws {
        let key = try Self.newKey(algorithm)
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [key])) { provider in
            let client = try Self.keyClient(provider, key: key)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let refreshed = try await client.refresh(tokens)
            try await client.revoke(refreshed)
            #expect(provider.requests(to: .pushedAuthorization).map(\.status) == [201])
            #expect(provider.requests(to: .token).map(\.status) == [200, 200])
            #expect(provider.requests(to: .revocation).map(\.status) == [200, 200])
            // Revoked: the refresh token no longer works.
            await #expect(throws: OAuthError.self) { try await client.refresh(refreshed) }
        }
    }

    @Test func clientSecretJWTSignsInRefreshesAndRevokes() async throws {
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [])) { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: Self.secretClientID, clientSecret: Self.secret,
                    scopes: ["openid", "offline_access"], clientAuthentication: .clientSecretJWT))
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let refreshed = try await client.refresh(tokens)
            try await client.revoke(refreshed)
            #expect(provider.requests(to: .token).map(\.status) == [200, 200])
            #expect(provider.requests(to: .revocation).map(\.status) == [200, 200])

            // Registered for client_secret_jwt, the client may not send its secret itself.
            let basic = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: Self.secretClientID, clientSecret: Self.secret,
                    scopes: ["openid"], clientAuthentication: .clientSecretBasic))
            await Self.expectInvalidClient {
                _ = try await basic.signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
        }
    }

    @Test func theClientCredentialsGrantAuthenticatesWithAnAssertion() async throws {
        let key = try Self.newKey("ES256")
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [key])) { provider in
            var configuration = ClientConfiguration(
                issuer: provider.issuer, clientID: Self.keyClientID, scopes: ["api"], clientKey: key)
            configuration.grant = .clientCredentials
            let tokens = try await OAuthClient(configuration: configuration).clientCredentials()
            #expect(!tokens.accessToken.isEmpty)
        }
    }

    @Test func anAssertionSignedWithAnotherKeyIsRefused() async throws {
        let registered = try Self.newKey("ES256")
        let other = try ClientAssertionKey(pem: P256.Signing.PrivateKey().pemRepresentation, keyID: "es")
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [registered], pushes: false)) {
            provider in
            let client = try Self.keyClient(provider, key: other)
            await Self.expectInvalidClient { _ = try await client.clientCredentialsOrRefresh() }
            #expect(provider.requests(to: .token).map(\.error) == ["invalid_client"])
        }
    }

    @Test func anExpiredAssertionIsRefused() async throws {
        let key = try Self.newKey("ES256")
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [key], pushes: false)) { provider in
            // The client's clock is two minutes behind: its one-minute assertion has expired.
            let late = OAuthClock(now: { Date().addingTimeInterval(-120) }, sleep: { _ in })
            let client = try Self.keyClient(provider, key: key, clock: late)
            await Self.expectInvalidClient { _ = try await client.clientCredentialsOrRefresh() }
            // …and one whose exp lies too far ahead is refused as well.
            let early = OAuthClock(now: { Date().addingTimeInterval(600) }, sleep: { _ in })
            let fromTheFuture = try Self.keyClient(provider, key: key, clock: early)
            await Self.expectInvalidClient { _ = try await fromTheFuture.clientCredentialsOrRefresh() }
            // With the right time it works.
            _ = try await Self.keyClient(provider, key: key).clientCredentialsOrRefresh()
        }
    }

    @Test func aReplayedAssertionIsRefused() async throws {
        let key = try Self.newKey("ES256")
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [key], pushes: false)) { provider in
            let transport = ReplayingTransport()
            let client = try Self.keyClient(provider, key: key, transport: transport)
            await Self.expectInvalidClient { _ = try await client.clientCredentialsOrRefresh() }
            // The first sending was accepted; the same assertion a second time was not.
            #expect(provider.requests(to: .token).map(\.status) == [200, 401])
        }
    }

    @Test func aWrongAudienceIsRefusedAndTheTokenEndpointOnlyWhereAccepted() async throws {
        let key = try Self.newKey("ES256")
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [key], pushes: false)) { provider in
            let elsewhere = try Self.keyClient(
                provider, key: key, audience: .url(URL(string: "https://other.example")!))
            await Self.expectInvalidClient { _ = try await elsewhere.clientCredentialsOrRefresh() }
            let tokenEndpoint = try Self.keyClient(provider, key: key, audience: .tokenEndpoint)
            await Self.expectInvalidClient { _ = try await tokenEndpoint.clientCredentialsOrRefresh() }
        }
        try await EmbeddedProvider.withProvider(
            Self.configuration(registered: [key], tokenEndpointAudience: true, pushes: false)
        ) { provider in
            _ = try await Self.keyClient(provider, key: key, audience: .tokenEndpoint).clientCredentialsOrRefresh()
        }
    }

    @Test func aClientRegisteredForPrivateKeyJWTCannotPassAsPublic() async throws {
        let key = try Self.newKey("ES256")
        try await EmbeddedProvider.withProvider(Self.configuration(registered: [key], pushes: false)) { provider in
            var configuration = ClientConfiguration(
                issuer: provider.issuer, clientID: Self.keyClientID, scopes: ["openid"])
            configuration.clientAuthentication = ClientAuthenticationMethod.none
            let client = try OAuthClient(configuration: configuration)
            await Self.expectInvalidClient {
                _ = try await client.exchange(
                    code: "x", verifier: "v", redirectURI: Self.redirects[0], nonce: nil)
            }
        }
    }

    static func expectInvalidClient(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("the provider accepted the client")
        } catch let error as OAuthError {
            #expect(error.serverError?.code == .invalidClient, "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}

extension OAuthClient {
    /// One token-endpoint request with client authentication and no person: the client
    /// credentials grant.
    fileprivate func clientCredentialsOrRefresh() async throws(OAuthError) -> TokenSet {
        try await clientCredentials(scopes: ["api"])
    }
}

/// Sends each token request twice and answers with the second answer: a replay of exactly
/// what the client sent.
final class ReplayingTransport: HTTPTransport {
    private let inner = URLSessionTransport()

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        guard request.method == "POST" else { return try await inner.send(request) }
        _ = try await inner.send(request)
        return try await inner.send(request)
    }
}
