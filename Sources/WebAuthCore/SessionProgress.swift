// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A step a ``WebAuthSession`` has reached, for showing progress to the person.
///
/// Set ``WebAuthSession/progressHandler`` to receive these. None of them carries a
/// secret: the authorization URL is given only to ``Phase/opening``, where a terminal presenter
/// must show it anyway.
public struct SessionProgress: Sendable, CustomStringConvertible {
    /// The step.
    public struct Phase: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The callback receiver is listening; ``SessionProgress/redirectURI`` is set.
        public static let listening = Phase(name: "listening")
        /// The browser is being asked to open ``SessionProgress/authorizationURL``.
        public static let opening = Phase(name: "opening")
        /// The browser has the page; the session waits for the callback.
        public static let waiting = Phase(name: "waiting")
        /// Something the person should know, in ``SessionProgress/message``: a preference the
        /// browser cannot honour, or a pasted URL that was not the callback.
        public static let notice = Phase(name: "notice")
        /// `listening`, `opening`, `waiting` or `notice`.
        public var description: String { name }
    }

    /// The step.
    public var phase: Phase
    /// The redirect URI, once known.
    public var redirectURI: URL?
    /// The authorization URL, for ``Phase/opening``.
    public var authorizationURL: URL?
    /// The browser's name, for ``Phase/opening`` and ``Phase/waiting``.
    public var browserName: String?
    /// A sentence for ``Phase/notice``.
    public var message: String?

    /// Creates a progress report.
    public init(
        phase: Phase, redirectURI: URL? = nil, authorizationURL: URL? = nil, browserName: String? = nil,
        message: String? = nil
    ) {
        self.phase = phase
        self.redirectURI = redirectURI
        self.authorizationURL = authorizationURL
        self.browserName = browserName
        self.message = message
    }

    /// A readable form without the authorization URL's query.
    public var description: String {
        var parts = [phase.description]
        if let redirectURI { parts.append("redirect \(redirectURI.redactedForLogs)") }
        if let authorizationURL { parts.append("url \(authorizationURL.redactedForLogs)") }
        if let browserName { parts.append("browser \(browserName)") }
        if let message { parts.append(message) }
        return parts.joined(separator: ", ")
    }
}
