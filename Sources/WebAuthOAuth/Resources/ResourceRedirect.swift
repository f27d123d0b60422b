// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one rule for following a resource server's redirect with credentials: which answers are
/// followed, where to, with which method and body, and which header fields go along. A pure
/// function of the request sent and the response received; ``ResourceClient`` performs it.
enum ResourceRedirect {
    /// The statuses that are followed: the ones with a `Location` to go to. `300` (a choice for
    /// a person) and `304` (not modified) are answers in themselves.
    static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Header fields that carry credentials: never sent to another origin (as browsers and curl
    /// do).
    static let credentialFields: Set<HTTPField.Name> = [.authorization, .cookie, .proxyAuthorization]

    /// Header fields that describe the body, dropped with it.
    static let bodyFields: Set<HTTPField.Name> = [.contentType, .contentLength, .contentEncoding]

    /// The request to send next after `response` answered `request`; `nil` when `response` is
    /// not a redirect to follow (it is then the answer).
    ///
    /// `303`, and `301` or `302` to a `POST`, turn into a `GET` without the body (RFC 9110
    /// §15.4); `307` and `308` keep the method and body. Credential fields go only to the same
    /// origin.
    ///
    /// - Throws: ``OAuthError/Code/redirectRefused`` for a redirect from https to anything else,
    ///   or to a URL ``EndpointPolicy`` refuses (http to another machine, another scheme).
    static func next(
        after request: HTTPTransportRequest, response: HTTPTransportResponse
    ) throws(OAuthError) -> HTTPTransportRequest? {
        guard followedStatuses.contains(response.status), let location = response.headerFields[values: .location].first,
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        let from = request.url.redactedForLogs
        if request.url.scheme?.lowercased() == "https", target.scheme?.lowercased() != "https" {
            throw OAuthError(
                code: .redirectRefused,
                message: "refused the redirect from \(from) to \(target.redactedForLogs): it leaves https")
        }
        do {
            try EndpointPolicy.check(target, role: "redirect target")
        } catch {
            throw OAuthError(code: .redirectRefused, message: "refused the redirect from \(from): \(error.message)")
        }
        var next = request
        next.url = target
        let becomesGet =
            response.status == 303
            ? request.method != "HEAD" : [301, 302].contains(response.status) && request.method == "POST"
        if becomesGet {
            next.method = "GET"
            next.body = nil
            next.headerFields.removeAll { bodyFields.contains($0.name) }
        }
        if !target.hasSameOrigin(as: request.url) {
            next.headerFields.removeAll { credentialFields.contains($0.name) }
        }
        return next
    }
}
