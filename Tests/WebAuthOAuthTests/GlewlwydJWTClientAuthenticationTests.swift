// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import Testing
import WebAuthSignIn
import WebAuthTestSupport

@testable import WebAuthOAuth

/// `private_key_jwt` and `client_secret_jwt` against glewlwyd, an independent C implementation
/// from Debian: sign-in (with the pushed request and DPoP glewlwyd requires), refresh,
/// revocation and the client credentials grant each authenticate with a fresh assertion; and
/// glewlwyd refuses an assertion signed by another key, one replayed, and one whose `aud` is the
/// issuer (see ``GlewlwydProvider`` for how glewlwyd differs from RFC 7523).
@Suite(.serialized, TestFixture.glewlwyd.required, TestFixture.chromium.required)
struct GlewlwydJWTClientAuthenticationTests {
    @Test func privateKeyJWTSignsInRefreshesRevokesAndAsksForItself() async throws {
        try await GlewlwydProvider.withProvider { provider in
            let client = try provider.privateKeyJWTClient()
            let metadata = try await client.metadata()
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("private_key_jwt") == true)

            let tokens = try await provider.signIn(with: client)
            #expect(tokens.idTokenClaims?.issuer == provider.issuer.absoluteString)
            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.accessToken != tokens.accessToken)
            try await client.revoke(refreshed)
            await #expect(throws: OAuthError.self, "\(provider.recentLog())") {
                _ = try await client.refresh(refreshed)
            }
            let own = try await client.clientCredentials(scopes: ["openid"])
            #expect(!own.accessToken.isEmpty)
        }
    }

    @Test func clientSecretJWTSignsInRefreshesRevokesAndAsksForItself() async throws {
        try await GlewlwydProvider.withProvider { provider in
            let client = try provider.clientSecretJWTClient()
            #expect(
                try await client.metadata().tokenEndpointAuthMethodsSupported?.contains("client_secret_jwt") == true)
            let tokens = try await provider.signIn(with: client)
            let refreshed = try await client.refresh(tokens)
            try await client.revoke(refreshed)
            await #expect(throws: OAuthError.self) { _ = try await client.refresh(refreshed) }
            _ = try await client.clientCredentials(scopes: ["openid"])
        }
    }

    @Test func glewlwydRefusesAnotherKeyAReplayAndTheIssuerAsAudience() async throws {
        try await GlewlwydProvider.withProvider { provider in
            // The registered key works (no browser: the client credentials grant).
            _ = try await provider.privateKeyJWTClient().clientCredentials(scopes: ["openid"])

            // Another key under the registered kid.
            let other = try ClientAssertionKey(
                pem: P256.Signing.PrivateKey().pemRepresentation, keyID: provider.clientKeyID)
            let impostor = try provider.privateKeyJWTClient { $0.clientKey = other }
            await Self.expectRefusal { _ = try await impostor.clientCredentials(scopes: ["openid"]) }

            // The same assertion twice: the first is accepted, the replay is not.
            let key = try ClientAssertionKey.load(from: provider.clientKeyFile, keyID: provider.clientKeyID)
            let replaying = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: provider.jwtKeyClientID, scopes: ["openid"],
                    clientAuthentication: .privateKeyJWT, clientKey: key, clientAssertionAudience: .endpoint),
                transport: ReplayingTransport())
            await Self.expectRefusal { _ = try await replaying.clientCredentials(scopes: ["openid"]) }

            // The issuer identifier as aud, which current guidance asks for: glewlwyd wants the
            // endpoint's own URL instead.
            let toIssuer = try provider.privateKeyJWTClient { $0.clientAssertionAudience = .issuer }
            await Self.expectRefusal { _ = try await toIssuer.clientCredentials(scopes: ["openid"]) }
            let secretToIssuer = try provider.clientSecretJWTClient { $0.clientAssertionAudience = .issuer }
            await Self.expectRefusal { _ = try await secretToIssuer.clientCredentials(scopes: ["openid"]) }
        }
    }

    /// glewlwyd answers a refused assertion at the token endpoint with a bare `403` (RFC 6749
    /// §5.2 asks for `invalid_client`, with `400` or `401`).
    static func expectRefusal(_ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("glewlwyd accepted the assertion")
        } catch let error as OAuthError {
            let refused =
                error.serverError?.code == .invalidClient
                || (error.code == .unexpectedStatus && ["401", "403"].contains { "\(error)".contains($0) })
            #expect(refused, "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
