import Foundation
import Logging
import Synchronization
import WebAuthCore
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An authorization page in a Chromium the session launched: watches the page's navigations over
/// the DevTools pipe and turns what it sees into ``BrowserEvent``s; ``dismiss()`` closes the
/// browser, makes sure every process of its group has exited, and deletes an ephemeral profile.
///
/// One task (the *watch loop*) reads everything the browser reports, in order, and is the only
/// owner of the ``ChromiumNavigationWatcher``; replies to paused requests go out from child tasks
/// of that loop, so a slow answer never holds up the events behind it.
final class ChromiumPresentation: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>

    private let output: AsyncStream<BrowserEvent>.Continuation
    private let inputs: AsyncStream<Input>.Continuation
    private let instance: ChromiumInstance
    private let process: Subprocess
    private let profile: BrowserProfile
    private let profileLock: ChromiumProfileLock?
    private let logger: Logger
    private let state = Mutex(State())

    /// What the watch loop reads: the browser's events, and the ends of the pipe and the process.
    enum Input: Sendable {
        case event(DevToolsEvent)
        case pipeClosed(String)
        case exited(Int32)
        case navigate(URL)
    }

    private struct State: Sendable {
        /// `dismiss()` has begun: the browser going away is expected, not news.
        var dismissing = false
        /// A final event (closed by the user, failed) has been sent.
        var ended = false
        var teardown: Task<Void, Never>?
        var loop: Task<Void, Never>?
    }

    private init(
        instance: ChromiumInstance, process: Subprocess, profile: BrowserProfile, profileLock: ChromiumProfileLock?,
        inputs: AsyncStream<Input>.Continuation, logger: Logger
    ) {
        (events, output) = AsyncStream.makeStream(of: BrowserEvent.self)
        self.instance = instance
        self.process = process
        self.profile = profile
        self.profileLock = profileLock
        self.inputs = inputs
        self.logger = logger
    }

    // MARK: - Launching

    /// Starts `executable` for `request` and sends its page to the authorization URL.
    static func launch(
        executable: String, request: BrowserRequest, options: ChromiumBrowser.Options
    ) async throws(WebAuthenticationSessionError) -> ChromiumPresentation {
        let started = ContinuousClock.now
        let logger = options.logger
        let environment = options.environment
        let ephemeral = request.prefersEphemeralSession
        // Directories and files: on a thread of their own, not the concurrency pool.
        let prepared = await offPool { () -> Result<PreparedProfile, WebAuthenticationSessionError> in
            do throws(WebAuthenticationSessionError) {
                let profile: BrowserProfile
                var lock: ChromiumProfileLock?
                if ephemeral {
                    profile = try BrowserProfile.ephemeral(browser: "chromium", environment: environment)
                } else {
                    profile = try BrowserProfile.shared(browser: "chromium", environment: environment)
                    lock = try ChromiumProfileLock.acquire(profile: profile.directory)
                }
                let configured = ChromiumProfilePreferences.apply(to: profile.directory)
                return .success(PreparedProfile(profile: profile, lock: lock, configured: configured))
            } catch {
                return .failure(error)
            }
        }
        let ready = try prepared.get()
        let profile = ready.profile
        let profileLock = ready.lock
        if !ready.configured {
            logger.notice(
                "could not set the profile's preferences; chromium may preconnect to hosts it navigates to",
                metadata: ["profile": "\(profile.directory.path)"])
        }
        func discardProfile() async {
            await offPool { profile.remove() }
            profileLock?.release()
        }

        let pipe: DevToolsPipe
        do {
            pipe = try DevToolsPipe.make()
        } catch {
            await discardProfile()
            throw .browserLaunchFailed("cannot start chromium: \(error)")
        }
        let logFile = profile.directory.appendingPathComponent("webauth-chromium.log")
        unlink(logFile.path)  // one launch's output at a time
        let headless = options.runsHeadless
        let arguments = ChromiumLaunchArguments.make(
            profile: profile.directory, headless: headless, runningAsRoot: geteuid() == 0,
            extra: options.extraArguments)
        let process: Subprocess
        do {
            process = try Subprocess(
                executable: executable, arguments: arguments, environment: options.environment,
                descriptors: pipe.childDescriptors, output: logFile.path)
        } catch {
            pipe.close()
            await discardProfile()
            throw .browserLaunchFailed("cannot start \(executable): \(error)")
        }
        logger.debug(
            "chromium started",
            metadata: [
                "pid": "\(process.pid)", "executable": "\(executable)", "headless": "\(headless)",
                "ephemeral": "\(profile.isEphemeral)",
            ])

        let (inputStream, inputs) = AsyncStream.makeStream(of: Input.self)
        let connection = DevToolsConnection(
            pipe: pipe, onEvent: { inputs.yield(.event($0)) }, onClose: { inputs.yield(.pipeClosed($0)) })
        Task {
            let status = await process.exitStatus()
            inputs.yield(.exited(status))
        }

        let page: PreparedPage
        do {
            page = try await prepare(
                connection: connection, process: process, logFile: logFile, deadline: started + options.launchTimeout,
                timeout: options.launchTimeout)
        } catch {
            connection.close()
            inputs.finish()
            await process.terminate(grace: .seconds(1))
            await ChromiumProcessGroup.waitUntilGone(process.pid, within: .seconds(2))
            await discardProfile()
            logger.debug("chromium did not start", metadata: ["reason": "\(error.message)"])
            throw error
        }

        let instance = ChromiumInstance(
            pid: process.pid, profileDirectory: profile.directory, isEphemeral: profile.isEphemeral,
            pageTargetID: page.targetID, pageSessionID: page.sessionID, connection: connection)
        instance.record(.launchStarted, at: started)
        instance.record(.browserAnswered, at: page.browserAnswered)
        let presentation = ChromiumPresentation(
            instance: instance, process: process, profile: profile, profileLock: profileLock, inputs: inputs,
            logger: logger)
        let watcher = ChromiumNavigationWatcher(
            callback: request.callback, mainFrameID: page.mainFrameID, authorizationURL: request.url,
            additionalHeaderFields: request.additionalHeaderFields)
        let loop = Task { await presentation.watch(inputStream, watcher: watcher) }
        presentation.state.withLock { $0.loop = loop }
        options.launchObserver?(instance)
        inputs.yield(.navigate(request.url))
        logger.debug("chromium is opening the page", metadata: ["url": "\(request.url.redactedForLogs)"])
        return presentation
    }

    /// A profile ready for the browser.
    private struct PreparedProfile: Sendable {
        var profile: BrowserProfile
        var lock: ChromiumProfileLock?
        var configured: Bool
    }

    /// Runs blocking `work` (file system, a profile's hundreds of files) on a thread of its own,
    /// so that no thread of the concurrency pool waits for the disk.
    static func offPool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// The page a launched browser is ready to use.
    private struct PreparedPage: Sendable {
        var targetID: String
        var sessionID: String
        var mainFrameID: String
        var browserAnswered: ContinuousClock.Instant
    }

    /// Waits for the browser to answer, finds its page, attaches to it and sets up interception.
    private static func prepare(
        connection: DevToolsConnection, process: Subprocess, logFile: URL, deadline: ContinuousClock.Instant,
        timeout: Duration
    ) async throws(WebAuthenticationSessionError) -> PreparedPage {
        let answered: ContinuousClock.Instant
        do {
            _ = try await connection.send("Browser.getVersion", timeout: timeout)
            answered = .now
        } catch .timedOut {
            throw .browserLaunchFailed(
                "chromium did not answer on its DevTools pipe within \(timeout)\(logTail(logFile))")
        } catch {
            // The pipe closed: the browser exited while starting. Say how, if it says soon.
            let exited = await waitForExit(process, within: .seconds(2))
            let how = exited.map { " (\(Subprocess.describe(status: $0)))" } ?? ""
            throw .browserLaunchFailed("chromium exited while starting\(how)\(logTail(logFile))")
        }
        do {
            try await connection.send("Target.setDiscoverTargets", ["discover": true], timeout: timeout)
            var targetID: String?
            while targetID == nil {
                let targets = try await connection.send("Target.getTargets", timeout: timeout)
                let pages = (targets["targetInfos"]?.arrayValue ?? []).filter { $0["type"]?.stringValue == "page" }
                let blank = pages.first { $0["url"]?.stringValue == ChromiumLaunchArguments.initialPage }
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
            return PreparedPage(
                targetID: targetID, sessionID: sessionID, mainFrameID: mainFrameID, browserAnswered: answered)
        } catch {
            throw .browserLaunchFailed("chromium started but could not be prepared: \(error)\(logTail(logFile))")
        }
    }

    /// The last lines the browser wrote, as `: …` for an error message, or nothing.
    private static func logTail(_ file: URL) -> String {
        guard let data = try? Data(contentsOf: file), !data.isEmpty else { return "" }
        let text = String(decoding: data.suffix(4096), as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.suffix(3)
        let tail = lines.joined(separator: " / ")
        guard !tail.isEmpty else { return "" }
        return ": " + (tail.count > 600 ? "…" + String(tail.suffix(600)) : tail)
    }

    /// The exit status, once the process has exited, or `nil` if it is still running after
    /// `limit`. Polls, because waiting for the exit cannot be cancelled.
    private static func waitForExit(_ process: Subprocess, within limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while !process.hasExited {
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await process.exitStatus()
    }

    // MARK: - Watching

    private func watch(_ inputs: AsyncStream<Input>, watcher initial: ChromiumNavigationWatcher) async {
        var watcher = initial
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
                        let decision = watcher.decide(paused.request)
                        group.addTask { await self.carry(out: decision, requestID: paused.requestID) }
                    case "Page.frameRequestedNavigation", "Page.frameStartedNavigating":
                        guard let frameID = event.params["frameId"]?.stringValue,
                            let url = event.params["url"]?.stringValue,
                            let callback = watcher.navigationStarted(frameID: frameID, url: url)
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
                    guard !isDismissing else { continue }
                    logger.debug("the DevTools pipe closed", metadata: ["reason": "\(reason)"])
                    // The process's exit usually follows at once and says more; wait for it a little.
                    group.addTask {
                        if await Self.waitForExit(self.process, within: .seconds(3)) == nil {
                            self.end(.failed("chromium stopped answering on its DevTools pipe (\(reason))"))
                        }
                    }

                case .exited(let status):
                    end(.failed("chromium exited unexpectedly (\(Subprocess.describe(status: status)))"))
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
    private func carry(out decision: ChromiumNavigationWatcher.Decision, requestID: String) async {
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
    ) -> (requestID: String, request: ChromiumNavigationWatcher.PausedRequest)? {
        guard let requestID = params["requestId"]?.stringValue, let request = params["request"],
            let url = request["url"]?.stringValue
        else { return nil }
        var headers: [String: String] = [:]
        for (name, value) in request["headers"]?.objectValue ?? [:] {
            if let value = value.stringValue { headers[name] = value }
        }
        var response: ChromiumNavigationWatcher.Response?
        if let status = params["responseStatusCode"]?.intValue {
            let fields = (params["responseHeaders"]?.arrayValue ?? []).compactMap { field in
                field["name"]?.stringValue.flatMap { name in
                    field["value"]?.stringValue.map { ChromiumNavigationWatcher.Header(name: name, value: $0) }
                }
            }
            response = .init(status: status, headers: fields)
        }
        let paused = ChromiumNavigationWatcher.PausedRequest(
            url: url, frameID: params["frameId"]?.stringValue ?? "",
            resourceType: params["resourceType"]?.stringValue ?? "", headers: headers, response: response)
        return (requestID, paused)
    }

    // MARK: - Reporting

    private var isDismissing: Bool { state.withLock { $0.dismissing } }

    private func deliverCallback(_ url: URL) {
        guard !isDismissing else { return }
        instance.record(.callbackCaught)
        output.yield(.callback(url))
    }

    /// Reports a final event once, unless the session is already tearing down.
    private func end(_ event: BrowserEvent) {
        let report = state.withLock { state -> Bool in
            guard !state.dismissing, !state.ended else { return false }
            state.ended = true
            return true
        }
        guard report else { return }
        logger.debug("chromium presentation ended", metadata: ["event": "\(event)"])
        output.yield(event)
    }

    // MARK: - Dismissing

    /// Closes the browser (`Browser.close`, then the process group is ended), waits until every
    /// process of the group has exited, and removes an ephemeral profile. Idempotent: a second
    /// call waits for the first to finish.
    func dismiss() async {
        let teardown = state.withLock { state -> Task<Void, Never> in
            if let teardown = state.teardown { return teardown }
            state.dismissing = true
            let teardown = Task { await self.tearDown() }
            state.teardown = teardown
            return teardown
        }
        await teardown.value
    }

    private func tearDown() async {
        let connection = instance.connection
        if !process.hasExited, !connection.isClosed {
            _ = try? await connection.send("Browser.close", timeout: .seconds(2))
            _ = await Self.waitForExit(process, within: .seconds(3))
        }
        await process.terminate(grace: .seconds(2))  // the group, helpers included
        connection.close()
        inputs.finish()
        await state.withLock({ $0.loop })?.value
        output.finish()
        let gone = await ChromiumProcessGroup.waitUntilGone(process.pid, within: .seconds(3))
        if !gone {
            logger.warning(
                "chromium helpers still running after the browser exited", metadata: ["group": "\(process.pid)"])
        }
        await removeProfile()
        profileLock?.release()
        logger.debug("chromium dismissed", metadata: ["pid": "\(process.pid)"])
    }

    /// Removes an ephemeral profile, on a thread of its own (a browser profile is hundreds of
    /// files); retries briefly in case a helper was still writing into it.
    private func removeProfile() async {
        guard profile.isEphemeral else { return }
        let profile = profile
        for _ in 0..<5 {
            let removed = await Self.offPool {
                profile.remove()
                return !FileManager.default.fileExists(atPath: profile.directory.path)
            }
            if removed { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
        logger.warning("could not remove the ephemeral profile", metadata: ["path": "\(profile.directory.path)"])
    }
}
