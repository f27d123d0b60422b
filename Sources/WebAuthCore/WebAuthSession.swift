// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Logging
import WebAuthPlatform

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A session that authenticates a person through a web service, in a real browser, and hands
/// the callback URL back to the program — `ASWebAuthenticationSession` for Swift on Linux.
///
/// Create it with the authorization URL (or a builder that gets the redirect URI first) and a
/// ``Callback``, then either `await` ``authenticate()`` or, as on Apple platforms, call
/// ``start()`` and receive the result in the completion handler:
///
/// ```swift
/// import WebAuth
///
/// let session = WebAuthSession(callback: .loopback(path: "/callback")) { redirectURI in
///     var components = URLComponents(string: "https://auth.example.com/authorize")!
///     components.queryItems = [
///         .init(name: "client_id", value: "my-cli"),
///         .init(name: "redirect_uri", value: redirectURI.absoluteString),
///     ]
///     return components.url!
/// }
/// session.timeout = .seconds(300)
/// let callbackURL = try await session.authenticate().url
/// ```
///
/// ## Semantics
/// - A session runs once: ``start()`` returns `true` the first time only, and `false` once the
///   session has been started or cancelled. ``canStart`` tells without starting.
/// - The result is delivered exactly once, after the session has torn down what it opened (the
///   loopback port is released and the browser dismissed, where the browser can be).
/// - A started session keeps itself alive until it completes; you need not hold a reference.
/// - ``cancel()`` ends a running session with ``WebAuthenticationSessionError/Code/canceledLogin``
///   and reason ``WebAuthenticationSessionError/CancellationReason/program``. Cancelling the task
///   that awaits ``authenticate()`` does the same. Cancelling before starting makes ``start()``
///   return `false` and delivers nothing.
/// - Settings (``prefersEphemeralWebBrowserSession``, ``additionalHeaderFields``, ``timeout``, …)
///   are read when the session starts; changing them afterwards has no effect.
public final class WebAuthSession: Sendable {
    /// The completion handler's type: the callback URL, or why there is none.
    public typealias CompletionHandler = @Sendable (Result<ReceivedCallback, WebAuthenticationSessionError>) -> Void

    /// The callback this session waits for.
    public let callback: Callback

    private let authorizationURL: @Sendable (URL) async throws(WebAuthenticationSessionError) -> URL
    private let environment: SessionEnvironment
    private let completionHandler: CompletionHandler?
    private let core: Locked<Core>

    private struct Settings: Sendable {
        var prefersEphemeral = false
        var additionalHeaderFields: [String: String]? = nil
        var requiredCapabilities: BrowserCapabilities = []
        var timeout: Duration? = nil
        var acceptsCallback: (@Sendable (URL) -> Bool)? = nil
        var acceptsReceivedCallback: (@Sendable (ReceivedCallback) -> Bool)? = nil
        var progressHandler: (@Sendable (SessionProgress) -> Void)? = nil
        var logger = Logger.webAuthSilent
    }

    /// The state machine as this session runs it: the resources are the protocols' values.
    private typealias Machine = SessionStateMachine<
        any CallbackListener, any BrowserPresentation,
        CheckedContinuation<Result<ReceivedCallback, WebAuthenticationSessionError>, Never>
    >

    /// The state machine (which holds the listener, the page and the waiting callers), the
    /// settings, and the driver's mailbox while the session runs.
    private struct Core: Sendable {
        var machine: Machine
        var settings = Settings()
        var events: AsyncStream<Machine.Event>.Continuation?
    }

    // MARK: - Creating a session

    /// Creates a session for a fixed authorization URL.
    ///
    /// - Parameters:
    ///   - url: The authorization page: `https`, or `http` to a loopback address.
    ///   - callback: The callback to wait for.
    ///   - environment: The browser and callback receivers to use.
    ///   - completionHandler: Called once with the result, if you use ``start()``.
    public convenience init(
        url: URL,
        callback: Callback,
        environment: SessionEnvironment,
        completionHandler: CompletionHandler? = nil
    ) {
        self.init(
            callback: callback, environment: environment, authorizationURL: { _ in url },
            completionHandler: completionHandler)
    }

