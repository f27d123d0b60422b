// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import WebAuthEmbeddedProvider
import WebAuthTesting

/// A stand-in for an authorization server whose behaviour the test writes: a tiny HTTP/1.1
/// server on `127.0.0.1` that answers every `GET` by asking `route` where to redirect, like the
/// last step of a provider's login page.
///
/// Use it where ``AuthorizationPageServer``'s `code` + `state` redirect does not fit, such as an
/// implicit grant that returns `#access_token=…` or an OAuth 1.0a `oauth_token` callback:
///
/// ```swift
/// let server = try await RedirectingProviderServer.start { request in
///     request.path == "/authorize" ? "com.example.app:/done#access_token=abc" : nil   // nil: 404
/// }
/// defer { Task { await server.shutdown() } }
/// ```
public final class RedirectingProviderServer: Sendable {
    /// `http://127.0.0.1:{port}` (no trailing slash).
    public let baseURL: URL
    private let server: LoopbackHTTPServer
    private let log: RedirectLog

    private init(server: LoopbackHTTPServer, log: RedirectLog) {
        self.baseURL = server.baseURL
        self.server = server
        self.log = log
    }

    /// Starts a server on a port the system picks. `route` gets each request (with
    /// ``RecordedRequest/responseStatus`` 0) and returns the `Location` of a `302 Found`, or `nil`
    /// for `404 Not Found`.
    public static func start(
        route: @escaping @Sendable (RecordedRequest) -> String?
    ) async throws -> RedirectingProviderServer {
        let log = RedirectLog()
        let server = try await LoopbackHTTPServer.start(limits: .init(connectionLifetime: .seconds(10))) { request in
            var record = RecordedRequest(received: request)
            let response: ServerResponse
            if request.method == "GET", let location = route(record) {
                record.redirectLocation = location
                response = .redirect(to: location)
            } else {
                response = .text("not found: \(record.path)\n", status: 404)
            }
            record.responseStatus = response.status
            await log.append(record)
            return response
        }
        return RedirectingProviderServer(server: server, log: log)
    }

    /// Every request received so far, oldest first, with what it was answered.
    public var requests: [RecordedRequest] {
        get async { await log.requests }
    }

    /// Stops listening and closes open connections. Safe to call more than once.
    public func shutdown() async {
        await server.shutdown()
    }
}

/// The requests a ``RedirectingProviderServer`` received.
private actor RedirectLog {
    private(set) var requests: [RecordedRequest] = []

    func append(_ request: RecordedRequest) {
        requests.append(request)
    }
}
