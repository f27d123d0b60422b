// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import HTTPTypes
import JWTKit
import Testing
import WebAuth
import WebAuthControlledBrowsers
import WebAuthEmbeddedProvider
import WebAuthSignIn
import WebAuthTestSupport

/// The independent provider itself (Tests/Fixtures/django-provider), checked by hand — plain
/// HTTP requests and a real headless Chromium — without the OAuth client these tests exist for.
/// If these fail, so will every end-to-end test built on the provider.
@Suite(
    "Independent OAuth provider fixture", .serialized, .timeLimit(.minutes(3)), TestFixture.djangoProvider.required,
    TestFixture.chromium.required)
struct IndependentProviderFixtureTests {
    // MARK: - Discovery

    @Test func discoveryNamesTheIssuerAndEveryEndpoint() async throws {
        let (directory, jwksURI, keyID) = try await IndependentProvider.withProvider { provider in
            let issuer = "http://127.0.0.1:\(provider.port)/o"
            #expect(provider.issuer.absoluteString == issuer)

            let discovery = try await FixtureHTTP.json(provider.discoveryURL)
            #expect(discovery.status == 200)
            #expect(discovery["issuer"] == issuer)
            #expect(discovery["authorization_endpoint"] == "\(issuer)/authorize/")
            #expect(discovery["token_endpoint"] == "\(issuer)/token/")
            #expect(discovery["jwks_uri"] == "\(issuer)/.well-known/jwks.json")
            #expect(discovery["userinfo_endpoint"] == "\(issuer)/userinfo/")
            #expect(discovery["revocation_endpoint"] == "\(issuer)/revoke_token/")
            #expect(discovery["device_authorization_endpoint"] == "\(issuer)/device-authorization/")
            #expect(discovery.strings("code_challenge_methods_supported") == ["S256"])
            #expect(discovery.strings("id_token_signing_alg_values_supported").contains("RS256"))
            #expect(Set(discovery.strings("scopes_supported")) == ["openid", "profile", "email"])
            #expect(
                Set(discovery.strings("token_endpoint_auth_methods_supported"))
                    == ["client_secret_basic", "client_secret_post"])
            #expect(discovery.bool("authorization_response_iss_parameter_supported") == true)
            #expect(discovery["authorization_endpoint"] == provider.authorizationEndpoint.absoluteString)
            #expect(discovery["token_endpoint"] == provider.tokenEndpoint.absoluteString)
            #expect(discovery["revocation_endpoint"] == provider.revocationEndpoint.absoluteString)
            #expect(discovery["device_authorization_endpoint"] == provider.deviceAuthorizationEndpoint.absoluteString)

            // RFC 8414 §3.1: the metadata of an issuer with a path, at the origin's well-known URI.
            let metadata = try await FixtureHTTP.json(provider.authorizationServerMetadataURL)
            #expect(metadata.status == 200)
            #expect(metadata["issuer"] == issuer)
            #expect(metadata["token_endpoint"] == "\(issuer)/token/")
            #expect(metadata["device_authorization_endpoint"] == "\(issuer)/device-authorization/")

            // One RSA signing key, made for this launch.
            let jwks = try await FixtureHTTP.json(provider.jwksURI)
            let keys = try #require(jwks.object["keys"] as? [[String: Any]])
            #expect(keys.count == 1)
            #expect(keys.first?["kty"] as? String == "RSA")
            #expect(keys.first?["alg"] as? String == "RS256")
            let keyID = try #require(keys.first?["kid"] as? String)
            #expect(!keyID.isEmpty)
            return (provider.dataDirectory, provider.jwksURI, keyID)
        }
        // Stopped: this launch no longer answers — a provider of another test may have been
        // given the port since, but not this launch's key — and its directory is gone.
        let after = try? await FixtureHTTP.json(jwksURI)
        let servedKeys = (after?.object["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
        #expect(!servedKeys.contains(keyID))
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func aPythonWithoutTheToolkitFailsNamingTheInstallCommand() async throws {
        // An "interpreter" that reports every package missing, as a bare Python would.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webauth-fake-python-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let python = directory.appendingPathComponent("python3")
        try Data("#!/bin/sh\nprintf 'django-oauth-toolkit missing\\nDjango missing\\noauthlib missing\\n'\n".utf8)
            .write(to: python)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: python.path)

        let error = await #expect(throws: IndependentProviderError.self) {
            try await IndependentProvider.start(python: python.path, timeout: .seconds(30))
        }
        #expect(error?.description.contains("django-oauth-toolkit 3.4.1") == true, "\(String(describing: error))")
        #expect(error?.description.contains(IndependentProvider.installCommand) == true, "\(String(describing: error))")
    }

