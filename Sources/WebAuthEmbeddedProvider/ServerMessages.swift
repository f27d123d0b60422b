// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import HTTPTypes
import NIOCore

/// One request a ``LoopbackHTTPServer`` received: the head as parsed, and the body as bytes.
///
/// The server records these in arrival order, so a test can check which endpoints a client
/// called, with what:
///
/// ```swift
/// let paths = await server.requests.map(\.path)
/// #expect(paths == ["/.well-known/openid-configuration", "/token"])
/// ```
package struct ServerRequest: Sendable, Hashable {
    /// The request method, such as `POST`.
    package var method: String
    /// The request target exactly as received, such as `/authorize?state=abc`.
    package var target: String
    /// The path of the target, such as `/authorize`.
    package var path: String
    /// The query items of the target, percent-decoded (`+` is left as it is).
    package var queryItems: [URLQueryItem]
    /// The header fields, in the order received.
    package var headerFields: HTTPFields
    /// The body, byte for byte (after undoing chunked transfer coding); empty when there was none.
    package var body: [UInt8]
    /// When the complete request had arrived.
    package var receivedAt: ContinuousClock.Instant
    /// The status the server answered with; `nil` while the handler is still working (or when
    /// the connection closed first).
    package var responseStatus: Int?

    /// Creates a request; the server makes these, tests normally only read them.
    package init(
        method: String, target: String, headerFields: HTTPFields = [:], body: [UInt8] = [],
        receivedAt: ContinuousClock.Instant = .now, responseStatus: Int? = nil
    ) {
        let components = URLComponents(string: "http://127.0.0.1" + target)
        self.method = method
        self.target = target
        self.path = components?.path ?? target
        self.queryItems = components?.queryItems ?? []
        self.headerFields = headerFields
        self.body = body
        self.receivedAt = receivedAt
        self.responseStatus = responseStatus
    }

    /// The body decoded as UTF-8 (invalid sequences replaced), for logs and assertions.
    package var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The value of the header field `name`, compared case-insensitively; repeated fields are
    /// joined with `, `. `nil` if the request did not have it.
    package func header(_ name: String) -> String? {
        let values = HTTPField.Name(name).map { headerFields[values: $0] } ?? []
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The first value of the query item `name`, or `nil` if absent (or present without a value).
    package func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body read as `application/x-www-form-urlencoded` (`+` is a space), in order,
    /// duplicates kept.
    package var formItems: [(name: String, value: String)] { FormCoding.decode(body) }

    /// The first value of the form field `name` in the body, or `nil`.
    package func formValue(_ name: String) -> String? {
        formItems.first { $0.name == name }?.value
    }
}

/// What a ``LoopbackHTTPServer`` handler answers: a status, header fields and a body of any
/// bytes — or, for a hostile server, exact bytes for the wire — and how long to wait first.
///
/// The server adds `Content-Length` (unless the fields already have one), `Cache-Control:
/// no-store` (unless they have a `Cache-Control`) and `Connection: close`.
///
/// ```swift
/// ServerResponse.json(#"{"error":"invalid_grant"}"#, status: 400)
/// ServerResponse.redirect(to: "http://127.0.0.1:5000/cb?code=abc")
/// ServerResponse.text("slow", delay: .seconds(5))
/// ServerResponse.raw(Array("HTTP/1.1 200 OK\r\n\r\n{".utf8))    // no length, truncated JSON
/// ```
package struct ServerResponse: Sendable, Hashable {
    /// The status code.
    package var status: Int
    /// The reason phrase.
    package var reason: String
    /// Header fields, sent in this order before the ones the server adds.
    package var headerFields: HTTPFields
    /// The body.
    package var body: [UInt8]
    /// How long the server waits before sending the response. Other connections are served
    /// meanwhile.
    package var delay: Duration
    /// When set, exactly these bytes are sent instead of a response built from the other
    /// properties (``status`` is still what the request log shows).
    package var rawBytes: [UInt8]?

    /// Creates a response; `reason` defaults to the standard phrase for `status`.
    package init(
        status: Int, reason: String? = nil, headerFields: HTTPFields = [:], body: [UInt8] = [],
        delay: Duration = .zero
    ) {
        self.status = status
        self.reason = reason ?? Self.reasonPhrase(for: status)
        self.headerFields = headerFields
        self.body = body
        self.delay = delay
        self.rawBytes = nil
    }

    /// A JSON response (`Content-Type: application/json`).
    package static func json(_ body: some DataProtocol, status: Int = 200, delay: Duration = .zero) -> ServerResponse {
        ServerResponse(
            status: status, headerFields: [.contentType: "application/json"], body: Array(body),
            delay: delay)
    }

    /// A JSON response from text (`Content-Type: application/json`).
    package static func json(_ text: String, status: Int = 200, delay: Duration = .zero) -> ServerResponse {
        json(Array(text.utf8), status: status, delay: delay)
    }

    /// A plain-text response (`Content-Type: text/plain; charset=utf-8`).
    package static func text(_ text: String, status: Int = 200, delay: Duration = .zero) -> ServerResponse {
        ServerResponse(
            status: status, headerFields: [.contentType: "text/plain; charset=utf-8"],
            body: Array(text.utf8), delay: delay)
    }

    /// An HTML response (`Content-Type: text/html; charset=utf-8`).
    package static func html(_ html: String, status: Int = 200, delay: Duration = .zero) -> ServerResponse {
        ServerResponse(
            status: status, headerFields: [.contentType: "text/html; charset=utf-8"],
            body: Array(html.utf8), delay: delay)
    }

    /// A redirect (default `302 Found`) to `location`, written as given.
    package static func redirect(to location: String, status: Int = 302) -> ServerResponse {
        ServerResponse(status: status, headerFields: [.location: location])
    }

    /// Exactly `bytes` on the wire, then the connection closes. `status` is only what the request
    /// log records.
    package static func raw(_ bytes: [UInt8], status: Int = 0, delay: Duration = .zero) -> ServerResponse {
        var response = ServerResponse(status: status, delay: delay)
        response.rawBytes = bytes
        return response
    }

    /// The value of the first header field `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headerFields[values: $0].first }
    }

    /// The standard reason phrase for `status`, or `Status` for codes without one here.
    package static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
