// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import WebAuthEmbeddedProvider

/// A tiny HTTP/1.1 server on `127.0.0.1` that stands in for an authorization server's login
/// page in tests, and records every request it gets.
///
/// `GET /authorize?redirect_uri=…&state=…[&mode=…]` "signs in" at once and sends the browser to
/// the redirect URI with a fresh `code` and the `state` (see ``Mode`` for the variations). Any
/// other path answers 404. Each connection carries one request (`Connection: close`).
///
/// ```swift
/// let server = try await AuthorizationPageServer.start()
/// defer { Task { await server.shutdown() } }   // or use withServer(_:)
/// let url = server.authorizationURL(redirectURI: redirect, state: "xyz")
/// // … let a browser open `url` …
/// let requests = await server.waitForRequests()
/// #expect(requests.first?.header("X-Test-Header") == "1")
/// ```
public final class AuthorizationPageServer: Sendable {
    /// How `/authorize` answers, chosen with the `mode` query item.
    public struct Mode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The value of the `mode` query item.
        public let rawValue: String

        /// Creates a mode from its query value; unknown modes are answered with 400.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The default: `302 Found` to `redirect_uri?code=…&state=…`.
        public static let redirect = Mode(rawValue: "redirect")
        /// `302 Found` to `redirect_uri?error=access_denied&error_description=…&state=…`.
        public static let error = Mode(rawValue: "error")
        /// `200 OK` with an HTML page that moves on to the redirect client-side (a
        /// `<meta http-equiv="refresh">` and a link), so only a real browser follows it.
        public static let page = Mode(rawValue: "page")
        /// Like ``redirect``, and sets the cookie `webauth_test=1` (`Max-Age=3600`). Each
        /// request's `RecordedRequest.cameWithTestCookie` tells whether the browser still had it.
        public static let cookie = Mode(rawValue: "cookie")

        /// The query value.
        public var description: String { rawValue }
    }

    /// The name of the cookie ``Mode/cookie`` sets.
    public static let testCookieName = "webauth_test"

    /// `http://127.0.0.1:{port}` (no trailing slash).
    public let baseURL: URL
    /// `http://127.0.0.1:{port}/authorize`.
    public var authorizeURL: URL { baseURL.appendingPathComponent("authorize") }

    private let server: LoopbackHTTPServer
    private let log: RequestLog

    private init(server: LoopbackHTTPServer, log: RequestLog) {
        self.baseURL = server.baseURL
        self.server = server
        self.log = log
    }

    /// Starts a server on `127.0.0.1` at a port the system picks.
    ///
    /// Call ``shutdown()`` when done, or use ``withServer(isolation:_:)`` instead.
    public static func start() async throws -> AuthorizationPageServer {
        let log = RequestLog()
        // A connection a browser opens and never uses is closed after 10 seconds.
        let server = try await LoopbackHTTPServer.start(limits: .init(connectionLifetime: .seconds(10))) { request in
            let (response, record) = respond(to: request)
            // Recorded before answering, so a test that saw the answer also sees the record.
            await log.append(record)
            return response
        }
        return AuthorizationPageServer(server: server, log: log)
    }

    /// Runs `body` with a started server and shuts the server down afterwards, however `body` ends.
    public static func withServer<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (AuthorizationPageServer) async throws -> Result
    ) async throws -> Result {
        try await withShutdown(of: try await start(), shutdown: { await $0.shutdown() }, body)
    }

    /// The URL of the login page for a flow that redirects to `redirectURI`.
    ///
    /// - Parameters:
    ///   - redirectURI: Where to send the browser afterwards (kept as written, query included).
    ///   - state: The `state` to send back.
    ///   - mode: How the page answers. Default ``Mode/redirect``.
    ///   - additionalQueryItems: More query items, recorded but otherwise ignored.
    public func authorizationURL(
        redirectURI: URL, state: String, mode: Mode = .redirect, additionalQueryItems: [URLQueryItem] = []
    ) -> URL {
        var parameters = [("redirect_uri", redirectURI.absoluteString), ("state", state)]
        if mode != .redirect { parameters.append(("mode", mode.rawValue)) }
        parameters += additionalQueryItems.map { ($0.name, $0.value ?? "") }
        let string = FormCoding.appendingQuery(parameters, to: authorizeURL.absoluteString)
        guard let url = URL(string: string) else { preconditionFailure("unencodable authorization URL \(string)") }
        return url
    }

    /// Every request received so far, oldest first (including ones that got 404, such as
    /// `/favicon.ico`).
    public var requests: [RecordedRequest] {
        get async { await log.requests }
    }

    /// The requests to `/authorize` received so far, oldest first.
    public var authorizationRequests: [RecordedRequest] {
        get async { await log.requests.filter { $0.path == "/authorize" } }
    }

    /// Waits until `count` requests to `path` have arrived or `timeout` has passed, and returns
    /// the requests to `path` received by then (possibly fewer than `count`).
    public func waitForRequests(
        path: String = "/authorize", count: Int = 1, timeout: Duration = .seconds(10)
    ) async -> [RecordedRequest] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = await log.requests.filter { $0.path == path }
            if matching.count >= count || ContinuousClock.now >= deadline || Task.isCancelled { return matching }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops listening, closes open connections and waits until all of it is done. Safe to call
    /// more than once.
    public func shutdown() async {
        await server.shutdown()
    }
}

/// The requests a server received, shared between its connections.
private actor RequestLog {
    private(set) var requests: [RecordedRequest] = []

    func append(_ request: RecordedRequest) {
        requests.append(request)
    }
}
