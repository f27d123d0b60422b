// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth request` against a real protected resource: the UserInfo endpoint of the independent
/// provider (django-oauth-toolkit), with a profile signed in there in a headless Chromium.
@Suite(
    "webauth request against the independent provider's UserInfo", .serialized,
    TestFixture.djangoProvider.required, TestFixture.chromium.required)
struct RequestIndependentProviderTests {
    @Test func userInfoAnswersTheTokenAndARevokedOneIsReportedAfterOneRefresh() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await IndependentProvider.withProvider { provider in
            let entry = try await ExecCredentialProcessTests.signIn(sandbox, at: provider, profile: "api")
            let subject = try #require(entry.tokens.idTokenClaims?.subject)
            let userinfo = provider.userinfoEndpoint.absoluteString

            let run = try await sandbox.run(["request", "--profile", "api", userinfo])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try jsonObject(run.stdout)["sub"] as? String == subject)
            #expect(try sandbox.storedEntry("api") == entry, "a fresh token needs no refresh")
            #expect(!containsSecret(run.stdout + run.stderr, of: entry))

            // The access token revoked at the provider, which retires its refresh token with it
            // (django-oauth-toolkit does): UserInfo answers 401, the one refresh is refused, and
            // that is reported with nothing stored lost. (The refresh-and-retry that succeeds is
            // in RequestCommandProcessTests.)
            let body =
                "token=\(entry.tokens.accessToken)&token_type_hint=access_token&client_id=\(provider.publicClientID)"
            let path = try #require(
                URLComponents(url: provider.revocationEndpoint, resolvingAgainstBaseURL: false)
            ).percentEncodedPath
            let revoke =
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(provider.port)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + body
            let revoked = try await RawHTTPClient.exchange(port: provider.port, bytes: Array(revoke.utf8))
            try #require(revoked.status == 200, "revocation answered \(revoked.status)")
            let refused = try await sandbox.run(["request", "--profile", "api", userinfo])
            #expect(refused.status == ExitStatus.providerRefused, "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("the provider refused the refresh token (invalid_grant)"))
            #expect(refused.stderr.contains("webauth login --profile api"))
            #expect(!containsSecret(refused.stdout + refused.stderr, of: entry))
            #expect(try sandbox.storedEntry("api") == entry, "nothing stored is lost")
        }
    }
}
