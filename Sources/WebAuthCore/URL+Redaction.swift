// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

extension URL {
    /// The URL without query, fragment or user information — what may appear in logs and error
    /// messages. Authorization URLs carry `state` and PKCE challenges, callback URLs carry codes
    /// and sometimes tokens; none of that may be logged.
    package var redactedForLogs: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return "<unparseable URL>"
        }
        let hadQuery = components.query != nil
        let hadFragment = components.fragment != nil
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        let base = components.string ?? "<unparseable URL>"
        return base + (hadQuery ? "?…" : "") + (hadFragment ? "#…" : "")
    }
}