    // MARK: - A browser signs in

    @Test func aBrowserSignsInConsentsAndTheCodeBecomesTokens() async throws {
        try await IndependentProvider.withProvider { provider in
            let login = try await Self.signInWithChromium(to: provider, clientID: provider.publicClientID)
            #expect(login.callbackURL.path == "/callback")
            #expect(login.callbackURL.host == "127.0.0.1")
            #expect(login.callbackURL.port != nil)
            #expect(Self.query("state", in: login.callbackURL) == login.state)
            #expect(Self.query("iss", in: login.callbackURL) == provider.issuer.absoluteString)
            let code = try #require(Self.query("code", in: login.callbackURL))

            // A public client: client_id in the body, and the PKCE verifier.
            let tokens = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": login.redirectURI,
                    "client_id": provider.publicClientID, "code_verifier": login.verifier,
                ])
            #expect(tokens.status == 200, "\(tokens.text)\n\(provider.recentLog())")
            #expect(tokens["token_type"] == "Bearer")
            #expect(tokens["scope"] == "openid profile email")
            let accessToken = try #require(tokens["access_token"])
            let refreshToken = try #require(tokens["refresh_token"])
            let idToken = try #require(tokens["id_token"])

            // The ID token verifies with the provider's published key and names the right parties.
            let keys = JWTKeyCollection()
            try await keys.add(jwksJSON: try await FixtureHTTP.get(provider.jwksURI).text)
            let claims = try await keys.verify(idToken, as: FixtureIDToken.self)
            #expect(claims.iss == provider.issuer.absoluteString)
            #expect(claims.aud == provider.publicClientID)
            #expect(claims.nonce == login.nonce)
            #expect(claims.preferredUsername == provider.username)
            #expect(claims.email == "\(provider.username)@example.com")

