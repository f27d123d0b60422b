// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// OAuth 2.0 Token Exchange (RFC 8693) with the package's OAuth client against the embedded
/// provider, the reference: a person's access token becomes one for another audience, with at
/// most its scopes; what the provider will not do comes back as RFC 8693's typed errors.
@Suite("Token exchange (RFC 8693)")
struct TokenExchangeTests {
    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.tokenExchangeTargets = ["https://api.example.com", "billing"]
        return configuration
    }

    @Test func anAccessTokenIsExchangedForAnotherAudience() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let exchanged = try await client.exchange(
                subjectToken: tokens.accessToken, subjectTokenType: .accessToken, audience: "billing",
                scopes: ["profile"])
            #expect(exchanged.issuedTokenType == .accessToken)
            #expect(exchanged.tokens.accessToken != tokens.accessToken)
            #expect(exchanged.tokens.scopes == ["profile"])
            #expect(exchanged.tokens.refreshToken == nil)
            #expect(provider.audiences(ofAccessToken: exchanged.tokens.accessToken) == ["billing"])
            #expect(provider.isActive(accessToken: tokens.accessToken), "the subject token stays valid")

            let byResource = try await client.exchange(
                subjectToken: tokens.accessToken, subjectTokenType: .accessToken,
                resource: URL(string: "https://api.example.com")!)
            #expect(provider.audiences(ofAccessToken: byResource.tokens.accessToken) == ["https://api.example.com"])
        }
    }

    @Test func whatTheProviderWillNotDoComesBackTyped() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try makeClient(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            // Another target: invalid_target.
            var error = await oauthError {
                try await client.exchange(
                    subjectToken: tokens.accessToken, subjectTokenType: .accessToken, audience: "elsewhere")
            }
            #expect(error?.serverError?.code == .invalidTarget)
            // A subject token type it does not take: invalid_request.
            error = await oauthError {
                try await client.exchange(subjectToken: tokens.accessToken, subjectTokenType: .jwt, audience: "billing")
            }
            #expect(error?.serverError?.code == .invalidRequest)
            // More scopes than the subject token has.
            error = await oauthError {
                try await client.exchange(
                    subjectToken: tokens.accessToken, subjectTokenType: .accessToken, audience: "billing",
                    scopes: ["admin"])
            }
            #expect(error?.serverError?.code == .invalidScope)
            // A subject token that is not live.
            error = await oauthError {
                try await client.exchange(
                    subjectToken: "not-a-token", subjectTokenType: .accessToken, audience: "billing")
            }
            #expect(error?.serverError?.code == .invalidGrant)
        }
    }

    @Test func badArgumentsAreRefusedBeforeAnyRequest() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try makeClient(provider)
            var error = await oauthError {
                try await client.exchange(
                    subjectToken: "t", subjectTokenType: .accessToken,
                    resource: URL(string: "https://api.example.com/#fragment")!)
            }
            #expect(error?.code == .invalidConfiguration)
            error = await oauthError {
                try await client.exchange(subjectToken: "t", subjectTokenType: "not a uri", audience: "billing")
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(!provider.requests.contains { $0.endpoint == .token })
        }
    }

    @Test func anAnswerWithoutIssuedTokenTypeIsRefused() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try makeClient(provider)
            provider.setFault(
                .answer(200, body: #"{"access_token":"abc","token_type":"Bearer","expires_in":60}"#).times(1),
                for: .token)
            let error = await oauthError {
                try await client.exchange(subjectToken: "t", subjectTokenType: .accessToken, audience: "billing")
            }
            #expect(error?.code == .invalidResponse)
        }
    }
}
