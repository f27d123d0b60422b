// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCore
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The embedded provider's end-session endpoint (OpenID Connect RP-Initiated Logout 1.0), as
/// the strict reference: only its own ID token as hint, the client the hint names, a
/// registered post-logout redirect URI — else a page and never a redirect — and the browser's
/// sign-in ended.
@Suite("Embedded provider: ending the session")
struct EndSessionProviderTests {
    /// A browser signed in by hand, and the ID token its sign-in gave the demo client.
    private func signedInBrowser(_ provider: EmbeddedProvider) async throws -> (HandBrowser, idToken: String) {
        let browser = HandBrowser()
        let authorization = RawAuthorization()
        let code = try await provider.authorizeByHand(browser, authorization)
        let response = try await provider.exchange(code, authorization)
        let idToken = try #require(try jsonObject(response)["id_token"] as? String)
        return (browser, idToken)
    }

    /// Whether `browser` is still signed in: a new authorization shows no login form.
    private func isSignedIn(_ browser: HandBrowser, at provider: EmbeddedProvider) async throws -> Bool {
        let page = try await browser.get(RawAuthorization().url(provider))
        return page.html.forms.first?.hasPassword != true
    }

    private func endSessionURL(_ provider: EmbeddedProvider, _ parameters: [(String, String)]) -> URL {
        URL(string: provider.url(.endSession).absoluteString + "?" + FormCoding.encode(parameters))!
    }

    @Test func discoveryNamesTheEndSessionEndpoint() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let metadata = try await makeClient(provider).metadata()
            #expect(metadata.endSessionEndpoint == provider.url(.endSession))
        }
    }

    @Test func aValidRequestEndsTheBrowsersSignInAndRedirectsWithTheState() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let (browser, idToken) = try await signedInBrowser(provider)
            #expect(try await isSignedIn(browser, at: provider))

            // Any port of the registered loopback redirect URI (RFC 8252 §7.3).
            let page = try await browser.get(
                endSessionURL(
                    provider,
                    [
                        ("id_token_hint", idToken), ("client_id", "webauth-demo"),
                        ("post_logout_redirect_uri", "http://127.0.0.1:54321/callback"), ("state", "s t&ate"),
                    ]))
            #expect(page.status == 302)
            #expect(page.location?.absoluteString == "http://127.0.0.1:54321/callback?state=s%20t%26ate")
            #expect(page.redirectQuery == ["state": "s t&ate"])
            #expect(try await !isSignedIn(browser, at: provider))
        }
    }

    @Test func withoutARedirectURIOrClientIDThePersonSeesThatTheyAreSignedOut() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let (browser, idToken) = try await signedInBrowser(provider)
            let page = try await browser.post(provider.url(.endSession), form: [("id_token_hint", idToken)])
            #expect(page.status == 200)
            #expect(page.location == nil)
            #expect(page.response.body.contains("Signed out"))
            #expect(try await !isSignedIn(browser, at: provider))
        }
    }

    @Test func badRequestsGetAPageNeverARedirectAndLeaveTheSignInAlone() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let (browser, idToken) = try await signedInBrowser(provider)
            let parts = idToken.split(separator: ".").map(String.init)
            // The payload with another subject, under the original signature.
            let payload = try #require(Data(base64URLEncoded: parts[1]))
            var claims = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
            claims["sub"] = "someone-else"
            let alteredPayload = try JSONSerialization.data(withJSONObject: claims).base64URLEncodedString()
            let unsigned = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URLEncodedString() + "." + parts[1] + "."
            let good: [(String, String)] = [
                ("id_token_hint", idToken), ("client_id", "webauth-demo"),
                ("post_logout_redirect_uri", "http://127.0.0.1:54321/callback"), ("state", "xyz"),
            ]
            func replacing(_ name: String, with value: String?) -> [(String, String)] {
                good.compactMap { $0.0 == name ? value.map { (name, $0) } : $0 }
            }
            let cases: [(String, [(String, String)])] = [
                ("no hint", replacing("id_token_hint", with: nil)),
                ("altered payload", replacing("id_token_hint", with: parts[0] + "." + alteredPayload + "." + parts[2])),
                ("alg none", replacing("id_token_hint", with: unsigned)),
                ("not a JWT", replacing("id_token_hint", with: "garbage")),
                ("another client", replacing("client_id", with: "backend")),
                ("unknown client", replacing("client_id", with: "nobody")),
                ("unregistered path", replacing("post_logout_redirect_uri", with: "http://127.0.0.1:54321/elsewhere")),
                ("another host", replacing("post_logout_redirect_uri", with: "https://attacker.example/callback")),
                ("localhost", replacing("post_logout_redirect_uri", with: "http://localhost:54321/callback")),
                ("twice the state", good + [("state", "second")]),
            ]
            for (name, parameters) in cases {
                let page = try await browser.get(endSessionURL(provider, parameters))
                #expect(page.status == 400, "\(name)")
                #expect(page.location == nil, "\(name)")
            }
            #expect(try await isSignedIn(browser, at: provider))
            #expect(provider.requests(to: .endSession).allSatisfy { $0.status == 400 })
        }
    }

    @Test func aBrowserSignedInAsSomeoneElseIsNotSignedOut() async throws {
        var configuration = EmbeddedProvider.testConfiguration
        let other = EmbeddedProvider.User(
            username: "other", password: "other-password", subject: "other-user", name: "Other", email: nil)
        configuration.users.append(other)
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let (_, demoIDToken) = try await signedInBrowser(provider)
            // Another browser, signed in as the other person.
            let browser = HandBrowser()
            var page = try await browser.get(RawAuthorization().url(provider))
            page = try await browser.submit(on: page, values: ["username": other.username, "password": other.password])
            #expect(try await isSignedIn(browser, at: provider))

            page = try await browser.get(
                endSessionURL(
                    provider,
                    [
                        ("id_token_hint", demoIDToken),
                        ("post_logout_redirect_uri", "http://127.0.0.1:54321/callback"), ("state", "xyz"),
                    ]))
            #expect(page.status == 403)
            #expect(page.location == nil)
            #expect(try await isSignedIn(browser, at: provider))
        }
    }

    @Test func anEmptyRegistrationMeansNoRedirectAfterSigningOut() async throws {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.clients[0].postLogoutRedirectURIs = []
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let (browser, idToken) = try await signedInBrowser(provider)
            let page = try await browser.get(
                endSessionURL(
                    provider, [("id_token_hint", idToken), ("post_logout_redirect_uri", "http://127.0.0.1/callback")]))
            #expect(page.status == 400)
            #expect(page.location == nil)
            #expect(try await isSignedIn(browser, at: provider))
        }
    }

    @Test func theClientSignsOutThroughASessionAndTheNextSignInAsksForThePasswordAgain() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider)
            // One browser, its cookies kept between the sessions (not ephemeral).
            let agent = ScriptedUserAgent()
            func logins() -> Int { provider.requests(to: .login).filter { $0.method == "POST" }.count }

            let tokens = try await client.signIn(environment: .standard(browser: agent))
            _ = try await client.signIn(environment: .standard(browser: agent))
            #expect(logins() == 1, "the browser's sign-in carried the second one")

            try await client.endSession(for: tokens, environment: .standard(browser: agent))
            #expect(provider.requests(to: .endSession).map(\.status) == [302])

            _ = try await client.signIn(environment: .standard(browser: agent))
            #expect(logins() == 2)
        }
    }
}