    /// Creates a session whose authorization URL is built once the redirect URI is known.
    ///
    /// For a loopback callback on port 0 the port — and so the redirect URI — exists only once
    /// the listener is bound; `authorizationURL` receives it then, before the browser opens. For
    /// other callbacks it receives the callback's base URL (`com.example.app:` or
    /// `https://example.com/path`).
    ///
    /// - Parameters:
    ///   - callback: The callback to wait for.
    ///   - environment: The browser and callback receivers to use.
    ///   - authorizationURL: Builds the authorization URL from the redirect URI.
    ///   - completionHandler: Called once with the result, if you use ``start()``.
    public convenience init(
        callback: Callback,
        environment: SessionEnvironment,
        authorizationURL: @escaping @Sendable (_ redirectURI: URL) -> URL,
        completionHandler: CompletionHandler? = nil
    ) {
        self.init(
            callback: callback, environment: environment,
            pushingAuthorizationURL: { redirectURI in authorizationURL(redirectURI) },
            completionHandler: completionHandler)
    }

    /// Creates a session whose authorization URL takes work to make once the redirect URI is
    /// known — such as pushing the authorization request to the provider first (RFC 9126),
    /// which needs the redirect URI and yields the URL the browser opens.
    ///
    /// The closure runs after the listener is bound and before the browser opens; an error it
    /// throws ends the session with that error.
    ///
    /// - Parameters:
    ///   - callback: The callback to wait for.
    ///   - environment: The browser and callback receivers to use.
    ///   - pushingAuthorizationURL: Makes the authorization URL from the redirect URI.
    ///   - completionHandler: Called once with the result, if you use ``start()``.
    public init(
        callback: Callback,
        environment: SessionEnvironment,
        pushingAuthorizationURL:
            @escaping @Sendable (_ redirectURI: URL) async throws(WebAuthenticationSessionError)
            -> URL,
        completionHandler: CompletionHandler? = nil
    ) {
        let authorizationURL = pushingAuthorizationURL
        self.callback = callback
        self.environment = environment
        self.authorizationURL = authorizationURL
        self.completionHandler = completionHandler
        self.core = Locked(Core(machine: Machine(callback: callback)))
    }

    // MARK: - Settings

    /// Asks the browser to share no cookies or other data with the person's normal browsing,
    /// and to keep none afterwards. Default `false`.
    ///
    /// A browser that cannot honour it is used anyway and a ``SessionProgress/Phase/notice`` is
    /// reported, as Apple does for browsers that ignore the request; add
    /// ``BrowserCapabilities/ephemeralSessions`` to ``requiredCapabilities`` to fail instead.
    public var prefersEphemeralWebBrowserSession: Bool {
        get { core.withLock { $0.settings.prefersEphemeral } }
        set { core.withLock { $0.settings.prefersEphemeral = newValue } }
    }

    /// Header fields sent with the first request to the authorization URL only, where the browser
    /// can send them (``BrowserCapabilities/additionalHeaderFields``).
    public var additionalHeaderFields: [String: String]? {
        get { core.withLock { $0.settings.additionalHeaderFields } }
        set { core.withLock { $0.settings.additionalHeaderFields = newValue } }
    }

    /// Capabilities the browser must have; if it lacks one, the session fails at start with
    /// ``WebAuthenticationSessionError/Code/browserCannotHonorRequest`` saying which.
    public var requiredCapabilities: BrowserCapabilities {
        get { core.withLock { $0.settings.requiredCapabilities } }
        set { core.withLock { $0.settings.requiredCapabilities = newValue } }
    }

    /// How long to wait for the callback before failing with
    /// ``WebAuthenticationSessionError/Code/timedOut``. `nil` (the default) waits until cancelled.
    public var timeout: Duration? {
        get { core.withLock { $0.settings.timeout } }
        set { core.withLock { $0.settings.timeout = newValue } }
    }

    /// An extra test a matching callback URL must pass, such as "its `state` is the one I sent".
    ///
    /// A URL that fails it does not end the session: the loopback listener answers it with a
    /// failure page and keeps waiting, so a forged request cannot consume a real session.
    public var acceptsCallback: (@Sendable (URL) -> Bool)? {
        get { core.withLock { $0.settings.acceptsCallback } }
        set { core.withLock { $0.settings.acceptsCallback = newValue } }
    }

