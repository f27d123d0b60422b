// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthPlatform

/// One running Chromium a ``ChromiumBrowser`` launched, as tests and benchmarks see it
/// (``ChromiumBrowser/Options/launchObserver``): its process, profile, page, and the times things
/// happened. Not part of the public API.
package final class ChromiumInstance: Sendable {
    /// Moments in a presentation's life, for benchmarks.
    package enum Milestone: String, Sendable, Hashable, CaseIterable {
        /// `present` was called.
        case launchStarted
        /// The browser first answered on its pipe (`Browser.getVersion`).
        case browserAnswered
        /// Interception is in place and the navigation to the authorization URL was sent.
        case navigationSent
        /// The main frame first committed a document after that.
        case navigationCommitted
        /// A callback was caught and handed to the session.
        case callbackCaught
    }

    /// The browser's process ID, which is also its process group.
    package let pid: Int32
    /// The profile directory it runs with.
    package let profileDirectory: URL
    /// Whether that profile is removed when the session ends.
    package let isEphemeral: Bool
    /// The page target the session uses.
    package let pageTargetID: String

    let connection: DevToolsConnection
    let pageSessionID: String
    private let milestones = Locked<[Milestone: ContinuousClock.Instant]>([:])

    init(
        pid: Int32, profileDirectory: URL, isEphemeral: Bool, pageTargetID: String, pageSessionID: String,
        connection: DevToolsConnection
    ) {
        self.pid = pid
        self.profileDirectory = profileDirectory
        self.isEphemeral = isEphemeral
        self.pageTargetID = pageTargetID
        self.pageSessionID = pageSessionID
        self.connection = connection
    }

    /// When `milestone` happened (the first time), if it has.
    package func time(of milestone: Milestone) -> ContinuousClock.Instant? {
        milestones.withLock { $0[milestone] }
    }

    /// Records `milestone` now, unless it was recorded before.
    func record(_ milestone: Milestone, at instant: ContinuousClock.Instant = .now) {
        milestones.withLock { if $0[milestone] == nil { $0[milestone] = instant } }
    }

    /// Evaluates `expression` in the page and returns its value as text (`nil` for `undefined`
    /// and non-string values).
    package func evaluate(_ expression: String) async throws -> String? {
        let result = try await connection.send(
            "Runtime.evaluate", ["expression": .string(expression), "returnByValue": true],
            sessionID: pageSessionID, timeout: .seconds(10))
        return result["result"]?["value"]?.stringValue
    }

    /// Closes the page from outside the session, as a person closing the tab would.
    package func closePage() async throws {
        try await connection.send("Target.closeTarget", ["targetId": .string(pageTargetID)], timeout: .seconds(10))
    }
}
