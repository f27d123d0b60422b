// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuthOAuth

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// A browser played by hand over raw HTTP, for protocol tests that look at every answer:
/// cookies kept, nothing followed unless asked.
struct HandBrowser {
    let jar = ScriptedUserAgent.CookieJar()

    /// A page or redirect, as received.
    struct Page {
        var url: URL
        var response: RawHTTPClient.Response
        var status: Int { response.status }
        var location: URL? { response.header("Location").flatMap(URL.init(string:)) }
        var html: HTMLPage { HTMLPage(html: response.body) }
        /// The query items of the redirect's `Location`.
        var redirectQuery: [String: String] {
            guard let location, let items = URLComponents(url: location, resolvingAgainstBaseURL: false)?.queryItems
            else { return [:] }
            return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        }
    }

    func get(_ url: URL) async throws -> Page {
        try await send("GET", url, form: nil)
    }

    func post(_ url: URL, form: [(String, String)]) async throws -> Page {
        try await send("POST", url, form: form)
    }

    /// Submits the first form on `page` that has a field or button as `isTarget` says, with
    /// `values` over its own and the named button pressed.
    func submit(
        on page: Page, values: [String: String] = [:], button: String? = nil,
        where isTarget: (HTMLPage.Form) -> Bool = { _ in true }
    ) async throws -> Page {
        let forms = page.html.forms.filter { isTarget($0) }
        let form = try #require(forms.first, "no matching form on \(page.url.path)")
        var fields = form.fields.map { ($0.name, values[$0.name] ?? $0.value) }
        if let button, let pressed = form.buttons.first(where: { $0.value == button }), let name = pressed.name {
            fields.append((name, pressed.value))
        }
        let action = try #require(URL(string: form.action ?? "", relativeTo: page.url)?.absoluteURL)
        return try await post(action, form: fields)
    }

    private func send(_ method: String, _ url: URL, form: [(String, String)]?) async throws -> Page {
        var fields: HTTPFields = [:]
        if let cookie = jar.header(for: url) { fields.append(HTTPField(name: .cookie, value: cookie)) }
        var body: [UInt8] = []
        if let form {
            fields.append(HTTPField(name: .contentType, value: "application/x-www-form-urlencoded"))
            body = Array(FormCoding.encode(form).utf8)
        }
        let response = try await RawHTTPClient.request(method: method, url: url, headerFields: fields, body: body)
        jar.store(response.headers("Set-Cookie"), from: url)
        return Page(url: url, response: response)
    }
}

/// Authorization request parameters for raw tests, with a real PKCE pair.
struct RawAuthorization {
    var clientID = "webauth-demo"
    var redirectURI = "http://127.0.0.1:9/callback"
    var state = "state-\(UUID().uuidString)"
    var scope = "openid profile email"
    var nonce: String? = "nonce-1"
    let verifier = ProviderSecrets.randomToken(byteCount: 48)
    var challengeMethod: String? = "S256"
    var includeChallenge = true
    var extra: [(String, String)] = []

    var challenge: String { ProviderSecrets.s256Challenge(for: verifier) }

    func url(_ provider: EmbeddedProvider) -> URL {
        var parameters = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("state", state),
            ("scope", scope),
        ]
        if let nonce { parameters.append(("nonce", nonce)) }
        if includeChallenge { parameters.append(("code_challenge", challenge)) }
        if let challengeMethod { parameters.append(("code_challenge_method", challengeMethod)) }
        parameters += extra
        return URL(string: provider.url(.authorization).absoluteString + "?" + FormCoding.encode(parameters))!
    }
}

/// JSON from a response body.
func jsonObject(_ response: RawHTTPClient.Response) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
}

extension EmbeddedProvider {
    /// The tests' provider: the demo client, a short device polling interval, and a
    /// confidential client `backend` / `backend-secret…`.
    static var testConfiguration: Configuration {
        var configuration = Configuration(devicePollingInterval: .seconds(1))
        configuration.clients.append(
            Client(
                id: "backend", secret: "backend-secret: with symbols & more", name: "Back end",
                redirectURIs: [URL(string: "http://127.0.0.1/callback")!]))
        return configuration
    }

    /// Runs `body` with a provider started with `configuration` and shuts it down — delayed
    /// answers included — before returning, however `body` ends.
    static func withTestProvider(
        _ configuration: Configuration = testConfiguration, isolation: isolated (any Actor)? = #isolation,
        _ body: (EmbeddedProvider) async throws -> Void
    ) async throws {
        try await withProvider(configuration, body)
    }

    /// Authorizes through the pages with `browser` (the login form if it comes, then the
    /// consent page): the code from the redirect.
    func authorizeByHand(
        _ browser: HandBrowser, _ authorization: RawAuthorization = RawAuthorization(),
        password: String = User.demo.password
    ) async throws -> String {
        var page = try await browser.get(authorization.url(self))
        if page.html.forms.first?.hasPassword == true {
            page = try await browser.submit(on: page, values: ["username": User.demo.username, "password": password])
        }
        if page.status == 200 { page = try await browser.submit(on: page, button: "approve") }
        return try #require(page.redirectQuery["code"], "no code in the redirect")
    }

    /// Exchanges `code` at the token endpoint as `authorization`'s client.
    func exchange(
        _ code: String, _ authorization: RawAuthorization, verifier: String? = nil, redirectURI: String? = nil
    ) async throws -> RawHTTPClient.Response {
        try await postForm(
            .token,
            [
                ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", redirectURI ?? authorization.redirectURI),
                ("code_verifier", verifier ?? authorization.verifier), ("client_id", authorization.clientID),
            ])
    }

    /// POSTs `form` to `endpoint`.
    func postForm(
        _ endpoint: Endpoint, _ form: [(String, String)], headerFields: HTTPFields = [:]
    ) async throws -> RawHTTPClient.Response {
        try await RawHTTPClient.request(
            method: "POST", url: url(endpoint),
            headerFields: [.contentType: "application/x-www-form-urlencoded"] + headerFields,
            body: Array(FormCoding.encode(form).utf8))
    }
}

/// A client of `provider` for the demo client (or another), with a request timeout fit for a
/// loaded machine.
func makeClient(
    _ provider: EmbeddedProvider, clientID: String = "webauth-demo", secret: String? = nil,
    authentication: ClientAuthenticationMethod? = nil,
    scopes: [String] = ["openid", "profile", "email", "offline_access"], requestTimeout: Duration = .seconds(30)
) throws -> OAuthClient {
    try OAuthClient(
        configuration: ClientConfiguration(
            issuer: provider.issuer, clientID: clientID, clientSecret: secret, scopes: scopes,
            clientAuthentication: authentication),
        requestTimeout: requestTimeout)
}

/// Runs `body`, which should throw an ``OAuthError``, and returns the error (`nil` when it
/// did not throw, or threw something else).
func oauthError<T>(_ body: () async throws -> T) async -> OAuthError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? OAuthError
    }
}
