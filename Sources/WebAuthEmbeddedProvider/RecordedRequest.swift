// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import HTTPTypes

/// One HTTP request a test server (`AuthorizationPageServer` in `WebAuthTesting`) received, and
/// what it answered.
///
/// Tests read these to check what a real browser sent:
///
/// ```swift
/// let request = try #require(await server.authorizationRequests.first)
/// #expect(request.header("X-Test-Header") == "42")
/// #expect(request.queryValue("state") == state)
/// ```
public struct RecordedRequest: Sendable, Hashable {
    /// The request method, such as `GET`.
    public var method: String
    /// The request target exactly as received, such as `/authorize?state=abc`.
    public var target: String
    /// The path of the target, such as `/authorize`.
    public var path: String
    /// The query items of the target, percent-decoded (`+` is left as it is).
    public var queryItems: [URLQueryItem]
    /// The header fields, in the order received: each name as sent (`rawName`), each value
    /// without surrounding whitespace.
    public var headerFields: HTTPFields
    /// The status code the server answered with, such as 302.
    public var responseStatus: Int
    /// The `Location` the server redirected to, if it redirected (or, for
    /// `AuthorizationPageServer.Mode.page`, the URL the page leads to).
    public var redirectLocation: String?
    /// The authorization code the server put in the redirect, if it issued one.
    public var issuedCode: String?

    /// Creates a record; the server makes these, tests normally only read them.
    public init(
        method: String, target: String, path: String, queryItems: [URLQueryItem], headerFields: HTTPFields,
        responseStatus: Int, redirectLocation: String? = nil, issuedCode: String? = nil
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.queryItems = queryItems
        self.headerFields = headerFields
        self.responseStatus = responseStatus
        self.redirectLocation = redirectLocation
        self.issuedCode = issuedCode
    }

    /// A record of `request`, not answered yet (``responseStatus`` 0).
    package init(received request: ServerRequest) {
        self.init(
            method: request.method, target: request.target, path: request.path, queryItems: request.queryItems,
            headerFields: request.headerFields, responseStatus: 0)
    }

    /// The value of the header field `name`, compared case-insensitively; repeated fields are
    /// joined with `, `. `nil` if the request did not have it.
    public func header(_ name: String) -> String? {
        let values = HTTPField.Name(name).map { headerFields[values: $0] } ?? []
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The first value of the query item `name`, or `nil` if absent (or present without a value).
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The cookies the request came with, from its `Cookie` header fields.
    public var cookies: [String: String] {
        var cookies: [String: String] = [:]
        for field in headerFields[fields: .cookie] {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard let name = parts.first?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { continue }
                cookies[name] = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            }
        }
        return cookies
    }
}
