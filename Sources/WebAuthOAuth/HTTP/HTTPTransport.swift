// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends HTTP requests for the OAuth layer: the seam between the protocol logic and the network.
///
/// The default is ``CurlTransport``; `URLSessionTransport`, in the `WebAuthURLSession`
/// product, is the same over `URLSession`. Tests and programs with their own HTTP stack supply
/// another:
///
/// ```swift
/// struct RecordingTransport: HTTPTransport {
///     let base: any HTTPTransport
///     func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
///         print(request.method, request.url.host ?? "")
///         return try await base.send(request)
///     }
/// }
/// ```
///
/// A transport must not follow redirects (the OAuth endpoints answer directly; a `3xx` is an
/// error unless ``HTTPTransportRequest/deliversRedirects`` asks for it as a response), must honour
/// ``HTTPTransportRequest/timeout`` and ``HTTPTransportRequest/maximumResponseSize``, and must not keep cookies.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse
}
