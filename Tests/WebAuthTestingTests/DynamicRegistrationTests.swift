// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn

/// Dynamic client registration (RFC 7591, RFC 7592) end to end: the library's registrar and
/// client against the embedded provider, the strict reference.
@Suite struct DynamicRegistrationTests {
    static func configuration(_ registration: EmbeddedProvider.Registration? = .open) -> EmbeddedProvider.Configuration
    {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.requiresConsent = false
        configuration.registration = registration
        return configuration
    }

    static let request = ClientRegistrationRequest(
        redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "webauth test",
        scopes: ["openid", "offline_access"])

    static func base(_ provider: EmbeddedProvider) -> ClientConfiguration {
        ClientConfiguration(
            issuer: provider.issuer, clientID: "placeholder", scopes: ["openid", "offline_access"])
    }

    @Test func aRegisteredClientSignsInAtOnceAndIsUnknownOnceDeleted() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration()) { provider in
            let registrar = ClientRegistrar(issuer: provider.issuer)
            let endpoint = try await registrar.registrationEndpoint()
            #expect(endpoint == provider.url(.registration))
            let registration = try await registrar.register(Self.request)
            #expect(registration.clientSecret == nil)
            #expect(registration.isManageable)
            #expect(registration.tokenEndpointAuthMethod == ClientAuthenticationMethod.none)

            let client = try OAuthClient(configuration: registration.configuration(from: Self.base(provider)))
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.idTokenClaims?.audience == [registration.clientID])
            let refreshed = try await client.refresh(tokens)

            // Reading rotates the registration access token; the old one no longer works.
            let read = try await registrar.read(registration)
            #expect(read.clientID == registration.clientID)
            #expect(read.registrationAccessToken != registration.registrationAccessToken)
            let stale = await #expect(throws: OAuthError.self) { try await registrar.delete(registration) }
            #expect(stale?.code == .registrationUnknown)

            try await registrar.delete(read)
            let refused = await #expect(throws: OAuthError.self) { try await client.refresh(refreshed) }
            #expect(refused?.serverError?.code == .invalidClient)
            let gone = await #expect(throws: OAuthError.self) { try await registrar.read(read) }
            #expect(gone?.code == .registrationUnknown)
            await #expect(throws: (any Error).self) {
                try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
        }
    }

    @Test func aProviderThatWantsAnInitialAccessTokenTakesOnlyItsOwn() async throws {
        let token = "handed-out-by-the-administrator"
        try await EmbeddedProvider.withTestProvider(Self.configuration(.init(initialAccessTokens: [token]))) {
            provider in
            let registrar = ClientRegistrar(issuer: provider.issuer)
            let missing = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
            #expect(missing?.code == .initialAccessTokenRequired)
            let wrong = await #expect(throws: OAuthError.self) {
                try await registrar.register(Self.request, initialAccessToken: "not-the-one-handed-out")
            }
            #expect(wrong?.code == .initialAccessTokenRefused)
            #expect(wrong?.serverError?.code == "invalid_token")
            let registration = try await registrar.register(Self.request, initialAccessToken: token)
            #expect(!registration.clientID.isEmpty)
        }
    }

    @Test func withoutTheSwitchTheProviderOffersNoRegistration() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration(nil)) { provider in
            let registrar = ClientRegistrar(issuer: provider.issuer)
            let error = await #expect(throws: OAuthError.self) { try await registrar.register(Self.request) }
            #expect(error?.code == .endpointUnavailable)
            let metadata = try await makeClient(provider).metadata()
            #expect(metadata.registrationEndpoint == nil)
        }
    }

    @Test(
        arguments: [
            ("http://example.com/callback", OAuthServerError.Code.invalidRedirectURI),
            ("http://localhost/callback", .invalidRedirectURI),
            ("http://127.0.0.1/callback#fragment", .invalidRedirectURI),
        ])
    func aRedirectURIANativeClientMayNotHaveIsRefused(_ case: (String, OAuthServerError.Code)) async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration()) { provider in
            let request = ClientRegistrationRequest(redirectURIs: [URL(string: `case`.0)!])
            let error = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).register(request)
            }
            #expect(error?.serverError?.code == `case`.1, "\(`case`.0)")
        }
    }

    @Test func metadataTheProviderDoesNotTakeIsInvalidClientMetadata() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration()) { provider in
            var request = Self.request
            request.tokenEndpointAuthMethod = ClientAuthenticationMethod(rawValue: "tls_client_auth")
            let error = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).register(request)
            }
            #expect(error?.serverError?.code == .invalidClientMetadata)
            request = Self.request
            request.grantTypes = ["implicit"]
            let grant = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).register(request)
            }
            #expect(grant?.serverError?.code == .invalidClientMetadata)
        }
    }

    @Test func aConfidentialRegistrationGetsASecretAndSignsInWithIt() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration()) { provider in
            var request = Self.request
            request.tokenEndpointAuthMethod = .clientSecretPost
            let registration = try await ClientRegistrar(issuer: provider.issuer).register(request)
            let secret = try #require(registration.clientSecret)
            #expect(!"\(registration)".contains(secret))
            let client = try OAuthClient(configuration: registration.configuration(from: Self.base(provider)))
            #expect(client.configuration.effectiveClientAuthentication == .clientSecretPost)
            _ = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
        }
    }
}
