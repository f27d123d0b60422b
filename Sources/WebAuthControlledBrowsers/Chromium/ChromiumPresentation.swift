// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore
import WebAuthPlatform
import WebAuthProcess

/// An authorization page in a Chromium the session launched (``ChromiumLauncher``): watches the
/// page's navigations over the DevTools pipe and turns what it sees into ``BrowserEvent``s;
/// ``dismiss()`` stops the browser (``LaunchedBrowser/stop(connection:)``).
///
/// One task (the *watch loop*) reads everything the browser reports, in order, and is the only
/// owner of the ``ChromiumNavigationInterceptor``; replies to paused requests go out from child
/// tasks of that loop, so a slow answer never holds up the events behind it.
final class ChromiumPresentation: BrowserPresentation {
    var events: AsyncStream<BrowserEvent> { reporter.stream }

    private let browser: LaunchedBrowser
    private let instance: ChromiumInstance
    private let inputs: AsyncStream<Input>.Continuation
    private let reporter = PresentationEvents()
    private let logger: Logger
    private let loop = Locked<Task<Void, Never>?>(nil)

    /// What the watch loop reads: the browser's events, the ends of the pipe and the process, and
    /// the first navigation to send.
    enum Input: Sendable {
        case event(DevToolsEvent)
        case pipeClosed(String)
        case exited(Int32)
        case navigate(URL)
    }

    init(
        browser: LaunchedBrowser, instance: ChromiumInstance, inputs: AsyncStream<Input>.Continuation, logger: Logger
    ) {
        self.browser = browser
        self.instance = instance
        self.inputs = inputs
        self.logger = logger
    }

    /// Starts the watch loop over `inputs`, deciding with `interceptor`.
    func start(watching inputs: AsyncStream<Input>, with interceptor: ChromiumNavigationInterceptor) {
        let task = Task { await self.watch(inputs, interceptor: interceptor) }
        loop.withLock { $0 = task }
    }

    // MARK: - Watching

    private func watch(_ inputs: AsyncStream<Input>, interceptor initial: ChromiumNavigationInterceptor) async {
        var interceptor = initial
        let pageSession = instance.pageSessionID
        let pageTarget = instance.pageTargetID
        await withDiscardingTaskGroup { group in
            for await input in inputs {
                switch input {
                case .navigate(let url):
                    group.addTask { await self.navigate(to: url) }

                case .event(let event) where event.sessionID == pageSession:
                    switch event.method {
                    case "Fetch.requestPaused":
                        guard let paused = Self.pausedRequest(event.params) else { continue }
                        let decision = interceptor.decide(paused.request)
                        group.addTask { await self.carry(out: decision, requestID: paused.requestID) }
                    case "Page.frameRequestedNavigation", "Page.frameStartedNavigating":
                        guard let frameID = event.params["frameId"]?.stringValue,
                            let url = event.params["url"]?.stringValue,
                            let callback = interceptor.navigationStarted(frameID: frameID, url: url)
                        else { continue }
                        logger.debug(
                            "caught a navigation to the callback",
                            metadata: ["url": "\(callback.redactedForLogs)", "event": "\(event.method)"])
                        deliverCallback(callback)
                    case "Page.frameNavigated":
                        if event.params["frame"]?["parentId"] == nil, instance.time(of: .navigationSent) != nil {
                            instance.record(.navigationCommitted)
                        }
                    case "Inspector.targetCrashed":
                        end(.failed("the authorization page crashed in chromium"))
                    default:
                        break
                    }

                case .event(let event):
                    switch event.method {
                    case "Target.targetDestroyed" where event.params["targetId"]?.stringValue == pageTarget,
                        "Target.detachedFromTarget" where event.params["sessionId"]?.stringValue == pageSession:
                        logger.debug("the page was closed", metadata: ["event": "\(event.method)"])
                        end(.closedByUser)
                    case "Target.targetCrashed" where event.params["targetId"]?.stringValue == pageTarget:
                        end(.failed("the authorization page crashed in chromium"))
                    default:
                        break
                    }

                case .pipeClosed(let reason):
                    guard reporter.isOpen else { continue }
                    logger.debug("the DevTools pipe closed", metadata: ["reason": "\(reason)"])
                    group.addTask {
                        self.end(await self.browser.wentAway(connectionEnded: "closed its DevTools pipe (\(reason))"))
                    }

                case .exited:
                    guard reporter.isOpen else { continue }
                    group.addTask { self.end(await self.browser.wentAway(connectionEnded: nil)) }
                }
            }
        }
    }

