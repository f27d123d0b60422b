// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthSignIn
import WebAuthTestSupport

@testable import WebAuthOAuth

/// PAR and DPoP against glewlwyd, an independent C implementation from Debian, through headless
/// Chromium and glewlwyd's real login page: sign-in with pushed requests required and
/// DPoP-bound tokens (glewlwyd requires DPoP nonces, so each first proof meets the nonce
/// dance), refresh, UserInfo with a proof, and revocation.
@Suite(.serialized, TestFixture.glewlwyd.required, TestFixture.chromium.required)
struct GlewlwydEndToEndTests {
    @Test func aPushedSignInGetsDPoPBoundTokensThatRefreshAskUserInfoAndRevoke() async throws {
        try await GlewlwydProvider.withProvider { provider in
            let client = try provider.client()
            let metadata = try await client.metadata()
            #expect(metadata.requirePushedAuthorizationRequests == true)
            #expect(metadata.pushedAuthorizationRequestEndpoint != nil)

            let tokens = try await provider.signIn(with: client)
            #expect(tokens.isDPoPBound)
            #expect(tokens.dpopKey == client.dpopKey)
            let claims = try #require(tokens.idTokenClaims)
            #expect(claims.issuer == provider.issuer.absoluteString)

            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.isDPoPBound)
            #expect(refreshed.accessToken != tokens.accessToken)

            let info = try await client.userInfo(for: refreshed)
            #expect(info.subject == claims.subject)
            // The same token without its key is refused by the client, never sent as Bearer.
            var keyless = refreshed
            keyless.dpopKey = nil
            await #expect {
                _ = try await client.userInfo(for: keyless)
            } throws: { error in
                (error as? OAuthError)?.code == .dpopKeyMissing
            }
            // glewlwyd bound the token to the client's key: cnf.jkt in its JWT access token.
            let payload = try #require(refreshed.accessToken.split(separator: ".").dropFirst().first)
            let claimsData = try #require(Data(base64URLEncoded: payload))
            let tokenClaims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
            #expect((tokenClaims["cnf"] as? [String: Any])?["jkt"] as? String == refreshed.dpopKey?.thumbprint)

            try await client.revoke(refreshed)
            // glewlwyd answers the revoked refresh token with a bare 400 (no RFC 6749 §5.2 body).
            await #expect {
                _ = try await client.refresh(refreshed)
            } throws: { error in
                [.server, .unexpectedStatus].contains((error as? OAuthError)?.code)
            }
        }
    }

    @Test func aClientThatWillNotPushIsStoppedBeforeTheBrowserOpens() async throws {
        try await GlewlwydProvider.withProvider { provider in
            let client = try provider.client { $0.usePushedAuthorization = .never }
            await #expect {
                _ = try await client.prepareAuthorization()
            } throws: { error in
                (error as? OAuthError)?.code == .invalidConfiguration
            }
        }
    }
}
