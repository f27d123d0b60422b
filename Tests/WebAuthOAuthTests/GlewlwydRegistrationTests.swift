// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthSignIn
import WebAuthTestSupport

@testable import WebAuthOAuth

/// Dynamic client registration (RFC 7591) and its management (RFC 7592) against glewlwyd, an
/// independent C implementation from Debian: register a native public client, sign in with it
/// through headless Chromium and glewlwyd's real login page, read and delete the registration.
/// Where glewlwyd differs from the RFCs is listed at ``GlewlwydProvider/withRegistration(_:_:)``.
@Suite(.serialized, TestFixture.glewlwyd.required)
struct GlewlwydRegistrationTests {
    static func request(_ provider: GlewlwydProvider) -> ClientRegistrationRequest {
        // glewlwyd registers redirect URIs exactly: the fixture's fixed loopback port.
        ClientRegistrationRequest(redirectURIs: [provider.redirectURI], clientName: "webauth", scopes: ["openid"])
    }

    @Test(TestFixture.chromium.required)
    func aRegisteredClientSignsInAndIsGoneOnceDeleted() async throws {
        try await GlewlwydProvider.withRegistration(.open) { provider in
            let registrar = ClientRegistrar(issuer: provider.issuer)
            // A public client (`none`) glewlwyd registers, but stores as confidential without a
            // secret, so it can never sign in: this is the registration that works there.
            let publicClient = try await registrar.register(Self.request(provider))
            #expect(publicClient.clientSecret == nil)
            #expect(publicClient.tokenEndpointAuthMethod == ClientAuthenticationMethod.none)
            try await registrar.delete(publicClient)

            var request = Self.request(provider)
            request.tokenEndpointAuthMethod = .clientSecretBasic
            let registration = try await registrar.register(request)
            #expect(registration.clientSecret != nil)
            #expect(registration.isManageable)

            // glewlwyd requires pushed requests and DPoP nonces of every client.
            let base = ClientConfiguration(
                issuer: provider.issuer, clientID: "placeholder", scopes: ["openid"],
                redirectURI: provider.redirectURI, usePushedAuthorization: .automatic, dpop: .persistent)
            let client = try OAuthClient(configuration: registration.configuration(from: base))
            #expect(client.configuration.effectiveClientAuthentication == .clientSecretBasic)
            let tokens = try await provider.signIn(with: client)
            #expect(tokens.idTokenClaims?.audience.contains(registration.clientID) == true)

            let read = try await registrar.read(registration)
            #expect(read.clientID == registration.clientID)
            #expect(read.registrationAccessToken == registration.registrationAccessToken)

            try await registrar.delete(registration)
            let gone = await #expect(throws: OAuthError.self) { try await registrar.read(registration) }
            #expect(gone?.code == .registrationUnknown)
            await #expect(throws: OAuthError.self) { try await client.refresh(tokens) }
        }
    }

    @Test func aRedirectURIGlewlwydDoesNotTakeIsInvalidRedirectURI() async throws {
        try await GlewlwydProvider.withRegistration(.open) { provider in
            let request = ClientRegistrationRequest(redirectURIs: [URL(string: "http://example.com/callback")!])
            let error = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).register(request)
            }
            #expect(error?.serverError?.code == .invalidRedirectURI)

            var unknownMethod = Self.request(provider)
            unknownMethod.tokenEndpointAuthMethod = ClientAuthenticationMethod(rawValue: "tls_client_auth")
            let metadata = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).register(unknownMethod)
            }
            #expect(metadata?.serverError?.code == .invalidClientMetadata)
        }
    }

    @Test func registrationThatNeedsAnInitialAccessTokenSaysSo() async throws {
        try await GlewlwydProvider.withRegistration(.token) { provider in
            let registrar = ClientRegistrar(issuer: provider.issuer)
            let missing = await #expect(throws: OAuthError.self) {
                try await registrar.register(Self.request(provider))
            }
            #expect(missing?.code == .initialAccessTokenRequired)
            let refused = await #expect(throws: OAuthError.self) {
                try await registrar.register(Self.request(provider), initialAccessToken: "not-a-glewlwyd-token")
            }
            #expect(refused?.code == .initialAccessTokenRefused)
        }
    }

    @Test func withoutRegistrationGlewlwydOffersNoEndpoint() async throws {
        try await GlewlwydProvider.withProvider { provider in
            let error = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).register(Self.request(provider))
            }
            #expect(error?.code == .endpointUnavailable)
        }
    }
}
