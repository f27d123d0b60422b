// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The package's OAuth client against the embedded provider's multi-tenant shape, over loopback
/// HTTP: configured with the alias issuer (`…/common/v2.0`), whose discovery names the template
/// `…/{tenantid}/v2.0`, the client accepts exactly the ID tokens whose `iss` is their own
/// tenant's, and only tenants it allows.
@Suite("Embedded provider: a multi-tenant issuer")
struct MultiTenantProviderTests {
    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.multiTenant = .init(alias: "common", tenant: "tenant-a")
        return configuration
    }

    private func client(_ provider: EmbeddedProvider, allowedTenants: Set<String>? = nil) throws -> OAuthClient {
        let issuer = try #require(provider.multiTenantIssuer)
        return try OAuthClient(
            configuration: ClientConfiguration(
                issuer: issuer, clientID: "webauth-demo",
                scopes: ["openid", "profile", "offline_access"], allowedTenants: allowedTenants),
            requestTimeout: .seconds(30))
    }

    @Test func theDiscoveryDocumentNamesTheTemplate() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let base = provider.issuer.absoluteString
            #expect(provider.multiTenantIssuer?.absoluteString == base + "/common/v2.0")
            let metadata = try await client(provider).metadata()
            #expect(metadata.issuer == base + "/{tenantid}/v2.0")
        }
    }

    @Test func theRightTenantSignsInAndRefreshes() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try client(provider, allowedTenants: ["tenant-a", "tenant-b"])
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.tenantID == "tenant-a")
            #expect(claims.issuer == provider.issuer.absoluteString + "/tenant-a/v2.0")
            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.idTokenClaims?.tenantID == "tenant-a")
        }
    }

    @Test func aTokenWhoseIssuerNamesAnotherTenantThanItsTidIsRefused() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            provider.overrideIDTokenClaims(.init(issuer: provider.issuer.absoluteString + "/tenant-b/v2.0"))
            let error = await oauthError {
                try await client(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.idTokenProblem == .wrongIssuer)
        }
    }

    @Test func aTokenWithoutTidIsRefused() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            provider.overrideIDTokenClaims(.init(removedClaims: ["tid"]))
            let error = await oauthError {
                try await client(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.idTokenProblem == .missingTenant)
        }
    }

    @Test func anAllowListWithoutTheTenantRefusesItBeforeAnyToken() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let error = await oauthError {
                try await client(provider, allowedTenants: ["tenant-b"]).signIn(
                    environment: .standard(browser: ScriptedUserAgent()))
            }
            // The authorization response's iss (RFC 9207) names tenant-a: refused there, before
            // the code is redeemed.
            #expect(error?.code == .issuerMismatch)
            #expect(!provider.requests.contains { $0.endpoint == .token })
        }
    }

    @Test func aRefreshThatChangesTenantIsRefused() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration) { provider in
            let client = try client(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            // A token consistent in itself, but of another tenant.
            provider.overrideIDTokenClaims(
                .init(issuer: provider.issuer.absoluteString + "/tenant-b/v2.0", tenantID: "tenant-b"))
            let error = await oauthError { try await client.refresh(tokens) }
            #expect(error?.idTokenProblem == .identityChanged)
        }
    }

    @Test func anAllowListForAPlainIssuerIsAConfigurationError() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: "webauth-demo", scopes: ["openid"],
                    allowedTenants: ["tenant-a"]))
            let error = await oauthError { try await client.metadata() }
            #expect(error?.code == .invalidConfiguration)
        }
    }

    @Test func aPlainIssuerIsStillComparedExactly() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            // A plain provider's token that claims a tenant gains nothing from it.
            provider.overrideIDTokenClaims(
                .init(issuer: provider.issuer.absoluteString + "/tenant-a/v2.0", tenantID: "tenant-a"))
            let error = await oauthError {
                try await makeClient(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.idTokenProblem == .wrongIssuer)
        }
    }
}
