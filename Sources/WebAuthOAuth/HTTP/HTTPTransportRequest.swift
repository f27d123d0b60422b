// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import HTTPTypes
import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An HTTP request to an OAuth endpoint.
public struct HTTPTransportRequest: Sendable, Hashable {
    /// The method, `GET` or `POST`.
    public var method: String
    /// The endpoint.
    public var url: URL
    /// Header fields, in the order they are sent. Look one up with its name, such as
    /// `headerFields[.authorization]`.
    public var headerFields: HTTPFields
    /// The body, for `POST`.
    public var body: Data?
    /// How long the whole exchange may take.
    public var timeout: Duration
    /// The largest response body accepted; larger ones fail with
    /// ``HTTPTransportError/Code/responseTooLarge``.
    public var maximumResponseSize: Int
    /// Whether a `3xx` answer is returned as a response, for a caller that follows redirects
    /// itself (``ResourceClient``). Default `false`: OAuth endpoints answer directly, and a
    /// redirect fails with ``HTTPTransportError/Code/redirected``. A transport never follows a
    /// redirect either way.
    public var deliversRedirects: Bool

    /// The default ``timeout``: 30 seconds.
    public static let defaultTimeout: Duration = .seconds(30)
    /// The default ``maximumResponseSize``: 1 MiB, far more than any token or metadata response.
    public static let defaultMaximumResponseSize = 1 << 20

    /// Creates a request.
    public init(
        method: String, url: URL, headerFields: HTTPFields = [:], body: Data? = nil,
        timeout: Duration = HTTPTransportRequest.defaultTimeout,
        maximumResponseSize: Int = HTTPTransportRequest.defaultMaximumResponseSize,
        deliversRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
        self.deliversRedirects = deliversRedirects
    }
}