    /// The same as ``acceptsCallback``, on the callback with its parameters already read: an
    /// OAuth client checks the `state` without parsing the URL again. Both must pass when both
    /// are set.
    package var acceptsReceivedCallback: (@Sendable (ReceivedCallback) -> Bool)? {
        get { core.withLock { $0.settings.acceptsReceivedCallback } }
        set { core.withLock { $0.settings.acceptsReceivedCallback = newValue } }
    }

    /// Called as the session moves through its steps, for showing progress. Called on an
    /// arbitrary task; return quickly.
    public var progressHandler: (@Sendable (SessionProgress) -> Void)? {
        get { core.withLock { $0.settings.progressHandler } }
        set { core.withLock { $0.settings.progressHandler = newValue } }
    }

    /// Where the session logs what it does. By default it logs nothing. URLs are logged without
    /// their query or fragment, so no code, token or `state` reaches a log.
    public var logger: Logger {
        get { core.withLock { $0.settings.logger } }
        set { core.withLock { $0.settings.logger = newValue } }
    }

    // MARK: - Running

    /// Whether ``start()`` would start the session: it has not been started or cancelled.
    public var canStart: Bool { core.withLock { $0.machine.canStart } }

    /// The redirect URI, once the session is listening (for loopback: with its bound port).
    public var redirectURI: URL? { core.withLock { $0.machine.redirectURI } }

    /// Starts the session.
    ///
    /// - Returns: `true` if the session started; `false` if it had already been started or was
    ///   cancelled. The result arrives in the completion handler, or from ``authenticate()``.
    @discardableResult
    public func start() -> Bool {
        guard let launch = prepareLaunch() else { return false }
        run(launch)
        return true
    }

    /// Starts the session, deciding at once its browser and how the callback will come back;
    /// when the session cannot run (a missing requirement, a callback nothing here can
    /// receive, a receiver already taken), ends it without calling the completion handler and
    /// returns why — for callers such as Apple's API whose `start()` says `false`.
    ///
    /// - Returns: Whether the session started (`false`: already started or cancelled), or why
    ///   it was refused.
    package func startRefusingUnplannable() -> Result<Bool, WebAuthenticationSessionError> {
        guard let launch = prepareLaunch() else { return .success(false) }
        if case .failure(let refusal) = launch.plan {
            launch.continuation.finish()
            let action = core.withLock { core in
                core.events = nil
                return core.machine.handle(.listenFailed(refusal))
            }
            if case .deliver(let result, let waiters) = action {
                for waiter in waiters { waiter.resume(returning: result) }
            }
            return .failure(refusal)
        }
        run(launch)
        return .success(true)
    }

    /// What a started session runs with, decided when it starts.
    private struct Launch {
        let settings: Settings
        let browser: any Browser
        let plan: Result<SessionPlan, WebAuthenticationSessionError>
        let events: AsyncStream<Machine.Event>
        let continuation: AsyncStream<Machine.Event>.Continuation
    }

    /// Takes the start event and decides the browser and the plan; `nil` when the session had
    /// already been started or cancelled.
    private func prepareLaunch() -> Launch? {
        let (events, continuation) = AsyncStream.makeStream(of: Machine.Event.self)
        let settings: Settings? = core.withLock { core in
            let start = Machine.Event.start(
                acceptsCallback: core.settings.acceptsCallback, acceptsReceived: core.settings.acceptsReceivedCallback)
            guard case .listen = core.machine.handle(start) else { return nil }
            core.events = continuation
            return core.settings
        }
        guard let settings else {
            continuation.finish()
            return nil
        }
        let (browser, plan) = plan(settings)
        return Launch(settings: settings, browser: browser, plan: plan, events: events, continuation: continuation)
    }

    /// Runs a launched session in a task of its own.
    private func run(_ launch: Launch) {
        // The task holds `self` until the session has completed: the session keeps itself alive.
        Task {
            await self.run(
                settings: launch.settings, browser: launch.browser, plan: launch.plan, events: launch.events,
                continuation: launch.continuation)
        }
    }

