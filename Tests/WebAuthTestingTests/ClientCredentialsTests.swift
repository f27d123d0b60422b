// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The client credentials grant (RFC 6749 §4.4) with the package's OAuth client against the
/// embedded provider, the reference: a confidential client registered for the grant gets an
/// access token for itself and no refresh token, and "refreshing" asks again.
@Suite("Client credentials (RFC 6749 §4.4)")
struct ClientCredentialsTests {
    static let secret = "machine-secret: long enough & with symbols"

    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.testConfiguration
        var machine = EmbeddedProvider.Client(
            id: "ci-job", secret: secret, redirectURIs: [], allowedScopes: ["deploy", "read", "openid"])
        machine.allowsClientCredentials = true
        configuration.clients.append(machine)
        return configuration
    }

    private func client(
        _ provider: EmbeddedProvider, id: String = "ci-job", secret: String? = Self.secret,
        scopes: [String] = ["deploy"], authentication: ClientAuthenticationMethod? = nil
    ) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: id, clientSecret: secret, scopes: scopes,
                clientAuthentication: authentication, grant: .clientCredentials),
            requestTimeout: .seconds(30))
    }

    @Test(arguments: [ClientAuthenticationMethod.clientSecretBasic, .clientSecretPost])
    func aRegisteredClientGetsATokenForItselfAndNoRefreshToken(authentication: ClientAuthenticationMethod)
        async throws
    {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let tokens = try await client(provider, authentication: authentication).clientCredentials()
            #expect(tokens.scopes == ["deploy"])
            #expect(tokens.refreshToken == nil)
            #expect(tokens.idToken == nil)
            #expect(provider.isActive(accessToken: tokens.accessToken))
            #expect(provider.requests.map(\.grantType).contains("client_credentials"))
            // No page, no browser: discovery and one token request.
            #expect(
                provider.requests.map(\.path) == ["/.well-known/openid-configuration", "/token"])
        }
    }

    @Test func refreshingAsksAgain() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try client(provider)
            let first = try await client.clientCredentials()
            let second = try await client.refresh(first)
            #expect(second.accessToken != first.accessToken)
            #expect(second.scopes == ["deploy"])
            #expect(provider.requests.filter { $0.grantType == "client_credentials" }.count == 2)
            #expect(!provider.requests.contains { $0.grantType == "refresh_token" })
        }
    }

    @Test func theProviderRefusesWhatTheGrantCannotGive() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            // A scope that needs a person.
            var error = await oauthError { try await client(provider).clientCredentials(scopes: ["openid"]) }
            #expect(error?.serverError?.code.rawValue == "invalid_scope")
            // A confidential client not registered for the grant.
            error = await oauthError {
                try await client(
                    provider, id: "backend", secret: "backend-secret: with symbols & more", scopes: ["profile"]
                ).clientCredentials()
            }
            #expect(error?.serverError?.code.rawValue == "unauthorized_client")
            // A wrong secret.
            error = await oauthError { try await client(provider, secret: "not the secret").clientCredentials() }
            #expect(error?.serverError?.code.rawValue == "invalid_client")
        }
    }

    @Test func aPublicClientCannotUseTheGrant() async throws {
        #expect(throws: OAuthError.self) {
            try ClientConfiguration(
                issuer: URL(string: "https://id.example")!, clientID: "app", grant: .clientCredentials
            ).validated()
        }
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let error = await oauthError {
                try await OAuthClient(
                    configuration: ClientConfiguration(issuer: provider.issuer, clientID: "webauth-demo")
                ).clientCredentials()
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(!provider.requests.contains { $0.endpoint == .token }, "nothing was sent")
        }
    }

    @Test func theGrantIsKeptInTheStoredConfiguration() throws {
        let configuration = ClientConfiguration(
            issuer: URL(string: "https://id.example")!, clientID: "ci-job", clientSecret: "s", grant: .clientCredentials
        )
        let data = try JSONEncoder().encode(configuration)
        #expect(String(decoding: data, as: UTF8.self).contains(#""grant":"client_credentials""#))
        #expect(try JSONDecoder().decode(ClientConfiguration.self, from: data).grant == .clientCredentials)
        let person = try JSONEncoder().encode(ClientConfiguration(issuer: configuration.issuer, clientID: "app"))
        #expect(!String(decoding: person, as: UTF8.self).contains("grant"))
    }
}
