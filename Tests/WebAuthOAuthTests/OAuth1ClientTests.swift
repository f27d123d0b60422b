// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuth
import WebAuthSignIn

@testable import WebAuthOAuth

/// The OAuth 1.0a flow against scripted endpoints and a browser stand-in that catches a
/// custom-scheme callback, with RFC 5849 §1.2's credentials. (The loopback callback and real
/// signature checking are covered against the oauthlib provider in `OAuth1ProviderTests`.)
@Suite("OAuth 1.0a client", .timeLimit(.minutes(1)))
struct OAuth1ClientTests {
    static let temporaryToken = "hh5s93j4hdidpola"
    static let temporarySecret = "hdhd0244k9j7ao03"
    static let verifier = "hfdp7dh39dks9884"
    static let accessToken = "nnch734d00sl2jdk"
    static let accessSecret = "pfkkdhi9sl3r4s00"
    static let consumerSecret = "kd94hf93k423kf44"
    /// Everything that must never reach a log line or an error message.
    static let secrets = [temporaryToken, temporarySecret, verifier, accessToken, accessSecret, consumerSecret]

    static let configuration = OAuth1Configuration(
        consumerKey: "dpf43f3p2l4k3l03", consumerSecret: consumerSecret,
        requestTokenURL: URL(string: "https://photos.example.net/initiate")!,
        authorizationURL: URL(string: "https://photos.example.net/authorize")!,
        accessTokenURL: URL(string: "https://photos.example.net/token")!,
        callbackURL: URL(string: "com.example.printer:/ready")!)

    static let initiateOK = (
        200, "oauth_token=\(temporaryToken)&oauth_token_secret=\(temporarySecret)&oauth_callback_confirmed=true"
    )
    static let tokenOK = (
        200, "oauth_token=\(accessToken)&oauth_token_secret=\(accessSecret)&user_id=6253282&screen_name=jane%20doe"
    )

    /// The genuine callback for the authorization URL the browser was given.
    static func genuineCallback(for authorizationURL: URL, verifier: String = verifier) -> URL {
        let token = authorizationURL.oauth1QueryValue("oauth_token") ?? ""
        return URL(string: "com.example.printer:/ready?oauth_token=\(token)&oauth_verifier=\(verifier)")!
    }

    static func client(
        transport: OAuth1ScriptedTransport, browser: OAuth1InterceptingBrowser,
        configuration: OAuth1Configuration = configuration, logs: OAuth1LogStore? = nil
    ) -> OAuth1Client {
        OAuth1Client(
            configuration: configuration, transport: transport,
            environment: SessionEnvironment(browser: browser, receivers: []),
            logger: logs?.logger ?? OAuth1LogStore().logger)
    }

    /// Runs `body`, which must fail, and returns its `OAuthError`.
    static func failure(_ body: () async throws(OAuthError) -> OAuth1Credentials) async -> OAuthError? {
        do throws(OAuthError) {
            let credentials = try await body()
            Issue.record("expected a failure, got \(credentials)")
            return nil
        } catch {
            return error
        }
    }

    // MARK: - The flow

    @Test("Temporary credentials, the browser, token credentials; the requests are signed as RFC 5849 says")
    func signInSucceeds() async throws {
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": Self.tokenOK])
        let browser = OAuth1InterceptingBrowser { [Self.genuineCallback(for: $0)] }
        let logs = OAuth1LogStore()
        let credentials = try await Self.client(transport: transport, browser: browser, logs: logs).signIn(
            sessionTimeout: .seconds(60))

        #expect(credentials.token == Self.accessToken)
        #expect(credentials.tokenSecret == Self.accessSecret)
        #expect(credentials.additionalParameters == ["user_id": "6253282", "screen_name": "jane doe"])
        #expect(transport.paths == ["/initiate", "/token"])
        #expect(
            browser.openedURLs.map(\.absoluteString) == [
                "https://photos.example.net/authorize?oauth_token=\(Self.temporaryToken)"
            ])

