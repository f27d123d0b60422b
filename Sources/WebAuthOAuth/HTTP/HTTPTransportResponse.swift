// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import HTTPTypes
import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An HTTP response from an OAuth endpoint.
public struct HTTPTransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields as received. Look one up with its name, such as
    /// `headerFields[.wwwAuthenticate]`.
    public var headerFields: HTTPFields
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }
}
