// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthProcess

/// The DevTools commands that prepare a fresh Chromium for a session: wait for it to answer, find
/// its page, attach to it, and set up request interception.
enum DevToolsSessionSetup {
    /// What the setup found.
    struct Result: Sendable, Hashable {
        /// The page target the authorization page opens in.
        var targetID: String
        /// The flat DevTools session attached to that page.
        var sessionID: String
        /// The page's main frame.
        var mainFrameID: String
        /// When the browser first answered on its pipe.
        var browserAnswered: ContinuousClock.Instant
    }

    /// Runs the setup on `connection` to `browser`.
    ///
    /// - Parameters:
    ///   - deadline: When waiting for the browser's first page gives up.
    ///   - timeout: How long each command may take.
    static func run(
        on connection: DevToolsConnection, browser: LaunchedBrowser, deadline: ContinuousClock.Instant,
        timeout: Duration
    ) async throws(WebAuthenticationSessionError) -> Result {
        let answered: ContinuousClock.Instant
        do {
            _ = try await connection.send("Browser.getVersion", timeout: timeout)
            answered = .now
        } catch .timedOut {
            throw .browserLaunchFailed(
                "chromium did not answer on its DevTools pipe within \(timeout)\(browser.outputTail())")
        } catch {
            // The pipe closed: the browser exited while starting. Say how, if it says soon.
            let exited = await browser.waitForExit(within: .seconds(2))
            let how = exited.map { " (\(Subprocess.describe(status: $0)))" } ?? ""
            throw .browserLaunchFailed("chromium exited while starting\(how)\(browser.outputTail())")
        }
        do {
            try await connection.send("Target.setDiscoverTargets", ["discover": true], timeout: timeout)
            var targetID: String?
            while targetID == nil {
                let targets = try await connection.send("Target.getTargets", timeout: timeout)
                let pages = (targets["targetInfos"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "page" }
                let blank = pages.first { $0["url"]?.stringValue == ChromiumLauncher.initialPage }
                targetID = (blank ?? pages.first)?["targetId"]?.stringValue
                if targetID == nil {
                    guard ContinuousClock.now < deadline else {
                        throw DevToolsError.timedOut(method: "waiting for a page", after: timeout)
                    }
                    try? await Task.sleep(for: .milliseconds(25))
                }
            }
            guard let targetID else { throw DevToolsError.closed("no page") }
            let attached = try await connection.send(
                "Target.attachToTarget", ["targetId": .string(targetID), "flatten": true], timeout: timeout)
            guard let sessionID = attached["sessionId"]?.stringValue else {
                throw DevToolsError.commandFailed(code: 0, message: "Target.attachToTarget returned no session")
            }
            try await connection.send("Page.enable", sessionID: sessionID, timeout: timeout)
            let tree = try await connection.send("Page.getFrameTree", sessionID: sessionID, timeout: timeout)
            let mainFrameID = tree["frameTree"]?["frame"]?["id"]?.stringValue ?? targetID
            let patterns: [JSONValue] = ["Request", "Response"].map { stage in
                ["urlPattern": "*", "resourceType": "Document", "requestStage": .string(stage)]
            }
            try await connection.send(
                "Fetch.enable", ["patterns": .array(patterns)], sessionID: sessionID, timeout: timeout)
            return Result(targetID: targetID, sessionID: sessionID, mainFrameID: mainFrameID, browserAnswered: answered)
        } catch {
            throw .browserLaunchFailed("chromium started but could not be prepared: \(error)\(browser.outputTail())")
        }
    }
}