    /// Sends the page to the authorization URL.
    private func navigate(to url: URL) async {
        instance.record(.navigationSent)
        do {
            let result = try await instance.connection.send(
                "Page.navigate", ["url": .string(url.absoluteString)], sessionID: instance.pageSessionID)
            if let error = result["errorText"]?.stringValue, error != "net::ERR_ABORTED" {
                // The page shows the error; the person can retry from there.
                logger.notice(
                    "chromium could not load the authorization page",
                    metadata: ["url": "\(url.redactedForLogs)", "error": "\(error)"])
            }
        } catch {
            logger.debug("navigation not sent", metadata: ["reason": "\(error)"])
        }
    }

    /// Answers a paused request as `decision` says.
    private func carry(out decision: ChromiumNavigationInterceptor.Decision, requestID: String) async {
        let connection = instance.connection
        let session = instance.pageSessionID
        let id: [String: JSONValue] = ["requestId": .string(requestID)]
        switch decision {
        case .continueRequest:
            _ = try? await connection.send("Fetch.continueRequest", id, sessionID: session)
        case .continueResponse:
            _ = try? await connection.send("Fetch.continueResponse", id, sessionID: session)
        case .continueRequestWithHeaders(let headers):
            var params = id
            params["headers"] = .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] })
            do {
                try await connection.send("Fetch.continueRequest", params, sessionID: session)
                logger.debug("sent the additional header fields", metadata: ["count": "\(headers.count)"])
            } catch {
                // An invalid field: send the request without any rather than leave it hanging.
                logger.notice("chromium refused the additional header fields", metadata: ["reason": "\(error)"])
                _ = try? await connection.send("Fetch.continueRequest", id, sessionID: session)
            }
        case .stop(let callback):
            var params = id
            params["errorReason"] = "Aborted"
            _ = try? await connection.send("Fetch.failRequest", params, sessionID: session)
            logger.debug("stopped the request to the callback", metadata: ["url": "\(callback.redactedForLogs)"])
            deliverCallback(callback)
        }
    }

    /// Reads `Fetch.requestPaused` parameters.
    private static func pausedRequest(
        _ params: [String: JSONValue]
    ) -> (requestID: String, request: ChromiumNavigationInterceptor.PausedRequest)? {
        guard let requestID = params["requestId"]?.stringValue, let request = params["request"],
            let url = request["url"]?.stringValue
        else { return nil }
        var headers: [String: String] = [:]
        for (name, value) in request["headers"]?.objectValue ?? [:] {
            if let value = value.stringValue { headers[name] = value }
        }
        var response: ChromiumNavigationInterceptor.Response?
        if let status = params["responseStatusCode"]?.intValue {
            let fields = (params["responseHeaders"]?.arrayValue ?? []).compactMap { field in
                field["name"]?.stringValue.flatMap { name in
                    field["value"]?.stringValue.map { ChromiumNavigationInterceptor.Header(name: name, value: $0) }
                }
            }
            response = .init(status: status, headers: fields)
        }
        let paused = ChromiumNavigationInterceptor.PausedRequest(
            url: url, frameID: params["frameId"]?.stringValue ?? "",
            resourceType: params["resourceType"]?.stringValue ?? "", headers: headers, response: response)
        return (requestID, paused)
    }

    // MARK: - Reporting

    private func deliverCallback(_ url: URL) {
        if reporter.deliver(.callback(url)) { instance.record(.callbackCaught) }
    }

    /// Reports a final event once, unless the session is already tearing down.
    private func end(_ event: BrowserEvent) {
        if reporter.end(event) { logger.debug("chromium presentation ended", metadata: ["event": "\(event)"]) }
    }

    // MARK: - Dismissing

    /// Stops the browser (``LaunchedBrowser/stop(connection:)``) and ends the watch loop.
    /// Idempotent: a second call waits for the first to finish.
    func dismiss() async {
        await reporter.dismiss { [self] in
            await browser.stop(connection: instance.connection)
            inputs.finish()
            await loop.withLock({ $0 })?.value
        }
    }
}