            let userinfo = try await FixtureHTTP.json(
                provider.userinfoEndpoint, headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(userinfo.status == 200)
            #expect(userinfo["sub"] == claims.sub)
            #expect(userinfo["preferred_username"] == provider.username)

            // A code works once.
            let again = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": login.redirectURI,
                    "client_id": provider.publicClientID, "code_verifier": login.verifier,
                ])
            #expect(again.status == 400)
            #expect(again["error"] == "invalid_grant")

            // Refresh tokens rotate; presenting a rotated-out one revokes the whole family.
            let refreshed = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": provider.publicClientID])
            #expect(refreshed.status == 200, "\(refreshed.text)\n\(provider.recentLog())")
            let newRefreshToken = try #require(refreshed["refresh_token"])
            #expect(newRefreshToken != refreshToken)
            #expect(refreshed["id_token"] != nil)
            let reused = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": provider.publicClientID])
            #expect(reused.status == 400)
            #expect(reused["error"] == "invalid_grant")
            let afterReuse = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "refresh_token", "refresh_token": newRefreshToken,
                    "client_id": provider.publicClientID,
                ])
            #expect(afterReuse["error"] == "invalid_grant", "the newest refresh token is revoked too")
        }
    }

    @Test func theConfidentialClientAuthenticatesWithBasicAndPostAndRevokes() async throws {
        try await IndependentProvider.withProvider { provider in
            let login = try await Self.signInWithChromium(to: provider, clientID: provider.confidentialClientID)
            let code = try #require(Self.query("code", in: login.callbackURL))
            let basic = Data("\(provider.confidentialClientID):\(provider.confidentialClientSecret)".utf8)
                .base64EncodedString()

            // client_secret_basic.
            let tokens = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": login.redirectURI,
                    "code_verifier": login.verifier,
                ],
                headers: ["Authorization": "Basic \(basic)"])
            #expect(tokens.status == 200, "\(tokens.text)\n\(provider.recentLog())")
            #expect(tokens["id_token"] != nil)
            let refreshToken = try #require(tokens["refresh_token"])

            // A wrong secret is refused.
            let wrong = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken,
                    "client_id": provider.confidentialClientID, "client_secret": "not-the-secret",
                ])
            #expect(wrong.status == 401)
            #expect(wrong["error"] == "invalid_client")

            // client_secret_post.
            let refreshed = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "refresh_token", "refresh_token": refreshToken,
                    "client_id": provider.confidentialClientID, "client_secret": provider.confidentialClientSecret,
                ])
            #expect(refreshed.status == 200, "\(refreshed.text)\n\(provider.recentLog())")
            let accessToken = try #require(refreshed["access_token"])
            let newRefreshToken = try #require(refreshed["refresh_token"])

            // RFC 7009: revoking the refresh token ends it and its access token.
            let revoked = try await FixtureHTTP.postForm(
                provider.revocationEndpoint, ["token": newRefreshToken, "token_type_hint": "refresh_token"],
                headers: ["Authorization": "Basic \(basic)"])
            #expect(revoked.status == 200)
            let userinfo = try await FixtureHTTP.get(
                provider.userinfoEndpoint, headers: ["Authorization": "Bearer \(accessToken)"])
            #expect(userinfo.status == 401)
            let afterRevocation = try await FixtureHTTP.postForm(
                provider.tokenEndpoint,
                [
                    "grant_type": "refresh_token", "refresh_token": newRefreshToken,
                    "client_id": provider.confidentialClientID, "client_secret": provider.confidentialClientSecret,
                ])
            #expect(afterRevocation["error"] == "invalid_grant")
        }
    }

    @Test func theDeviceFlowIsApprovedInABrowser() async throws {
        try await BrowserTurns.withTurn {
            try await IndependentProvider.withProvider { provider in
                let authorization = try await FixtureHTTP.postForm(
                    provider.deviceAuthorizationEndpoint,
                    ["client_id": provider.deviceClientID, "scope": "openid profile"])
                #expect(authorization.status == 200, "\(authorization.text)\n\(provider.recentLog())")
                let deviceCode = try #require(authorization["device_code"])
                let userCode = try #require(authorization["user_code"])
                #expect(authorization["verification_uri"] == provider.deviceVerificationURI.absoluteString)
                #expect(authorization.int("interval") == 1)
                let complete = try #require(authorization["verification_uri_complete"].flatMap(URL.init(string:)))
                #expect(
                    complete.absoluteString == "\(provider.deviceVerificationURI.absoluteString)?user_code=\(userCode)")

                let poll: [String: String] = [
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": deviceCode,
                    "client_id": provider.deviceClientID,
                ]
                let pending = try await FixtureHTTP.postForm(provider.tokenEndpoint, poll)
                #expect(pending.status == 400)
                #expect(pending["error"] == "authorization_pending")

                // The person opens the verification page on another device: here, a session whose
                // callback never comes, cancelled once the device is approved.
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                let session = driver.browsingSession(to: complete, loopbackReceiver: LoopbackReceiver())
                let outcome = Task { await WebAuthTestSupport.outcome(of: session) }
                defer { session.cancel() }  // if the test stops early, so does the browser

                let page = try await driver.page()
                try await provider.signIn(on: page)
                try await page.waitForPage(path: IndependentProvider.DevicePages.userCodePath)
                #expect(try await page.evaluate("document.querySelector('input[name=user_code]').value") == userCode)
                try await page.click(IndependentProvider.DevicePages.verifyButton)
                try await page.waitForPage(pathContaining: IndependentProvider.DevicePages.confirmPathPrefix)
                try await page.click(IndependentProvider.DevicePages.acceptButton)
                try await page.waitForPage(pathContaining: IndependentProvider.DevicePages.statusPathPrefix)
                #expect(try await page.text(of: "h1")?.contains("Authorized") == true)

                let tokens = try await FixtureHTTP.postForm(provider.tokenEndpoint, poll)
                #expect(tokens.status == 200, "\(tokens.text)\n\(provider.recentLog())")
                #expect(tokens["access_token"] != nil)
                #expect(tokens["refresh_token"] != nil)
                #expect(tokens["scope"] == "openid profile")

                session.cancel()
                let ended = await outcome.value
                #expect(ended.fixtureFailureCode == .canceledLogin)
            }
        }
    }

    // MARK: - Helpers

    /// What signing in through the browser gave.
    struct BrowserLogin {
        var callbackURL: URL
        var redirectURI: String
        var state: String
        var nonce: String
        var verifier: String
    }

    /// Runs a session with a loopback callback in a real headless Chromium, signs in as the test
    /// user and grants consent, and returns the callback.
    static func signInWithChromium(to provider: IndependentProvider, clientID: String) async throws -> BrowserLogin {
        try await BrowserTurns.withTurn { try await browserLogin(to: provider, clientID: clientID) }
    }

    private static func browserLogin(to provider: IndependentProvider, clientID: String) async throws -> BrowserLogin {
        let state = randomURLSafe(16)
        let nonce = randomURLSafe(16)
        let verifier = randomURLSafe(32)
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).fixtureBase64URL

        let driver = try ChromiumPageDriver()
        defer { driver.tearDown() }
        let session = WebAuthSession(
            callback: .loopback(path: "/callback"), environment: driver.environment(receivers: [LoopbackReceiver()])
        ) { redirectURI in
            var components = URLComponents(url: provider.authorizationEndpoint, resolvingAgainstBaseURL: false)!
            components.queryItems = [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: clientID),
                URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
                URLQueryItem(name: "scope", value: "openid profile email"),
                URLQueryItem(name: "state", value: state),
                URLQueryItem(name: "nonce", value: nonce),
                URLQueryItem(name: "code_challenge", value: challenge),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
            return components.url!
        }
        session.prefersEphemeralWebBrowserSession = true
        session.timeout = .seconds(120)
        session.acceptsCallback = { url in query("state", in: url) == state }
        let outcome = Task { await WebAuthTestSupport.outcome(of: session) }
        defer { session.cancel() }  // if the test stops early, so does the browser

        let page = try await driver.page()
        try await provider.signIn(on: page)
        try await provider.grantConsent(on: page)
        let callbackURL: URL
        switch await outcome.value {
        case .success(let url): callbackURL = url
        case .failure(let error):
            throw IndependentProviderError("the session failed: \(error)\nprovider log:\n\(provider.recentLog())")
        }
        // The redirect URI the session sent: the callback's address, port and path.
        let port = try #require(callbackURL.port)
        return BrowserLogin(
            callbackURL: callbackURL, redirectURI: "http://127.0.0.1:\(port)/callback", state: state, nonce: nonce,
            verifier: verifier)
    }

    static func query(_ name: String, in url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    static func randomURLSafe(_ byteCount: Int) -> String {
        Data((0..<byteCount).map { _ in UInt8.random(in: .min ... .max) }).fixtureBase64URL
    }
}

