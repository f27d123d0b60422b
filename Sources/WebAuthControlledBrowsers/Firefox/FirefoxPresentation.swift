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

/// The authorization page open in a Firefox that a ``FirefoxBrowser`` started and steers over
/// WebDriver BiDi.
///
/// Its ``events`` report a callback the browser was stopped at, the person closing the tab or
/// quitting Firefox (``BrowserEvent/closedByUser``), and Firefox crashing or exiting on its own
/// (``BrowserEvent/failed(_:)``). ``dismiss()`` closes Firefox, makes sure every process of its
/// group has exited, and removes an ephemeral profile.
package final class FirefoxPresentation: BrowserPresentation {
    /// What the browser observes. Finishes when the session dismisses the page or Firefox ends.
    package let events: AsyncStream<BrowserEvent>

    /// The Firefox process, which leads a process group of its own.
    package var processID: pid_t { process.pid }
    /// The profile directory Firefox runs with.
    package var profileDirectory: URL { profile.directory }
    /// The browser's version, as Firefox reports it (such as `153.7.0`).
    package let browserVersion: String
    /// When ``FirefoxBrowser/present(_:)`` began.
    package let launchStartedAt: ContinuousClock.Instant
    /// When Firefox announced its WebDriver BiDi endpoint.
    package let endpointReadyAt: ContinuousClock.Instant
    /// When the WebDriver BiDi session was set up (session, subscriptions, intercept).
    package let sessionReadyAt: ContinuousClock.Instant
    /// When the session's tab started its first navigation, if it has.
    package var firstNavigationAt: ContinuousClock.Instant? { state.withLock(\.firstNavigationAt) }
    /// When the first callback was intercepted, if one was.
    package var callbackInterceptedAt: ContinuousClock.Instant? { state.withLock(\.callbackInterceptedAt) }

    private let continuation: AsyncStream<BrowserEvent>.Continuation
    private let process: Subprocess
    private let connection: BiDiConnection
    private let profile: BrowserProfile
    private let outputFile: URL
    private let watchdog: FirefoxWatchdog?
    private let context: String
    private let logger: Logger
    private let state = Mutex(State())

    private struct State: Sendable {
        var ending = false
        var finished = false
        var dismissal: Task<Void, Never>?
        var firstNavigationAt: ContinuousClock.Instant?
        var callbackInterceptedAt: ContinuousClock.Instant?
    }

    init(
        process: Subprocess, connection: BiDiConnection, profile: BrowserProfile, outputFile: URL,
        watchdog: FirefoxWatchdog?, context: String, browserVersion: String, launchStartedAt: ContinuousClock.Instant,
        endpointReadyAt: ContinuousClock.Instant, sessionReadyAt: ContinuousClock.Instant, logger: Logger
    ) {
        (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        self.process = process
        self.connection = connection
        self.profile = profile
        self.outputFile = outputFile
        self.watchdog = watchdog
        self.context = context
        self.browserVersion = browserVersion
        self.launchStartedAt = launchStartedAt
        self.endpointReadyAt = endpointReadyAt
        self.sessionReadyAt = sessionReadyAt
        self.logger = logger
    }

    /// Starts reacting to Firefox's events with `interceptor`, and watching the process.
    func start(with interceptor: NavigationInterceptor) {
        Task { [self] in
            var interceptor = interceptor
            for await event in connection.events {
                let reaction = interceptor.react(to: event)
                if let command = reaction.command { connection.post(command.method, command.params) }
                if reaction.isFirstNavigation {
                    state.withLock { $0.firstNavigationAt = $0.firstNavigationAt ?? .now }
                }
                if let browserEvent = reaction.event {
                    if case .closedByUser = browserEvent {
                        logger.debug("the session's tab was closed")
                    } else {
                        state.withLock { $0.callbackInterceptedAt = $0.callbackInterceptedAt ?? .now }
                        logger.debug("navigation stopped at the callback")
                    }
                    report(browserEvent, isLast: browserEvent == .closedByUser)
                }
            }
            await browserWentAway(reason: "closed its WebDriver BiDi connection")
        }
        Task { [self] in
            _ = await process.exitStatus()
            await browserWentAway(reason: "exited")
        }
    }

    /// Sends `event` to the session unless the page is being dismissed; a closed tab or a failure
    /// is the last event.
    private func report(_ event: BrowserEvent, isLast: Bool) {
        let deliver = state.withLock { state -> Bool in
            guard !state.ending, !state.finished else { return false }
            if isLast { state.finished = true }
            return true
        }
        guard deliver else { return }
        continuation.yield(event)
        if isLast { continuation.finish() }
    }

    /// Firefox went away without being asked: the person quit it (exit status 0), or it crashed.
    private func browserWentAway(reason: String) async {
        guard !state.withLock({ $0.ending || $0.finished }) else { return }
        // The socket usually closes a moment before the process is reaped; wait for the status.
        let deadline = ContinuousClock.now + .seconds(3)
        while !process.hasExited && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard process.hasExited else {
            report(.failed("firefox \(reason) unexpectedly"), isLast: true)
            return
        }
        let status = await process.exitStatus()
        if status == 0 {
            logger.debug("firefox was quit")
            report(.closedByUser, isLast: true)
        } else {
            report(.failed("firefox exited unexpectedly (\(Subprocess.describe(status: status)))"), isLast: true)
        }
    }

    /// Closes Firefox and cleans up, then returns; idempotent. With a shared profile Firefox is
    /// asked to quit (`browser.close`) and given a few seconds, so that it writes the cookies the
    /// person will want next time; an ephemeral profile holds nothing worth a clean shutdown, so
    /// its Firefox is ended at once. Either way the whole process group is then ended and waited
    /// for, and the ephemeral profile and the output file are removed.
    package func dismiss() async {
        let task = state.withLock { state -> Task<Void, Never> in
            if let existing = state.dismissal { return existing }
            state.ending = true
            let task = Task { await self.close() }
            state.dismissal = task
            return task
        }
        continuation.finish()
        await task.value
    }

    private func close() async {
        let started = ContinuousClock.now
        if !profile.isEphemeral && !process.hasExited && connection.isOpen {
            do {
                try await connection.send("browser.close", [:], timeout: .seconds(3))
            } catch {
                logger.debug("browser.close failed", metadata: ["error": "\(error)"])
            }
            let deadline = ContinuousClock.now + .seconds(5)
            while !process.hasExited && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        await watchdog?.disarm()
        await process.terminate(grace: profile.isEphemeral ? .zero : .seconds(2))
        await Self.waitForProcessGroupToEnd(process.pid)
        await connection.close()
        profile.remove()
        try? FileManager.default.removeItem(at: outputFile)
        logger.debug(
            "firefox dismissed", metadata: ["pid": "\(process.pid)", "after": "\(ContinuousClock.now - started)"])
    }

    /// Waits (at most `limit`) until no process of `group` is still running. Helpers that
    /// outlived Firefox were killed by ``Subprocess/terminate(grace:)``; as orphans they are
    /// reaped by the system's init, which may take a moment (and is not ours to do), so dead
    /// (zombie) members do not count. Without `/proc`, any member counts.
    static func waitForProcessGroupToEnd(_ group: pid_t, limit: Duration = .seconds(3)) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let running = runningMembers(ofProcessGroup: group) {
                if running.isEmpty { return }
            } else if kill(-group, 0) == -1 && errno == ESRCH {
                return
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The processes of `group` that have not exited, from `/proc`; `nil` without `/proc`.
    static func runningMembers(ofProcessGroup group: pid_t) -> [pid_t]? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "(command)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, pid_t(fields[2]) == group, fields[0] != "Z", fields[0] != "X" else { return nil }
            return pid
        }
    }

    /// Test hook: closes the session's tab as the person would, with `window.close()` in the
    /// page. Firefox then closes its only window and quits. Needs the preference
    /// `dom.allow_scripts_to_close_windows` (BiDi's `browsingContext.close` does not close a
    /// window's last tab).
    package func closeTabAsThePersonWould() {
        // Not awaited: Firefox may quit before it answers.
        connection.post(
            "script.evaluate",
            ["expression": "window.close()", "target": ["context": .string(context)], "awaitPromise": false])
    }
}

extension FirefoxPresentation {
    /// Launches Firefox for `request` and opens `url` in it. Everything started is stopped and
    /// removed again if a step fails.
    static func open(
        url: String, request: BrowserRequest, executable: String, options: FirefoxBrowser.Options
    ) async throws(WebAuthenticationSessionError) -> FirefoxPresentation {
        let started = ContinuousClock.now
        let logger = options.logger
        let environment = options.environment
        let profile: BrowserProfile
        if request.prefersEphemeralSession {
            profile = try BrowserProfile.ephemeral(browser: "firefox", environment: environment)
        } else {
            profile = try BrowserProfile.shared(browser: "firefox", environment: environment)
            if let holder = FirefoxProfileSetup.lockHolder(in: profile.directory) {
                throw .browserLaunchFailed(
                    "the shared Firefox profile \(profile.directory.path) is in use by another Firefox (process "
                        + "\(holder)); finish or cancel that sign-in first, or use an ephemeral session")
            }
        }
        var cleanup = Cleanup(profile: profile)
        do throws(WebAuthenticationSessionError) {
            let token = (0..<2).map { _ in String(format: "%016llx", UInt64.random(in: .min ... .max)) }.joined()
            let handlerPrefix = FirefoxProfileSetup.schemeHandlerPrefix(token: token)
            let customScheme = request.callback.isCustomScheme ? request.callback.scheme : nil
            var preferences = FirefoxBrowser.defaultPreferences
            if let customScheme { preferences["network.protocol-handler.external.\(customScheme)"] = true }
            preferences.merge(options.extraPreferences) { _, user in user }
            try FirefoxProfileSetup.prepare(
                directory: profile.directory, preferences: preferences, customScheme: customScheme,
                handlerPrefix: handlerPrefix)

            let outputFile = try FirefoxLauncher.makeOutputFile(environment: environment)
            cleanup.outputFile = outputFile
            var childEnvironment = environment
            // No crash-report dialog or upload; remote settings off (see defaultPreferences).
            for (name, value) in ["MOZ_CRASHREPORTER_DISABLE": "1", "MOZ_REMOTE_SETTINGS_DEVTOOLS": "1"]
            where childEnvironment[name] == nil {
                childEnvironment[name] = value
            }
            let arguments = FirefoxLauncher.arguments(
                profile: profile.directory, headless: options.runsHeadless, extra: options.extraArguments)
            let process: Subprocess
            do {
                process = try Subprocess(
                    executable: executable, arguments: arguments, environment: childEnvironment,
                    output: outputFile.path)
            } catch {
                throw .browserLaunchFailed("could not start \(executable): \(error)")
            }
            cleanup.process = process
            let removable = (profile.isEphemeral ? [profile.directory.path] : []) + [outputFile.path]
            cleanup.watchdog = try? FirefoxWatchdog(group: process.pid, removing: removable)
            logger.debug(
                "firefox started",
                metadata: [
                    "pid": "\(process.pid)", "profile": "\(profile.isEphemeral ? "ephemeral" : "shared")",
                    "headless": "\(options.runsHeadless)",
                ])

            let endpoint = await FirefoxLauncher.waitForEndpoint(
                outputFile: outputFile.path, process: process, timeout: options.launchTimeout)
            let endpointReady = ContinuousClock.now
            let host: String
            let port: Int
            switch endpoint {
            case .ready(let readyHost, let readyPort):
                (host, port) = (readyHost, readyPort)
            case .exited:
                let status = await process.exitStatus()
                let tail = FirefoxLauncher.outputTail(of: outputFile.path)
                throw .browserLaunchFailed(
                    "firefox exited (\(Subprocess.describe(status: status))) before WebDriver BiDi was ready"
                        + (tail.isEmpty ? "" : ": \(tail)"))
            case .timedOut:
                throw .browserLaunchFailed(
                    "firefox did not open WebDriver BiDi within \(options.launchTimeout); output: "
                        + FirefoxLauncher.outputTail(of: outputFile.path))
            case .cancelled:
                throw .canceled(.program)
            }

            let socket: WebSocketClient
            do {
                socket = try await WebSocketClient.connect(host: host, port: port, path: "/session")
            } catch {
                throw .browserLaunchFailed("cannot connect to Firefox's WebDriver BiDi endpoint: \(error)")
            }
            let connection = BiDiConnection(socket: socket, logger: logger)
            cleanup.connection = connection
            let setup = try await BiDiSessionSetup.run(
                on: connection, callback: request.callback, hasHeaders: !request.additionalHeaderFields.isEmpty,
                startupTimeout: max(options.launchTimeout - (ContinuousClock.now - started), .seconds(10)),
                logger: logger)

            let presentation = FirefoxPresentation(
                process: process, connection: connection, profile: profile, outputFile: outputFile,
                watchdog: cleanup.watchdog, context: setup.context, browserVersion: setup.browserVersion,
                launchStartedAt: started, endpointReadyAt: endpointReady, sessionReadyAt: .now, logger: logger)
            presentation.start(
                with: NavigationInterceptor(
                    callback: request.callback, context: setup.context,
                    additionalHeaderFields: request.additionalHeaderFields, schemeHandlerPrefix: handlerPrefix))
            connection.post(
                "browsingContext.navigate", ["context": .string(setup.context), "url": .string(url), "wait": "none"])
            logger.debug(
                "opening the authorization page in firefox",
                metadata: ["url": "\(request.url.redactedForLogs)", "version": "\(setup.browserVersion)"])
            options.presentationObserver?(presentation)
            return presentation
        } catch {
            await cleanup.run()
            throw error
        }
    }

    /// What a failed launch leaves to undo.
    private struct Cleanup {
        var profile: BrowserProfile
        var outputFile: URL?
        var process: Subprocess?
        var watchdog: FirefoxWatchdog?
        var connection: BiDiConnection?

        func run() async {
            await watchdog?.disarm()
            await process?.terminate(grace: profile.isEphemeral ? .zero : .seconds(2))
            if let process { await FirefoxPresentation.waitForProcessGroupToEnd(process.pid) }
            await connection?.close()
            profile.remove()
            if let outputFile { try? FileManager.default.removeItem(at: outputFile) }
        }
    }
}