    /// Cancels the session.
    ///
    /// A running session ends with ``WebAuthenticationSessionError/Code/canceledLogin``
    /// (reason ``WebAuthenticationSessionError/CancellationReason/program``) after closing what
    /// it opened. A session not yet started will never start. A finished session is unaffected.
    public func cancel() {
        let (continuation, notStarted) = core.withLock {
            core -> (AsyncStream<Machine.Event>.Continuation?, Machine.Action) in
            guard core.machine.canStart else { return (core.events, .none) }
            return (nil, core.machine.handle(.cancel))
        }
        continuation?.yield(.cancel)
        if case .deliver(let result, let waiters) = notStarted {
            for waiter in waiters { waiter.resume(returning: result) }
        }
    }

    /// Starts the session if it has not been started, and waits for its result.
    ///
    /// Cancelling the calling task cancels the session. If the session has already ended, its
    /// result is returned again.
    ///
    /// - Returns: The callback URL and the redirect URI the authorization URL was built with.
    /// - Throws: ``WebAuthenticationSessionError``.
    public func authenticate() async throws(WebAuthenticationSessionError) -> ReceivedCallback {
        start()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let ready = core.withLock({ $0.machine.addWaiter(continuation) }) {
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            self.cancel()
        }
        return try result.get()
    }

    // MARK: - The driver

    /// The browser for this session and how the callback will come back, decided once.
    private func plan(_ settings: Settings) -> (any Browser, Result<SessionPlan, WebAuthenticationSessionError>) {
        let receiversAccepting = environment.receivers.map { $0.canReceive(callback) }
        let needs = BrowserNeeds(
            callback: callback, prefersEphemeralSession: settings.prefersEphemeral,
            hasAdditionalHeaderFields: !(settings.additionalHeaderFields ?? [:]).isEmpty,
            requiredCapabilities: settings.requiredCapabilities,
            callbackIsReceivable: receiversAccepting.contains(true))
        let browser = environment.browser(for: needs)
        var plan = SessionPlan.make(
            needs: needs,
            browserName: browser.name,
            browserCapabilities: browser.capabilities,
            receiversAccepting: receiversAccepting,
            additionalHeaderFields: settings.additionalHeaderFields ?? [:]
        )
        if case .success(let planned) = plan, let index = planned.receiverIndex,
            let taken = environment.receivers[index].unavailability(for: callback)
        {
            plan = .failure(taken)
        }
        return (browser, plan)
    }

