// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore

/// The WebDriver BiDi commands that prepare a fresh Firefox for a session: `session.new`, the
/// tab to use, the event subscriptions and the network intercept.
enum BiDiSessionSetup {
    /// What the setup found.
    struct Result: Sendable, Hashable {
        /// The browsing context (tab) the authorization page opens in.
        var context: String
        /// Firefox's version, such as `153.7.0`.
        var browserVersion: String
    }

    /// The events the session listens to.
    static let subscribedEvents: [JSONValue] = [
        "browsingContext.contextDestroyed", "browsingContext.navigationStarted",
        "network.beforeRequestSent", "network.responseStarted",
    ]

    /// The first Firefox release whose `network.continueRequest` can set header fields.
    static let firstVersionModifyingHeaders = 128

    /// Why Firefox `browserVersion` cannot add header fields to a request, or `nil` if it can
    /// (or its version is unknown: then it is tried).
    static func headerSupportProblem(browserVersion: String) -> String? {
        let major = Int(browserVersion.prefix { $0.isNumber }) ?? 0
        guard major > 0 && major < firstVersionModifyingHeaders else { return nil }
        return "Firefox \(browserVersion) cannot add header fields to a request over WebDriver BiDi (Firefox "
            + "\(firstVersionModifyingHeaders) or newer can)"
    }

    /// Runs the setup on `connection`.
    ///
    /// `session.new` answers only once Firefox has finished starting its first window, which can
    /// take seconds on a busy machine: it may take up to `startupTimeout`.
    static func run(
        on connection: BiDiConnection, callback: Callback, hasHeaders: Bool, startupTimeout: Duration,
        logger: Logger
    ) async throws(WebAuthenticationSessionError) -> Result {
        let started = ContinuousClock.now
        let session: JSONValue
        do {
            session = try await connection.send(
                "session.new", ["capabilities": ["alwaysMatch": ["acceptInsecureCerts": false]]],
                timeout: startupTimeout)
        } catch let error as BiDiConnection.CommandError where error.code == "timeout" {
            throw .browserLaunchFailed("Firefox did not start a WebDriver BiDi session within \(startupTimeout)")
        } catch {
            // Firefox accepts one BiDi session: if another local program connected to the port
            // first, it holds the browser and this session must not go on.
            throw .browserLaunchFailed(
                "Firefox refused a WebDriver BiDi session (\(error)); another program on this machine may have "
                    + "connected to its port first")
        }
        let version = session["capabilities"]?["browserVersion"]?.stringValue ?? "unknown"
        logger.debug("BiDi session created", metadata: ["after": "\(ContinuousClock.now - started)"])
        if hasHeaders, let problem = headerSupportProblem(browserVersion: version) {
            throw .browserCannotHonor(problem)
        }

        do {
            let tree = try await connection.send("browsingContext.getTree", ["maxDepth": 0], timeout: .seconds(30))
            let contexts = tree["contexts"]?.arrayValue ?? []
            let blank = contexts.first { $0["url"]?.stringValue == "about:blank" } ?? contexts.first
            let context: String
            if let existing = blank?["context"]?.stringValue {
                context = existing
            } else {
                let created = try await connection.send(
                    "browsingContext.create", ["type": "tab"], timeout: .seconds(30))
                guard let id = created["context"]?.stringValue else {
                    throw WebAuthenticationSessionError.browserLaunchFailed(
                        "Firefox opened no tab for the authorization page")
                }
                context = id
            }
            try await connection.send("session.subscribe", ["events": .array(subscribedEvents)], timeout: .seconds(30))
            do {
                try await connection.send(
                    "network.addIntercept", ["phases": ["beforeRequestSent", "responseStarted"]], timeout: .seconds(30))
            } catch let error as BiDiConnection.CommandError where error.isUnknownCommand {
                throw WebAuthenticationSessionError.browserLaunchFailed(
                    "Firefox \(version) cannot intercept requests over WebDriver BiDi (network.addIntercept); "
                        + "use Firefox \(firstVersionModifyingHeaders) ESR or newer")
            }
            logger.debug("BiDi session set up", metadata: ["after": "\(ContinuousClock.now - started)"])
            return Result(context: context, browserVersion: version)
        } catch let error as WebAuthenticationSessionError {
            throw error
        } catch {
            throw .browserLaunchFailed("Firefox's WebDriver BiDi setup failed: \(error)")
        }
    }
}
