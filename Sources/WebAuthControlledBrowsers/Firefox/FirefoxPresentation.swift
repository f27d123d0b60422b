// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import Logging
package import WebAuthCore
import WebAuthPlatform
import WebAuthProcess

/// The authorization page open in a Firefox the session launched (``FirefoxLauncher``) and steers
/// over WebDriver BiDi.
///
/// Its ``events`` report a callback the browser was stopped at, the person closing the tab or
/// quitting Firefox (``BrowserEvent/closedByUser``), and Firefox crashing or exiting on its own
/// (``BrowserEvent/failed(_:)``). ``dismiss()`` stops the browser
/// (``LaunchedBrowser/stop(connection:)``).
package final class FirefoxPresentation: BrowserPresentation {
    /// What the browser observes. Finishes when the session dismisses the page or Firefox ends.
    package var events: AsyncStream<BrowserEvent> { reporter.stream }

    /// The Firefox process, which leads a process group of its own.
    package var processID: Int32 { browser.process.pid }
    /// The profile directory Firefox runs with.
    package var profileDirectory: URL { browser.profile.directory }
    /// The browser's version, as Firefox reports it (such as `153.7.0`).
    package let browserVersion: String
    /// When ``FirefoxBrowser/present(_:)`` began.
    package let launchStartedAt: ContinuousClock.Instant
    /// When Firefox announced its WebDriver BiDi endpoint.
    package let endpointReadyAt: ContinuousClock.Instant
    /// When the WebDriver BiDi session was set up (session, subscriptions, intercept).
    package let sessionReadyAt: ContinuousClock.Instant
    /// When the session's tab started its first navigation, if it has.
    package var firstNavigationAt: ContinuousClock.Instant? { milestones.withLock(\.firstNavigationAt) }
    /// When the first callback was intercepted, if one was.
    package var callbackInterceptedAt: ContinuousClock.Instant? { milestones.withLock(\.callbackInterceptedAt) }

    private let browser: LaunchedBrowser
    let connection: BiDiConnection
    let context: String
    private let reporter = PresentationEvents()
    private let logger: Logger
    private let milestones = Locked(Milestones())

    private struct Milestones: Sendable {
        var firstNavigationAt: ContinuousClock.Instant?
        var callbackInterceptedAt: ContinuousClock.Instant?
    }

    init(
        browser: LaunchedBrowser, connection: BiDiConnection, context: String, browserVersion: String,
        launchStartedAt: ContinuousClock.Instant, endpointReadyAt: ContinuousClock.Instant,
        sessionReadyAt: ContinuousClock.Instant, logger: Logger
    ) {
        self.browser = browser
        self.connection = connection
        self.context = context
        self.browserVersion = browserVersion
        self.launchStartedAt = launchStartedAt
        self.endpointReadyAt = endpointReadyAt
        self.sessionReadyAt = sessionReadyAt
        self.logger = logger
    }

    /// Starts reacting to Firefox's events with `interceptor`, and watching the process.
    func start(with interceptor: FirefoxNavigationInterceptor) {
        Task { [self] in
            var interceptor = interceptor
            for await event in connection.events {
                let reaction = interceptor.react(to: event)
                if let command = reaction.command { connection.post(command.method, command.params) }
                if reaction.isFirstNavigation {
                    milestones.withLock { $0.firstNavigationAt = $0.firstNavigationAt ?? .now }
                }
                if let browserEvent = reaction.event {
                    if browserEvent == .closedByUser {
                        logger.debug("the session's tab was closed")
                        reporter.end(browserEvent)
                    } else {
                        milestones.withLock { $0.callbackInterceptedAt = $0.callbackInterceptedAt ?? .now }
                        logger.debug("navigation stopped at the callback")
                        reporter.deliver(browserEvent)
                    }
                }
            }
            guard reporter.isOpen else { return }
            reporter.end(await browser.wentAway(connectionEnded: "closed its WebDriver BiDi connection"))
        }
        Task { [self] in
            _ = await browser.process.exitStatus()
            guard reporter.isOpen else { return }
            reporter.end(await browser.wentAway(connectionEnded: nil))
        }
    }

    /// Stops Firefox (``LaunchedBrowser/stop(connection:)``), then returns; idempotent.
    package func dismiss() async {
        await reporter.dismiss { [self] in await browser.stop(connection: connection) }
    }
}
