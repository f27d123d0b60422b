// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Logging
import WebAuthCore
import WebAuthOAuth
import WebAuthPlatform

/// A transport that answers from a closure and records every request, for OAuth 1.0a tests.
final class OAuth1ScriptedTransport: HTTPTransport {
    private let answer: @Sendable (HTTPTransportRequest) -> Result<HTTPTransportResponse, HTTPTransportError>
    private let recorded = Locked<[HTTPTransportRequest]>([])

    init(_ answer: @escaping @Sendable (HTTPTransportRequest) -> Result<HTTPTransportResponse, HTTPTransportError>) {
        self.answer = answer
    }

    /// Answers by path: a status and a body (form-encoded text), 404 for unknown paths.
    convenience init(routes: [String: (Int, String)]) {
        self.init { request in
            guard let (status, body) = routes[request.url.path] else {
                return .success(HTTPTransportResponse(status: 404))
            }
            return .success(
                HTTPTransportResponse(
                    status: status,
                    headerFields: [.contentType: "application/x-www-form-urlencoded"],
                    body: Data(body.utf8)))
        }
    }

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        recorded.withLock { $0.append(request) }
        return try answer(request).get()
    }

    var requests: [HTTPTransportRequest] { recorded.withLock { $0 } }
    var paths: [String] { requests.map(\.url.path) }
}

/// A browser stand-in that catches callbacks itself (as a controlled browser does): on
/// `present` it records the URL and delivers the callbacks `script` makes from it, in order.
final class OAuth1InterceptingBrowser: Browser {
    private let script: @Sendable (URL) -> [URL]
    private let opened = Locked<[URL]>([])

    init(script: @escaping @Sendable (_ authorizationURL: URL) -> [URL]) { self.script = script }

    var name: String { "intercepting" }
    var capabilities: BrowserCapabilities { [.callbackInterception, .dismissal] }
    var openedURLs: [URL] { opened.withLock { $0 } }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        opened.withLock { $0.append(request.url) }
        let (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        for url in script(request.url) { continuation.yield(.callback(url)) }
        return Presentation(events: events, continuation: continuation)
    }

    private struct Presentation: BrowserPresentation {
        let events: AsyncStream<BrowserEvent>
        let continuation: AsyncStream<BrowserEvent>.Continuation
        func dismiss() async { continuation.finish() }
    }
}

/// Keeps every log line with its metadata.
final class OAuth1LogStore: Sendable {
    private let lines = Locked<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "oauth1-test") { _ in OAuth1CapturingLogHandler(store: self) }
    }
}

struct OAuth1CapturingLogHandler: LogHandler {
    let store: OAuth1LogStore
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        store.append("\(event.level) \(event.message) \(fields)")
    }
}

extension URL {
    /// The value of the first query parameter `name`, decoded.
    func oauth1QueryValue(_ name: String) -> String? {
        URLComponents(url: self, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}
