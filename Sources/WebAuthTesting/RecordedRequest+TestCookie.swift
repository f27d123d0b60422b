// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthEmbeddedProvider

extension RecordedRequest {
    /// Whether the request came with the cookie ``AuthorizationPageServer/Mode/cookie`` sets
    /// (`webauth_test=1`): `true` means the browser kept state from an earlier visit.
    public var cameWithTestCookie: Bool {
        cookies[AuthorizationPageServer.testCookieName] == "1"
    }
}
