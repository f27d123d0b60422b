// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthCore
import WebAuthPlatform

@testable import WebAuthOAuth

/// A transport seam for unit tests: answers each request with a closure and records it.
/// End-to-end tests use real HTTP servers instead.
final class ScriptedTransport: HTTPTransport {
    private let handler: @Sendable (HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse
    private let log = Locked<[HTTPTransportRequest]>([])

    init(
        _ handler: @escaping @Sendable (HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse
    ) {
        self.handler = handler
    }

    var requests: [HTTPTransportRequest] { log.withLock { $0 } }

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        log.withLock { $0.append(request) }
        return try await handler(request)
    }
}

extension HTTPTransportResponse {
    /// A JSON response.
    static func json(_ status: Int, _ body: String) -> HTTPTransportResponse {
        HTTPTransportResponse(
            status: status, headerFields: [.contentType: "application/json"],
            body: Data(body.utf8))
    }
}

extension HTTPTransportRequest {
    /// The form body's parameters.
    var formParameters: [String: String] {
        Dictionary(
            FormEncoding.decode(String(decoding: body ?? Data(), as: UTF8.self)),
            uniquingKeysWith: { first, _ in first })
    }
}

/// A clock a test moves by hand; `sleep` advances it instead of waiting.
final class ManualClock: Sendable {
    private let current: Locked<Date>
    private let slept = Locked<[Duration]>([])

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(start) }

    var now: Date { current.withLock { $0 } }
    var sleeps: [Duration] { slept.withLock { $0 } }

    func advance(_ duration: Duration) {
        current.withLock { $0 = $0.addingTimeInterval(duration.timeInterval) }
    }

    var oauthClock: OAuthClock {
        OAuthClock(
            now: { self.now },
            sleep: { duration in
                try Task.checkCancellation()
                self.slept.withLock { $0.append(duration) }
                self.advance(duration)
            })
    }
}
