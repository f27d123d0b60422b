// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore

/// Decides, for each top-level navigation Chromium reports, whether it is the session's callback
/// (stop it there and hand the URL back) or something to let through — adding the session's extra
/// header fields to the very first request. Pure: no I/O; ``ChromiumPresentation`` does the
/// talking.
///
/// What it sees, and where:
/// - **Requests** paused by `Fetch` at the *Request* stage, before any DNS lookup or connection:
///   a top-level document request whose URL is the callback (an `https` callback, or a loopback
///   one) is stopped; the first one gets the extra header fields.
/// - **Responses** paused at the *Response* stage: a top-level `3xx` whose `Location` (resolved
///   against the request's URL) is the callback — of any scheme, custom ones included — is
///   stopped, so the browser never follows it (no request, no external-protocol handler).
/// - **Navigations** the page itself starts (a link, `location.href = …`, a `<meta refresh>`),
///   reported by `Page.frameRequestedNavigation` and `Page.frameStartedNavigating`: these are the
///   only way to see a page-initiated navigation to a custom scheme, which never becomes a
///   network request. `http` and `https` navigations are left to the request stage, which can
///   stop them.
///
/// Only the page's main frame counts: an iframe that loads the callback does not end the session.
struct ChromiumNavigationInterceptor: Sendable {
    /// A request `Fetch.requestPaused` reported.
    struct PausedRequest: Sendable, Hashable {
        /// The request's URL as Chromium has it.
        var url: String
        /// The frame it loads into.
        var frameID: String
        /// `Document`, `Script`, `Image`, …
        var resourceType: String
        /// The request's header fields as Chromium reports them.
        var headers: [String: String]
        /// For the response stage: the status code and the response's header fields.
        var response: Response?
    }

    /// A response paused at the Response stage.
    struct Response: Sendable, Hashable {
        /// The status code, such as 302.
        var status: Int
        /// The header fields, in the order received.
        var headers: [Header]
    }

    /// What to do with a paused request.
    enum Decision: Sendable, Hashable {
        /// Let the request go on unchanged (`Fetch.continueRequest`).
        case continueRequest
        /// Let it go on with these header fields instead of its own (`Fetch.continueRequest`).
        case continueRequestWithHeaders([Header])
        /// Let the response through (`Fetch.continueResponse`).
        case continueResponse
        /// Stop the request (`Fetch.failRequest`, `Aborted`) and hand `callback` to the session.
        case stop(callback: URL)
    }

    /// A header field to send.
    struct Header: Sendable, Hashable {
        var name: String
        var value: String
    }

    private let callback: Callback
    private let mainFrameID: String
    private let authorizationURL: URL
    private var pendingHeaders: [String: String]
    private var reportedNavigations: Set<String> = []

    /// - Parameters:
    ///   - callback: The session's callback; ``Callback/matchesURL(_:)`` decides what stops.
    ///   - mainFrameID: The page's main frame (for a page target, its target ID).
    ///   - authorizationURL: The URL the page is sent to; the extra header fields go to the first
    ///     top-level request only, and only if it is for this URL's origin.
    ///   - additionalHeaderFields: The header fields to add to that request.
    init(callback: Callback, mainFrameID: String, authorizationURL: URL, additionalHeaderFields: [String: String]) {
        self.callback = callback
        self.mainFrameID = mainFrameID
        self.authorizationURL = authorizationURL
        self.pendingHeaders = additionalHeaderFields
    }

    /// Whether extra header fields are still waiting for the first request.
    var headersPending: Bool { !pendingHeaders.isEmpty }

    /// Decides what happens to a request Chromium paused.
    mutating func decide(_ request: PausedRequest) -> Decision {
        let isTopLevelDocument = request.frameID == mainFrameID && request.resourceType == "Document"
        guard let response = request.response else {
            guard isTopLevelDocument else { return .continueRequest }
            if let url = URL(string: request.url), callback.matchesURL(url) {
                return .stop(callback: url)
            }
            guard headersPending else { return .continueRequest }
            let extra = pendingHeaders
            pendingHeaders = [:]  // the first top-level request only, whatever it is
            guard let url = URL(string: request.url), url.hasSameOrigin(as: authorizationURL) else {
                return .continueRequest
            }
            return .continueRequestWithHeaders(Self.merging(extra, into: request.headers))
        }
        guard isTopLevelDocument, (300..<400).contains(response.status),
            let location = response.headers.first(where: { $0.name.lowercased() == "location" })?.value,
            let base = URL(string: request.url),
            let target = URL(string: location, relativeTo: base)?.absoluteURL,
            callback.matchesURL(target)
        else { return .continueResponse }
        return .stop(callback: target)
    }

    /// Decides whether a navigation the page started (reported by `Page` events) is the callback.
    ///
    /// - Returns: The callback URL the first time a top-level navigation to it is reported;
    ///   `nil` for anything else, including `http`/`https` URLs (the request stage sees those).
    mutating func navigationStarted(frameID: String, url: String) -> URL? {
        guard frameID == mainFrameID, let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme != "http", scheme != "https", callback.matchesURL(parsed)
        else { return nil }
        // Chromium reports one navigation twice (requested, then started); report it once.
        guard reportedNavigations.insert(url).inserted else { return nil }
        return parsed
    }

    /// `headers` with `extra` added; an extra field replaces one of the same name (compared
    /// case-insensitively). Sorted by name, so that the result does not depend on dictionary order.
    static func merging(_ extra: [String: String], into headers: [String: String]) -> [Header] {
        let replaced = Set(extra.keys.map { $0.lowercased() })
        let kept = headers.filter { !replaced.contains($0.key.lowercased()) }
        return (kept.merging(extra) { _, new in new }).map { Header(name: $0.key, value: $0.value) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
    }
}