        // Step 1: POST, consumer secret only, oauth_callback is the configured custom-scheme URI.
        let initiate = transport.requests[0]
        let initiateFields = oauth1AuthorizationFields(initiate.headerFields[.authorization])
        #expect(initiate.method == "POST")
        #expect(initiateFields["oauth_callback"] == "com.example.printer%3A%2Fready")
        #expect(initiateFields["oauth_token"] == nil)
        #expect(initiateFields["oauth_consumer_key"] == "dpf43f3p2l4k3l03")
        #expect(try Self.signatureIsValid(initiate, tokenSecret: nil))
        // Step 3: POST with the temporary token and the verifier, keyed with the temporary secret.
        let token = transport.requests[1]
        let tokenFields = oauth1AuthorizationFields(token.headerFields[.authorization])
        #expect(tokenFields["oauth_token"] == Self.temporaryToken)
        #expect(tokenFields["oauth_verifier"] == Self.verifier)
        #expect(tokenFields["oauth_callback"] == nil)
        #expect(try Self.signatureIsValid(token, tokenSecret: Self.temporarySecret))
        #expect(!(try Self.signatureIsValid(token, tokenSecret: "another-secret")))

        // Nothing secret in any log line.
        #expect(!logs.all.isEmpty)
        for line in logs.all {
            for secret in Self.secrets { #expect(!line.contains(secret), "log line leaks a secret: \(line)") }
        }
    }

    /// Recomputes the HMAC-SHA1 signature of a recorded request with the test's secrets.
    static func signatureIsValid(_ request: HTTPTransportRequest, tokenSecret: String?) throws -> Bool {
        var fields: [String: String] = [:]
        for (name, value) in oauth1AuthorizationFields(request.headerFields[.authorization]) {
            fields[name] = FormEncoding.decode("v=\(value)").first?.1 ?? value
        }
        let sent = try #require(fields["oauth_signature"])
        let base = OAuth1Signer.signatureBaseString(for: request, protocolParameters: fields)
        let key = OAuth1Signer.signingKey(consumerSecret: consumerSecret, tokenSecret: tokenSecret)
        return OAuth1Signer.hmacSHA1(baseString: base, key: key) == sent
    }

    @Test("A forged callback with another oauth_token does not end the session; the genuine one does")
    func forgedCallbackIsIgnored() async throws {
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": Self.tokenOK])
        let browser = OAuth1InterceptingBrowser { url in
            [
                URL(
                    string: "com.example.printer:/ready?oauth_token=attackers-token&oauth_verifier=attackers-verifier")!,
                URL(string: "com.example.printer:/ready?oauth_verifier=no-token-at-all")!,
                Self.genuineCallback(for: url),
            ]
        }
        let credentials = try await Self.client(transport: transport, browser: browser).signIn(
            sessionTimeout: .seconds(60))
        #expect(credentials.token == Self.accessToken)
        let fields = oauth1AuthorizationFields(transport.requests.last?.headerFields[.authorization])
        #expect(fields["oauth_verifier"] == Self.verifier)
    }

