// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthOAuth
import WebAuthSignIn

/// The OAuth examples of README.md and the WebAuthOAuth DocC catalog, compiled so that the
/// documentation cannot drift from the API. Building the test target is the check; running
/// them needs a real provider, which the end-to-end suites cover.
struct OAuthDocumentationExamplesTests {
    /// README "OAuth 2.0 and OpenID Connect", and the catalog's overview.
    func readmeSignInExample() async throws -> String {
        let client = try OAuthClient(
            configuration: ClientConfiguration(
                issuer: URL(string: "https://accounts.example.com")!,
                clientID: "my-cli",
                scopes: ["openid", "profile", "offline_access"]))
        let tokens = try await client.signIn()
        print(tokens.idTokenClaims?.subject ?? "")

        let provider = AccessTokenProvider(client: client, tokens: tokens) { refreshed in
            // Store `refreshed`: a rotated refresh token replaces the old one.
            _ = refreshed
        }
        return try await provider.accessToken()
    }

    /// README: the device flow.
    func readmeDeviceExample(client: OAuthClient) async throws -> TokenSet {
        let authorization = try await client.startDeviceAuthorization()
        print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
        return try await client.pollDeviceAuthorization(authorization)
    }

    /// README: a configuration file and a preset.
    func readmeConfigurationExample() throws -> [OAuthClient] {
        let fromFile = try ClientConfiguration.load(from: URL(fileURLWithPath: "anilist_api.json"))
        let github = ClientConfiguration.github(clientID: "Iv1.0123456789abcdef", clientSecret: "…")
        return [try OAuthClient(configuration: fromFile), try OAuthClient(configuration: github)]
    }

    /// README: typed errors.
    func readmeErrorExample(client: OAuthClient) async {
        do {
            _ = try await client.signIn()
        } catch  where error.code == .server && error.serverError?.code == .accessDenied {
            print("You declined; nothing was changed.")
        } catch  where error.code == .session && error.sessionError?.code == .canceledLogin {
            print("Sign-in cancelled.")
        } catch {
            print("Sign-in failed: \(error)")
        }
    }
}