    /// Runs the session: feeds the machine the outcome of each step and performs its actions,
    /// until it says deliver. It holds no resource itself: the machine's states do.
    private func run(
        settings: Settings,
        browser: any Browser,
        plan: Result<SessionPlan, WebAuthenticationSessionError>,
        events: AsyncStream<Machine.Event>,
        continuation: AsyncStream<Machine.Event>.Continuation
    ) async {
        let logger = settings.logger
        let report = settings.progressHandler ?? { _ in }
        logger.debug("session starting", metadata: ["callback": "\(callback)", "browser": "\(browser.name)"])

        await withTaskGroup(of: Void.self) { group in
            if let timeout = settings.timeout {
                group.addTask {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    continuation.yield(.timedOut(timeout))
                }
            }

            // The listen step: it ends with exactly one event.
            switch plan {
            case .failure(let error):
                continuation.yield(.listenFailed(error))
            case .success(let plan):
                for notice in plan.notices {
                    logger.notice("\(notice)")
                    report(SessionProgress(phase: .notice, message: notice))
                }
                if let index = plan.receiverIndex {
                    let receiver = environment.receivers[index]
                    let callback = callback
                    // The listener asks the machine, whose rule is pinned once the listener is
                    // ready: one rule, one verdict per URL.
                    let deciding: @Sendable (URL) -> CallbackVerdict = { [weak self] url in
                        self?.core.withLock { $0.machine.decide(url) }
                            ?? .refused(.callbackMismatch("the session is over"))
                    }
                    group.addTask {
                        do throws(WebAuthenticationSessionError) {
                            let listener = try await receiver.listen(for: callback, deciding: deciding)
                            continuation.yield(.listenerReady(listener, callback: listener.callback))
                        } catch {
                            continuation.yield(.listenFailed(error))
                        }
                    }
                } else {
                    continuation.yield(.noListenerNeeded(callback: callback))
                }
            }

            for await event in events {
                let action = core.withLock { $0.machine.handle(event) }
                switch action {
                case .none, .listen:
                    break
                case .present(let redirectURI, let boundCallback, let listener):
                    if let listener {
                        group.addTask {
                            for await received in listener.callbacks {
                                continuation.yield(.callbackReceived(received))
                            }
                        }
                        logger.debug("listening", metadata: ["redirect_uri": "\(redirectURI.redactedForLogs)"])
                        report(SessionProgress(phase: .listening, redirectURI: redirectURI))
                    }
                    let authorizationURL = authorizationURL
                    let settings = settings
                    group.addTask {
                        do throws(WebAuthenticationSessionError) {
                            let url = try await authorizationURL(redirectURI)
                            _ = try AuthorizationURLPolicy.validate(url)
                            let request = BrowserRequest(
                                url: url, callback: boundCallback, redirectURI: redirectURI,
                                prefersEphemeralSession: settings.prefersEphemeral,
                                additionalHeaderFields: settings.additionalHeaderFields ?? [:])
                            logger.debug(
                                "opening", metadata: ["url": "\(url.redactedForLogs)", "browser": "\(browser.name)"])
                            report(
                                SessionProgress(
                                    phase: .opening, redirectURI: redirectURI, authorizationURL: url,
                                    browserName: browser.name))
                            continuation.yield(.presentationReady(try await browser.present(request)))
                        } catch {
                            continuation.yield(.presentFailed(error))
                        }
                    }
                case .watch(let presentation, let redirectURI):
                    group.addTask {
                        for await event in presentation.events {
                            switch event.kind {
                            case .callback(let url): continuation.yield(.callbackOffered(url))
                            case .closedByUser: continuation.yield(.closedByUser)
                            case .failed(let why): continuation.yield(.browserFailed(.browserLaunchFailed(why)))
                            }
                        }
                    }
                    report(SessionProgress(phase: .waiting, redirectURI: redirectURI, browserName: browser.name))
                case .reject(let error):
                    logger.info("callback offered but not taken: \(error.message)")
                    report(SessionProgress(phase: .notice, message: error.message))
                case .tearDown(let listener, let presentation):
                    // The result is known: stop the timeout and the readers, and hurry a step
                    // still under way; what it produces comes back here to be released.
                    group.cancelAll()
                    await listener?.close()
                    await presentation?.dismiss()
                    continuation.yield(.tornDown)
                case .deliver(let result, let waiters):
                    deliver(result, to: waiters, logger: logger)
                    continuation.finish()
                }
            }
            group.cancelAll()
        }
    }

    private func deliver(
        _ result: Result<ReceivedCallback, WebAuthenticationSessionError>,
        to waiters: [CheckedContinuation<Result<ReceivedCallback, WebAuthenticationSessionError>, Never>],
        logger: Logger
    ) {
        let outcome =
            switch result {
            case .success: "callback"
            case .failure(let error): "\(error.code) (\(error.cancellationReason?.description ?? "-"))"
            }
        logger.debug("session finished", metadata: ["outcome": "\(outcome)"])
        core.withLock { $0.events = nil }
        for waiter in waiters { waiter.resume(returning: result) }
        completionHandler?(result)
    }
}

/// The name ``WebAuthSession`` had before SwiftUI's `WebAuthenticationSession` came to Linux.
///
/// Swift 5 code keeps compiling with a deprecation warning. In Swift 6 language mode the name
/// is unavailable, with a fix-it to ``WebAuthSession``: that is what lets a file that imports
/// WebAuthCompat (or SwiftUI on Apple platforms) as well mean SwiftUI's type by it, without
/// ambiguity.
@available(swift, deprecated: 5.0, obsoleted: 6.0, renamed: "WebAuthSession")
public typealias WebAuthenticationSession = WebAuthSession