    @Test("Only forged callbacks: the session runs out of time, and the token endpoint is never called")
    func onlyForgedCallbacks() async throws {
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": Self.tokenOK])
        let browser = OAuth1InterceptingBrowser { _ in
            [URL(string: "com.example.printer:/ready?oauth_token=attackers-token&oauth_verifier=x")!]
        }
        let client = Self.client(transport: transport, browser: browser)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(1))
        }
        #expect(error?.code == .session)
        #expect(error?.sessionError?.code == .timedOut)
        #expect(transport.paths == ["/initiate"])
    }

    @Test("A callback for the right token without oauth_verifier fails with invalidCallback")
    func callbackWithoutVerifier() async throws {
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": Self.tokenOK])
        let browser = OAuth1InterceptingBrowser { url in
            [URL(string: "com.example.printer:/ready?oauth_token=\(url.oauth1QueryValue("oauth_token") ?? "")")!]
        }
        let client = Self.client(transport: transport, browser: browser)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        #expect(error?.code == .invalidCallback)
        #expect(transport.paths == ["/initiate"])
    }

    @Test("Reading the verifier: the wrong token and a missing verifier are invalidCallback; denied is access_denied")
    func verifierFromCallback() throws {
        let client = OAuth1Client(configuration: Self.configuration, transport: OAuth1ScriptedTransport(routes: [:]))
        let temporary = OAuth1Credentials(token: Self.temporaryToken, tokenSecret: Self.temporarySecret)
        let good = URL(string: "com.example.printer:/ready?oauth_token=\(Self.temporaryToken)&oauth_verifier=v%2B1")!
        #expect(try client.verifier(fromCallback: good, temporary: temporary) == "v+1")

        for bad in [
            "com.example.printer:/ready?oauth_token=other&oauth_verifier=v",
            "com.example.printer:/ready?oauth_verifier=v",
            "com.example.printer:/ready?oauth_token=\(Self.temporaryToken)",
            "com.example.printer:/ready?oauth_token=\(Self.temporaryToken)&oauth_verifier=",
        ] {
            #expect(throws: OAuthError.self) {
                try client.verifier(fromCallback: URL(string: bad)!, temporary: temporary)
            }
            do throws(OAuthError) {
                _ = try client.verifier(fromCallback: URL(string: bad)!, temporary: temporary)
            } catch {
                #expect(error.code == .invalidCallback)
                for secret in Self.secrets { #expect(!error.message.contains(secret)) }
            }
        }
        do throws(OAuthError) {
            _ = try client.verifier(
                fromCallback: URL(string: "com.example.printer:/ready?denied=\(Self.temporaryToken)")!,
                temporary: temporary)
            Issue.record("a denied callback must fail")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverError?.code == .accessDenied)
        }
    }

    // MARK: - What the endpoints answer

    @Test("A non-2xx answer is unexpectedStatus with the status and a short, control-character-free excerpt")
    func unexpectedStatusExcerpt() async throws {
        let hostile =
            "Invalid consumer.\r\n\u{1B}[2J\u{1B}[31mForged: line\u{7}\u{202E}" + String(repeating: "x", count: 500)
        let transport = OAuth1ScriptedTransport { _ in
            .success(
                HTTPTransportResponse(
                    status: 401, headerFields: [.contentType: "text/plain; charset=utf-8"],
                    body: Data(hostile.utf8)))
        }
        let browser = OAuth1InterceptingBrowser { _ in [] }
        let client = Self.client(transport: transport, browser: browser)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        let message = try #require(error?.message)
        #expect(error?.code == .unexpectedStatus)
        #expect(message.contains("401"))
        #expect(message.contains("Invalid consumer."))
        #expect(
            !message.unicodeScalars.contains {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            })
        #expect(message.count < 300)
        // Nothing else was called and no browser opened.
        #expect(transport.paths == ["/initiate"])
        #expect(browser.openedURLs.isEmpty)
    }

    @Test(
        "An error body that carries credentials, or is not text, is not quoted",
        arguments: [
            ("text/plain", "oauth_token=\(temporaryToken)&oauth_token_secret=\(temporarySecret)"),
            ("text/plain", "your consumer secret \(consumerSecret) is wrong"),
            ("image/png", "\u{89}PNG binary"),
        ])
    func errorBodyNotQuoted(contentType: String, body: String) async throws {
        let transport = OAuth1ScriptedTransport { _ in
            .success(
                HTTPTransportResponse(
                    status: 500, headerFields: [.contentType: contentType], body: Data(body.utf8))
            )
        }
        let client = Self.client(transport: transport, browser: OAuth1InterceptingBrowser { _ in [] })
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        #expect(error?.code == .unexpectedStatus)
        #expect(error?.message.hasSuffix("answered HTTP 500") == true)
    }

    @Test(
        "A temporary-credential response without the credentials or the 1.0a confirmation is invalidResponse",
        arguments: [
            "oauth_token_secret=\(temporarySecret)&oauth_callback_confirmed=true",
            "oauth_token=\(temporaryToken)&oauth_callback_confirmed=true",
            "oauth_token=\(temporaryToken)&oauth_token_secret=\(temporarySecret)",
            "oauth_token=\(temporaryToken)&oauth_token_secret=\(temporarySecret)&oauth_callback_confirmed=false",
            "{\"oauth_token\": \"\(temporaryToken)\"}",
        ])
    func invalidTemporaryCredentials(body: String) async throws {
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": (200, body), "/token": Self.tokenOK])
        let browser = OAuth1InterceptingBrowser { [Self.genuineCallback(for: $0)] }
        let client = Self.client(transport: transport, browser: browser)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        #expect(error?.code == .invalidResponse)
        for secret in Self.secrets { #expect(error?.message.contains(secret) == false) }
        #expect(transport.paths == ["/initiate"])
        #expect(browser.openedURLs.isEmpty)
    }

    @Test(
        "A token response without oauth_token or oauth_token_secret is invalidResponse",
        arguments: [
            "oauth_token_secret=\(accessSecret)", "oauth_token=\(accessToken)", "oauth_token=&oauth_token_secret=x",
        ])
    func invalidTokenCredentials(body: String) async throws {
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": (200, body)])
        let browser = OAuth1InterceptingBrowser { [Self.genuineCallback(for: $0)] }
        let client = Self.client(transport: transport, browser: browser)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        #expect(error?.code == .invalidResponse)
        #expect(transport.paths == ["/initiate", "/token"])
    }

    @Test("Transport failures map to transportFailed, timedOut and responseTooLarge")
    func transportFailures() async throws {
        let cases: [(HTTPTransportError.Code, OAuthError.Code)] = [
            (.connectionFailed, .transportFailed), (.timedOut, .timedOut), (.responseTooLarge, .responseTooLarge),
            (.redirected, .transportFailed),
        ]
        for (transportCode, expected) in cases {
            let transport = OAuth1ScriptedTransport { _ in
                .failure(HTTPTransportError(code: transportCode, message: "simulated"))
            }
            let client = Self.client(transport: transport, browser: OAuth1InterceptingBrowser { _ in [] })
            let error = await Self.failure { () async throws(OAuthError) in
                try await client.signIn(sessionTimeout: .seconds(60))
            }
            #expect(error?.code == expected)
            #expect(error?.transportError?.code == transportCode)
        }
    }

    // MARK: - Configuration

    @Test(
        "Insecure endpoints and bad callbacks are refused before any request",
        arguments: [
            ("http://photos.example.net/initiate", "com.example.printer:/ready", OAuthError.Code.insecureEndpoint),
            ("https://photos.example.net/initiate?oauth_x=1", "com.example.printer:/ready", .invalidConfiguration),
            ("https://photos.example.net/initiate", "http://printer.example.com/ready", .invalidConfiguration),
            ("https://photos.example.net/initiate", "com.example.printer:/ready?x=1", .invalidConfiguration),
        ])
    func configurationChecks(requestTokenURL: String, callback: String, expected: OAuthError.Code) async throws {
        var configuration = Self.configuration
        configuration.requestTokenURL = URL(string: requestTokenURL)!
        configuration.callbackURL = URL(string: callback)!
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": Self.tokenOK])
        let client = Self.client(
            transport: transport, browser: OAuth1InterceptingBrowser { _ in [] }, configuration: configuration)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        #expect(error?.code == expected)
        #expect(transport.requests.isEmpty)
    }

    @Test("A loopback callback with no loopback receiver in the environment is a session error, before any request")
    func loopbackWithoutReceiver() async throws {
        var configuration = Self.configuration
        configuration.callbackURL = URL(string: "http://127.0.0.1/callback")!
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK])
        let client = Self.client(
            transport: transport, browser: OAuth1InterceptingBrowser { _ in [] }, configuration: configuration)
        let error = await Self.failure { () async throws(OAuthError) in
            try await client.signIn(sessionTimeout: .seconds(60))
        }
        #expect(error?.code == .session)
        #expect(error?.sessionError?.code == .noCallbackReceiver)
        #expect(transport.requests.isEmpty)
    }

    @Test("Request-token parameters travel in the signed form body; oauth_ names among them are dropped")
    func requestTokenParameters() async throws {
        var configuration = Self.configuration
        configuration.requestTokenParameters = ["scope": "photos read", "oauth_callback": "https://evil.example"]
        let transport = OAuth1ScriptedTransport(routes: ["/initiate": Self.initiateOK, "/token": Self.tokenOK])
        let browser = OAuth1InterceptingBrowser { [Self.genuineCallback(for: $0)] }
        _ = try await Self.client(transport: transport, browser: browser, configuration: configuration).signIn(
            sessionTimeout: .seconds(60))
        let initiate = try #require(transport.requests.first)
        #expect(initiate.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(initiate.body.map { String(decoding: $0, as: UTF8.self) } == "scope=photos%20read")
        #expect(
            oauth1AuthorizationFields(initiate.headerFields[.authorization])["oauth_callback"]
                == "com.example.printer%3A%2Fready")
        #expect(try Self.signatureIsValid(initiate, tokenSecret: nil))
        #expect(
            OAuth1Signer.signatureBaseString(for: initiate, protocolParameters: [:]).contains("scope%3Dphotos%2520read")
        )
    }

    @Test("The authorization URL keeps its own query and adds oauth_token, encoded")
    func authorizationURL() {
        var configuration = Self.configuration
        configuration.authorizationURL = URL(string: "https://photos.example.net/authorize?lang=en")!
        let client = OAuth1Client(configuration: configuration, transport: OAuth1ScriptedTransport(routes: [:]))
        let url = client.authorizationURL(for: OAuth1Credentials(token: "a b+c/d", tokenSecret: "s"))
        #expect(url.absoluteString == "https://photos.example.net/authorize?lang=en&oauth_token=a%20b%2Bc%2Fd")
    }

    // MARK: - Signing API requests and keeping secrets

    @Test("sign(_:with:) signs an API request with the token credentials")
    func signAPIRequest() throws {
        let client = OAuth1Client(configuration: Self.configuration, transport: OAuth1ScriptedTransport(routes: [:]))
        let credentials = OAuth1Credentials(token: Self.accessToken, tokenSecret: Self.accessSecret)
        let request = HTTPTransportRequest(
            method: "GET", url: URL(string: "https://photos.example.net/photos?file=vacation.jpg&size=original")!)
        let signed = client.sign(request, with: credentials)
        #expect(oauth1AuthorizationFields(signed.headerFields[.authorization])["oauth_token"] == Self.accessToken)
        #expect(try Self.signatureIsValid(signed, tokenSecret: Self.accessSecret))
        #expect(signed.url == request.url)
    }

    @Test("Credentials and configuration never show their secrets in description, debugDescription or dump")
    func descriptionsHideSecrets() {
        let credentials = OAuth1Credentials(
            token: Self.accessToken, tokenSecret: Self.accessSecret, additionalParameters: ["screen_name": "jane"])
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in [credentials.description, credentials.debugDescription, "\(credentials)", dumped] {
            #expect(!text.contains(Self.accessToken))
            #expect(!text.contains(Self.accessSecret))
        }
        #expect(credentials.description.contains("screen_name"))

        var configurationDump = ""
        dump(Self.configuration, to: &configurationDump)
        for text in [Self.configuration.description, Self.configuration.debugDescription, configurationDump] {
            #expect(!text.contains(Self.consumerSecret))
            #expect(text.contains("dpf43f3p2l4k3l03"))
        }
    }

    @Test("Credentials survive a Codable round trip")
    func credentialsCodable() throws {
        let credentials = OAuth1Credentials(
            token: Self.accessToken, tokenSecret: Self.accessSecret, additionalParameters: ["user_id": "1"])
        let decoded = try JSONDecoder().decode(OAuth1Credentials.self, from: JSONEncoder().encode(credentials))
        #expect(decoded == credentials)
    }
}
