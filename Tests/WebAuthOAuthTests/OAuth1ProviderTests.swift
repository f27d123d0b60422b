// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthPlatform
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTesting
import WebAuthURLSession

/// OAuth 1.0a end to end: our client against an independently written provider (oauthlib's
/// RFC 5849 server endpoints, `Tests/Fixtures/oauth1-provider`), a loopback callback, and a
/// scripted browser that follows the provider's redirect to the session's listener. The
/// provider, not our code, verifies every signature.
@Suite("OAuth 1.0a against oauthlib", .timeLimit(.minutes(2)), TestFixture.oauth1Provider.required)
struct OAuth1ProviderTests {
    /// A browser that records what it is asked to open, optionally first plays an attacker
    /// against the loopback listener, then behaves as ``RedirectFollowingBrowser``.
    final class RecordingBrowser: Browser {
        let forgeFirst: Bool
        private let state = Locked<(opened: [URL], forgedStatus: Int?)>(([], nil))

        init(forgeFirst: Bool = false) { self.forgeFirst = forgeFirst }

        var name: String { "recording" }
        var capabilities: BrowserCapabilities { [] }
        var openedURLs: [URL] { state.withLock { $0.opened } }
        var forgedStatus: Int? { state.withLock { $0.forgedStatus } }

        func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
            -> any BrowserPresentation
        {
            state.withLock { $0.opened.append(request.url) }
            if forgeFirst, let redirectURI = request.redirectURI, let port = redirectURI.port {
                // A forged callback: the right path and a verifier, but not this sign-in's token.
                let target = redirectURI.path + "?oauth_token=forgedTokenOfTheAttacker00&oauth_verifier=forged"
                let reply = try? await RawHTTPClient.get(port: port, target: target)
                state.withLock { $0.forgedStatus = reply?.status }
            }
            return try await RedirectFollowingBrowser().present(request)
        }
    }

    static func client(
        _ provider: OAuth1ProviderFixture, browser: RecordingBrowser, configuration: OAuth1Configuration? = nil,
        logs: OAuth1LogStore = OAuth1LogStore()
    ) -> OAuth1Client {
        OAuth1Client(
            configuration: configuration ?? provider.configuration(), transport: URLSessionTransport(),
            environment: SessionEnvironment(browser: browser, receivers: [LoopbackReceiver()]), logger: logs.logger)
    }

    @Test(
        "Sign in over a loopback callback, then call a protected resource",
        arguments: [OAuth1SignatureMethod.hmacSHA1, .plaintext])
    func signInAndCallAPI(method: OAuth1SignatureMethod) async throws {
        try await OAuth1ProviderFixture.with { provider in
            let browser = RecordingBrowser()
            var configuration = provider.configuration()
            configuration.signatureMethod = method
            configuration.requestTokenParameters = ["scope": "photos read+write"]  // signed in the form body
            let logs = OAuth1LogStore()
            let client = Self.client(provider, browser: browser, configuration: configuration, logs: logs)

            let credentials = try await client.signIn(sessionTimeout: .seconds(30))
            #expect(credentials.token.count == 30)
            #expect(credentials.tokenSecret.count == 30)
            #expect(credentials.additionalParameters["user_id"] == "6253282")
            #expect(credentials.additionalParameters["screen_name"] == "jane_doe")
            #expect(!credentials.description.contains(credentials.token))

            // The browser opened the provider's page with the temporary token only.
            let opened = try #require(browser.openedURLs.first)
            #expect(browser.openedURLs.count == 1)
            #expect(opened.path == "/authorize")
            #expect(opened.oauth1QueryValue("oauth_token")?.count == 30)
            #expect(opened.oauth1QueryValue("oauth_token") != credentials.token)

            // The client and its session logged the steps, but no token, secret or verifier.
            let temporaryToken = try #require(opened.oauth1QueryValue("oauth_token"))
            #expect(logs.all.contains { $0.contains("requesting token credentials") })
            for line in logs.all {
                for secret in [
                    credentials.token, credentials.tokenSecret, temporaryToken, OAuth1ProviderFixture.consumerSecret,
                ] {
                    #expect(!line.contains(secret), "log line leaks a secret: \(line)")
                }
                #expect(!line.contains("oauth_verifier="), "log line leaks the verifier: \(line)")
            }

            // A signed request to the protected resource is accepted…
            let transport = URLSessionTransport()
            let photo = HTTPTransportRequest(
                method: "GET", url: provider.url("/photos?file=vacation.jpg&size=original"))
            let response = try await transport.send(client.sign(photo, with: credentials))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("vacation.jpg"))
            // …an unsigned one, or one signed with the wrong token secret, is not.
            #expect(try await transport.send(photo).status == 401)
            var wrong = credentials
            wrong.tokenSecret = "not-the-token-secret"
            #expect(try await transport.send(client.sign(photo, with: wrong)).status == 401)

            let log = try await provider.log()
            #expect(
                log.prefix(3).map(\.description) == [
                    "POST /initiate 200 (signed)", "GET /authorize 302", "POST /token 200 (signed)",
                ])
            #expect(log.dropFirst(3).map(\.status) == [200, 401, 401])
        }
    }

    @Test("A forged callback on the loopback listener is refused and does not end the sign-in")
    func forgedLoopbackCallback() async throws {
        try await OAuth1ProviderFixture.with { provider in
            let browser = RecordingBrowser(forgeFirst: true)
            let credentials = try await Self.client(provider, browser: browser).signIn(sessionTimeout: .seconds(30))
            #expect(browser.forgedStatus == 400)
            #expect(credentials.additionalParameters["screen_name"] == "jane_doe")
            #expect(try await provider.log().map(\.path) == ["/initiate", "/authorize", "/token"])
        }
    }

    @Test("A wrong consumer secret: the request-token step fails with unexpectedStatus and nothing else is called")
    func wrongConsumerSecret() async throws {
        try await OAuth1ProviderFixture.with { provider in
            let browser = RecordingBrowser()
            let configuration = provider.configuration(consumerSecret: "not the consumer secret")
            let client = Self.client(provider, browser: browser, configuration: configuration)
            do throws(OAuthError) {
                let credentials = try await client.signIn(sessionTimeout: .seconds(30))
                Issue.record("signed in with a wrong consumer secret: \(credentials)")
            } catch {
                #expect(error.code == .unexpectedStatus)
                #expect(error.message.contains("HTTP 401"))
                #expect(!error.message.contains("not the consumer secret"))
            }
            #expect(browser.openedURLs.isEmpty)
            let log = try await provider.log()
            #expect(log == [.init(method: "POST", path: "/initiate", status: 401, authorization: true)])
        }
    }

    @Test("The person declines (denied=<token>): access_denied, and no token request")
    func declined() async throws {
        try await OAuth1ProviderFixture.with { provider in
            let client = Self.client(
                provider, browser: RecordingBrowser(),
                configuration: provider.configuration(authorizePath: "/authorize?deny=1"))
            do throws(OAuthError) {
                _ = try await client.signIn(sessionTimeout: .seconds(30))
                Issue.record("a declined sign-in succeeded")
            } catch {
                #expect(error.code == .server)
                #expect(error.serverError?.code == .accessDenied)
            }
            let log = try await provider.log()
            #expect(log.map(\.path) == ["/initiate", "/authorize"])
        }
    }
}
