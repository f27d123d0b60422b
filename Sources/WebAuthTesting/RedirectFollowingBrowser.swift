// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import WebAuthCore
import WebAuthEmbeddedProvider

/// A browser stand-in for tests with no real browser: it requests the authorization URL over
/// real HTTP and follows `Location` redirects (at most five), as a browser would, until a
/// response is not a redirect. It only speaks plain HTTP to loopback addresses.
///
/// It cannot catch callbacks; the session's loopback listener receives the final request.
public struct RedirectFollowingBrowser: Browser {
    /// Creates the browser.
    public init() {}

    /// `redirect-following`.
    public var name: String { "redirect-following" }

    /// None.
    public var capabilities: BrowserCapabilities { [] }

    /// Follows the redirects in the background and returns at once.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        let (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        let task = Task {
            var next: URL? = request.url
            for _ in 0..<5 {
                guard let url = next, let port = url.port, let host = url.host else { break }
                var target = url.path.isEmpty ? "/" : url.path
                if let query = url.query { target += "?\(query)" }
                guard let response = try? await RawHTTPClient.get(port: port, target: target, address: host) else {
                    continuation.yield(.failed("could not reach \(host):\(port)"))
                    break
                }
                guard (300..<400).contains(response.status), let location = response.header("Location") else { break }
                next = URL(string: location, relativeTo: url)?.absoluteURL
            }
            continuation.finish()
        }
        return FollowingPresentation(events: events, task: task)
    }
}

private struct FollowingPresentation: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    let task: Task<Void, Never>

    func dismiss() async { task.cancel() }
}
