// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The provider's strictness, over raw HTTP: what it refuses, how, and what it never does.
@Suite("Embedded provider: protocol strictness")
struct ProtocolStrictnessTests {
    @Test func discoveryDescribesAStrictProvider() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            for endpoint in [EmbeddedProvider.Endpoint.openIDConfiguration, .authorizationServerMetadata] {
                let response = try await RawHTTPClient.request(method: "GET", url: provider.url(endpoint))
                #expect(response.status == 200)
                #expect(response.header("Cache-Control") == "no-store")
                let document = try jsonObject(response)
                let issuer = provider.issuer.absoluteString
                #expect(document["issuer"] as? String == issuer)
                #expect(!issuer.hasSuffix("/"))
                #expect(document["authorization_endpoint"] as? String == issuer + "/authorize")
                #expect(document["token_endpoint"] as? String == issuer + "/token")
                #expect(document["userinfo_endpoint"] as? String == issuer + "/userinfo")
                #expect(document["jwks_uri"] as? String == issuer + "/jwks")
                #expect(document["revocation_endpoint"] as? String == issuer + "/revoke")
                #expect(document["device_authorization_endpoint"] as? String == issuer + "/device_authorization")
                #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
                #expect(document["authorization_response_iss_parameter_supported"] as? Bool == true)
                #expect(document["response_types_supported"] as? [String] == ["code"])
                #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
                #expect(
                    document["grant_types_supported"] as? [String] == [
                        "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
                        "client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange",
                    ])
                #expect(
                    document["token_endpoint_auth_methods_supported"] as? [String] == [
                        "none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
                    ])
                #expect(
                    document["token_endpoint_auth_signing_alg_values_supported"] as? [String] == [
                        "ES256", "RS256", "PS256", "HS256",
                    ])
                #expect((document["scopes_supported"] as? [String])?.contains("openid") == true)
            }
            let jwks = try jsonObject(try await RawHTTPClient.request(method: "GET", url: provider.url(.jwks)))
            let key = try #require((jwks["keys"] as? [[String: String]])?.first)
            #expect(key["kty"] == "RSA")
            #expect(key["use"] == "sig")
            #expect(key["alg"] == "RS256")
            #expect(key["kid"] == provider.currentKeyID)
            #expect(key["e"] == "AQAB")
            #expect((key["n"]?.count ?? 0) >= 342)  // 2048 bits, base64url
        }
    }

    @Test func anUnknownClientOrRedirectURIIsNeverRedirectedTo() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            var cases: [RawAuthorization] = []
            var unknownClient = RawAuthorization()
            unknownClient.clientID = "no-such-client"
            cases.append(unknownClient)
            for uri in [
                "http://127.0.0.1:9/elsewhere", "https://attacker.example/callback", "http://localhost:9/callback",
                "http://127.0.0.1:9/callback#fragment", "http://127.0.0.2:9/callback",
            ] {
                var authorization = RawAuthorization()
                authorization.redirectURI = uri
                cases.append(authorization)
            }
            var missing = RawAuthorization()
            missing.extra = [("redirect_uri", "http://127.0.0.1:9/callback")]  // named twice
            cases.append(missing)

            for authorization in cases {
                let page = try await browser.get(authorization.url(provider))
                #expect(page.status == 400, "\(authorization.redirectURI)")
                #expect(page.response.header("Location") == nil)
                #expect(page.response.header("Content-Type") == "text/html; charset=utf-8")
                #expect(!page.html.alerts.isEmpty)
            }
            // A registered loopback URI matches on any port and on IPv6 too.
            for uri in ["http://127.0.0.1:65000/callback", "http://[::1]:9/callback"] {
                var authorization = RawAuthorization()
                authorization.redirectURI = uri
                #expect(try await browser.get(authorization.url(provider)).status == 200)
            }
        }
    }

    @Test func pkceIsRequiredAndOnlyS256() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            var noChallenge = RawAuthorization()
            noChallenge.includeChallenge = false
            noChallenge.challengeMethod = nil
            var plain = RawAuthorization()
            plain.challengeMethod = "plain"
            var implicitPlain = RawAuthorization()
            implicitPlain.challengeMethod = nil

            for authorization in [noChallenge, plain, implicitPlain] {
                let page = try await browser.get(authorization.url(provider))
                #expect(page.status == 302)
                #expect(page.location?.absoluteString.hasPrefix("http://127.0.0.1:9/callback?") == true)
                #expect(page.redirectQuery["error"] == "invalid_request")
                #expect(page.redirectQuery["state"] == authorization.state)
                #expect(page.redirectQuery["iss"] == provider.issuer.absoluteString)
                #expect(page.redirectQuery["code"] == nil)
            }
        }
    }

    @Test func otherBadRequestsAreSentBackWithTheirRFCErrors() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            var unknownScope = RawAuthorization()
            unknownScope.scope = "openid admin"
            var promptNone = RawAuthorization()
            promptNone.extra = [("prompt", "none")]
            var repeated = RawAuthorization()
            repeated.extra = [("scope", "openid")]

            let cases: [(RawAuthorization, String)] = [
                (unknownScope, "invalid_scope"), (promptNone, "login_required"), (repeated, "invalid_request"),
            ]
            for (authorization, error) in cases {
                let page = try await browser.get(authorization.url(provider))
                #expect(page.redirectQuery["error"] == error)
                #expect(page.redirectQuery["state"] == authorization.state)
                #expect(page.redirectQuery["iss"] == provider.issuer.absoluteString)
            }
            #expect(provider.requests(to: .authorization).compactMap(\.error) == cases.map(\.1))
        }
    }

    @Test func theLoginFormComesBackAfterAWrongPassword() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            var authorization = RawAuthorization()
            authorization.extra = [("login_hint", "<b>\"demo\"</b>")]
            let login = try await browser.get(authorization.url(provider))
            #expect(login.status == 200)
            for (name, value) in [
                ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
            ] {
                #expect(login.response.header(name) == value)
            }
            let cookie = try #require(login.response.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
            // The hint is shown escaped, never as markup.
            #expect(login.response.body.contains("&lt;b&gt;&quot;demo&quot;&lt;/b&gt;"))
            #expect(!login.response.body.contains("<b>\"demo\""))
            #expect(!login.response.body.contains("src="))
            let form = try #require(login.html.forms.first)
            #expect(form.method == "POST")
            #expect(Set(form.fields.map(\.name)) == ["transaction", "csrf_token", "username", "password"])

            let again = try await browser.submit(on: login, values: ["username": "demo", "password": "wrong"])
            #expect(again.status == 200)
            #expect(again.html.forms.first?.hasPassword == true)
            #expect(again.html.alerts == ["Wrong username or password."])
            #expect(!again.response.body.contains("wrong\""))

            let consent = try await browser.submit(on: again, values: ["password": EmbeddedProvider.User.demo.password])
            #expect(consent.html.forms.first?.buttons.map(\.value) == ["approve", "deny"])
            // A fresh session cookie after the login.
            #expect(consent.response.header("Set-Cookie") != cookie)
        }
    }

    @Test func fiveWrongPasswordsEndTheAuthorization() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            let authorization = RawAuthorization()
            var page = try await browser.get(authorization.url(provider))
            for _ in 0..<5 {
                page = try await browser.submit(on: page, values: ["username": "demo", "password": "guess"])
            }
            #expect(page.status == 303)
            #expect(page.redirectQuery["error"] == "access_denied")
            #expect(page.redirectQuery["state"] == authorization.state)
        }
    }

    @Test func aDenialRedirectsWithAccessDeniedStateAndIss() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            let authorization = RawAuthorization()
            let login = try await browser.get(authorization.url(provider))
            let consent = try await browser.submit(
                on: login, values: ["username": "demo", "password": EmbeddedProvider.User.demo.password])
            let denied = try await browser.submit(on: consent, button: "deny")
            #expect(denied.status == 303)
            #expect(denied.redirectQuery["error"] == "access_denied")
            #expect(denied.redirectQuery["state"] == authorization.state)
            #expect(denied.redirectQuery["iss"] == provider.issuer.absoluteString)
            #expect(denied.redirectQuery["code"] == nil)
        }
    }

    @Test func formsWithoutTheBrowsersCSRFTokenAreRefused() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()
            let login = try await browser.get(RawAuthorization().url(provider))
            let forged = try await browser.submit(
                on: login, values: ["csrf_token": "forged", "username": "demo", "password": "demo-password"])
            #expect(forged.status == 403)
            // Another browser cannot continue this browser's sign-in, even with its token.
            let other = HandBrowser()
            _ = try await other.get(RawAuthorization().url(provider))
            let form = try #require(login.html.forms.first)
            let stolen = try await other.post(
                provider.url(.login),
                form: form.fields.map { ($0.name, $0.name == "password" ? "demo-password" : $0.value) })
            #expect(stolen.status == 403)
            #expect(provider.requests(to: .consent).isEmpty)
        }
    }

    @Test func theTokenEndpointChecksVerifierRedirectURIAndClient() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let browser = HandBrowser()

            // A wrong verifier: invalid_grant — and the code is used up, so the right one fails too.
            let first = RawAuthorization()
            let firstCode = try await provider.authorizeByHand(browser, first)
            for verifier in [ProviderSecrets.randomToken(byteCount: 48), first.verifier] {
                let response = try await provider.exchange(firstCode, first, verifier: verifier)
                #expect(response.status == 400)
                #expect(response.header("Cache-Control") == "no-store")
                #expect(try jsonObject(response)["error"] as? String == "invalid_grant")
            }
            // A verifier that is not one at all: invalid_request.
            let second = RawAuthorization()
            let secondCode = try await provider.authorizeByHand(browser, second)
            let malformed = try await provider.exchange(secondCode, second, verifier: "short")
            #expect(try jsonObject(malformed)["error"] as? String == "invalid_request")

            // Another redirect_uri (another port) is refused.
            let third = RawAuthorization()
            let thirdCode = try await provider.authorizeByHand(browser, third)
            let moved = try await provider.exchange(thirdCode, third, redirectURI: "http://127.0.0.1:10/callback")
            #expect(try jsonObject(moved)["error"] as? String == "invalid_grant")

            // Another client cannot redeem the code.
            let fourth = RawAuthorization()
            let fourthCode = try await provider.authorizeByHand(browser, fourth)
            let stolen = try await provider.postForm(
                .token,
                [
                    ("grant_type", "authorization_code"), ("code", fourthCode), ("redirect_uri", fourth.redirectURI),
                    ("code_verifier", fourth.verifier), ("client_id", "backend"),
                    ("client_secret", "backend-secret: with symbols & more"),
                ])
            #expect(try jsonObject(stolen)["error"] as? String == "invalid_grant")
            #expect(
                provider.requests(to: .token).allSatisfy { $0.status == 400 && $0.grantType == "authorization_code" })
        }
    }

    @Test func aReusedCodeRevokesTheTokensItProduced() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let authorization = RawAuthorization()
            let code = try await provider.authorizeByHand(HandBrowser(), authorization)
            let token = try await provider.exchange(code, authorization)
            #expect(token.status == 200)
            let tokens = try jsonObject(token)
            let accessToken = try #require(tokens["access_token"] as? String)
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["scope"] as? String == "openid profile email")
            #expect((tokens["expires_in"] as? Int).map { $0 > 3000 } == true)
            #expect(tokens["id_token"] is String)
            #expect(provider.isActive(accessToken: accessToken))

            let replay = try await provider.exchange(code, authorization)
            #expect(replay.status == 400)
            #expect(try jsonObject(replay)["error"] as? String == "invalid_grant")
            #expect(!provider.isActive(accessToken: accessToken))
            #expect(!provider.isActive(refreshToken: refreshToken))
            // Nothing secret in the error.
            #expect(!replay.body.contains(code))
        }
    }

    @Test func tokenRequestsAreCheckedBeforeAnythingHappens() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let basic = "Basic " + Data("backend:wrong".utf8).base64EncodedString()
            let cases: [([(String, String)], HTTPFields, Int, String)] = [
                ([("grant_type", "password"), ("client_id", "webauth-demo")], [:], 400, "unsupported_grant_type"),
                ([("client_id", "webauth-demo")], [:], 400, "invalid_request"),
                (
                    [("grant_type", "refresh_token"), ("client_id", "nobody"), ("refresh_token", "x")], [:], 401,
                    "invalid_client"
                ),
                (
                    [("grant_type", "refresh_token"), ("refresh_token", "x")],
                    [.authorization: basic],
                    401,
                    "invalid_client"
                ),
                (
                    [("grant_type", "refresh_token"), ("client_id", "backend"), ("refresh_token", "x")], [:], 401,
                    "invalid_client"
                ),
                (
                    [("grant_type", "refresh_token"), ("client_id", "webauth-demo"), ("refresh_token", "x")], [:], 400,
                    "invalid_grant"
                ),
                (
                    [
                        ("grant_type", "refresh_token"), ("client_id", "webauth-demo"), ("refresh_token", "x"),
                        ("refresh_token", "y"),
                    ],
                    [:], 400, "invalid_request"
                ),
            ]
            for (form, headers, status, error) in cases {
                let response = try await provider.postForm(.token, form, headerFields: headers)
                #expect(response.status == status, "\(error)")
                #expect(try jsonObject(response)["error"] as? String == error)
            }
            // Only a Basic attempt gets a Basic challenge.
            let challenged = try await provider.postForm(
                .token, [("grant_type", "refresh_token"), ("refresh_token", "x")],
                headerFields: [.authorization: basic])
            #expect(challenged.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
            // Not a form: refused.
            let json = try await RawHTTPClient.request(
                method: "POST", url: provider.url(.token),
                headerFields: [.contentType: "application/json"], body: Array("{}".utf8))
            #expect(json.status == 400)
            let get = try await RawHTTPClient.request(method: "GET", url: provider.url(.token))
            #expect(get.status == 405)
        }
    }

    @Test func pollingFasterThanTheIntervalIsSlowDown() async throws {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.devicePollingInterval = .seconds(30)
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let start = try await provider.postForm(
                .deviceAuthorization, [("client_id", "webauth-demo"), ("scope", "openid")])
            let device = try jsonObject(start)
            #expect(device["interval"] as? Int == 30)
            #expect(device["expires_in"] as? Int == 600)
            let deviceCode = try #require(device["device_code"] as? String)
            let poll = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                ("client_id", "webauth-demo"),
            ]
            for _ in 0..<2 {
                let response = try await provider.postForm(.token, poll)
                #expect(response.status == 400)
                #expect(try jsonObject(response)["error"] as? String == "slow_down")
            }
            // Another client cannot poll this device code.
            let other = try await provider.postForm(
                .token,
                [
                    ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                    ("client_id", "backend"), ("client_secret", "backend-secret: with symbols & more"),
                ])
            #expect(try jsonObject(other)["error"] as? String == "invalid_grant")
        }
    }

    @Test func anExpiredDeviceCodeIsExpiredToken() async throws {
        let time = SteppedClock()
        var configuration = EmbeddedProvider.testConfiguration
        configuration.deviceCodeLifetime = .seconds(60)
        configuration.clock = time.clock
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let device = try jsonObject(
                try await provider.postForm(.deviceAuthorization, [("client_id", "webauth-demo")]))
            let deviceCode = try #require(device["device_code"] as? String)
            let poll = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode),
                ("client_id", "webauth-demo"),
            ]
            time.advance(by: .seconds(59))
            let alive = try await provider.postForm(.token, poll)
            #expect(try jsonObject(alive)["error"] as? String == "authorization_pending")
            time.advance(by: .seconds(2))
            let response = try await provider.postForm(.token, poll)
            #expect(try jsonObject(response)["error"] as? String == "expired_token")
        }
    }

    @Test func userInfoNeedsALiveBearerToken() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let none = try await RawHTTPClient.request(method: "GET", url: provider.url(.userInfo))
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let wrong = try await RawHTTPClient.request(
                method: "GET", url: provider.url(.userInfo),
                headerFields: [.authorization: "Bearer not-a-token"])
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)

            // Without openid, no UserInfo.
            var authorization = RawAuthorization()
            authorization.scope = "offline_access"
            let token = try await provider.exchange(
                try await provider.authorizeByHand(HandBrowser(), authorization), authorization)
            let tokens = try jsonObject(token)
            #expect(tokens["id_token"] == nil)
            let accessToken = try #require(tokens["access_token"] as? String)
            let forbidden = try await RawHTTPClient.request(
                method: "GET", url: provider.url(.userInfo),
                headerFields: [.authorization: "Bearer \(accessToken)"])
            #expect(forbidden.status == 403)
        }
    }

    @Test func theRequestLogHoldsNoSecrets() async throws {
        try await EmbeddedProvider.withTestProvider { provider in
            let client = try makeClient(provider, clientID: "backend", secret: "backend-secret: with symbols & more")
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let refreshed = try await client.refresh(tokens)
            try await client.revoke(refreshed)
            let log = provider.requests.map(\.description).joined(separator: "\n")
            for secret in [
                tokens.accessToken, try #require(tokens.refreshToken), refreshed.accessToken, "backend-secret",
                EmbeddedProvider.User.demo.password, try #require(tokens.idToken),
            ] {
                #expect(!log.contains(secret))
            }
            #expect(log.contains("POST /token 200 (refresh_token)"))
            #expect(!"\(EmbeddedProvider.User.demo)".contains(EmbeddedProvider.User.demo.password))
            #expect(!"\(provider.configuration.clients[1])".contains("backend-secret"))
        }
    }

    @Test func pendingStateStaysBoundedUnderAFlood() async throws {
        var limits = EmbeddedProvider.Configuration.Limits()
        limits.pendingAuthorizations = 8
        limits.browsers = 8
        limits.loggedRequests = 10
        var configuration = EmbeddedProvider.testConfiguration
        configuration.limits = limits
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            // 40 browsers each start an authorization and walk away.
            for _ in 0..<40 {
                #expect(try await HandBrowser().get(RawAuthorization().url(provider)).status == 200)
            }
            let counts = provider.stateCounts
            #expect(counts.pending <= 8)
            #expect(counts.browsers <= 8)
            #expect(provider.requests.count == 10)
            // The newest ones still work.
            let authorization = RawAuthorization()
            let code = try await provider.authorizeByHand(HandBrowser(), authorization)
            #expect(try await provider.exchange(code, authorization).status == 200)
        }
    }
}