/// The ID token claims the tests look at.
struct FixtureIDToken: JWTPayload {
    var iss: String
    var sub: String
    var aud: String
    var exp: ExpirationClaim
    var nonce: String?
    var preferredUsername: String?
    var email: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, nonce, email
        case preferredUsername = "preferred_username"
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

extension Result where Failure == WebAuthenticationSessionError {
    /// The error's code, if this is a failure.
    fileprivate var fixtureFailureCode: WebAuthenticationSessionError.Code? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}

extension Data {
    /// Base64url without padding (RFC 7636 appendix A).
    fileprivate var fixtureBase64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Plain HTTP to the provider with the tests' one client (`RawHTTPClient`): no cookies, no
/// redirects followed, bounded in time.
enum FixtureHTTP {
    /// A response, with its body parsed as a JSON object where it is one.
    struct Reply: @unchecked Sendable {
        var status: Int
        var text: String
        var object: [String: Any]

        /// A string member.
        subscript(_ key: String) -> String? { object[key] as? String }
        /// An integer member.
        func int(_ key: String) -> Int? { object[key] as? Int }
        /// A boolean member.
        func bool(_ key: String) -> Bool? { object[key] as? Bool }
        /// A member that is an array of strings (empty otherwise).
        func strings(_ key: String) -> [String] { object[key] as? [String] ?? [] }
    }

    static func get(_ url: URL, headers: [String: String] = [:]) async throws -> Reply {
        try await send("GET", url, headers: headers)
    }

    static func json(_ url: URL, headers: [String: String] = [:]) async throws -> Reply {
        try await get(url, headers: headers.merging(["Accept": "application/json"]) { $1 })
    }

    static func postForm(_ url: URL, _ form: [String: String], headers: [String: String] = [:]) async throws -> Reply {
        let body = form.sorted { $0.key < $1.key }.map { "\(formEncoded($0.key))=\(formEncoded($0.value))" }
            .joined(separator: "&")
        return try await send(
            "POST", url, headers: headers.merging(["Content-Type": "application/x-www-form-urlencoded"]) { $1 },
            body: Array(body.utf8))
    }

    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    private static func send(
        _ method: String, _ url: URL, headers: [String: String], body: [UInt8] = []
    ) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard let name = HTTPField.Name(name) else { throw FixtureHTTPError("not a field name: \(name)") }
            fields.append(HTTPField(name: name, value: value))
        }
        let answer = try await RawHTTPClient.request(
            method: method, url: url, headerFields: fields, body: body, timeout: .seconds(45))
        let data = Data(answer.body.utf8)
        let status = answer.status
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: status, text: answer.body, object: object)
    }

    /// A request the client cannot send.
    struct FixtureHTTPError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
