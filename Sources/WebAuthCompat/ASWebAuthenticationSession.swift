// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    public import WebAuth

    /// A session that authenticates a user through a web service — Apple's
    /// `ASWebAuthenticationSession`, with its names and signatures, on Linux.
    ///
    /// Code written for Apple platforms compiles and runs with `import WebAuthCompat` in place of
    /// `import AuthenticationServices`:
    ///
    /// ```swift
    /// let session = ASWebAuthenticationSession(url: authURL, callback: .customScheme("exampleauth")) { callbackURL, error in
    ///     guard error == nil, let callbackURL else { return }
    ///     let token = URLComponents(string: callbackURL.absoluteString)?.queryItems?.first { $0.name == "token" }?.value
    /// }
    /// session.presentationContextProvider = self
    /// session.prefersEphemeralWebBrowserSession = true
    /// session.start()
    /// ```
    ///
    /// Underneath is the package's `WebAuthSession`, in
    /// ``ASWebAuthenticationSession/environment`` (by default `SessionEnvironment.standard`: the
    /// person's browser, the loopback listener and the desktop's URL-scheme handler).
    ///
    /// ## Behaviour, as on Apple platforms
    /// - A session starts once: ``start()`` returns `false` after the first call, after
    ///   ``cancel()``, or when it cannot start (see there); ``canStart`` tells without starting.
    /// - A started session keeps a strong reference to itself until its completion handler has
    ///   run, so you need not keep one.
    /// - ``cancel()`` ends a running session with ``ASWebAuthenticationSessionError/Code/canceledLogin``
    ///   and dismisses the browser where the browser can be dismissed.
    /// - A ``presentationContextProvider`` is required, as on macOS and iOS 13 and later.
    ///
    /// ## Linux specifics
    /// - The anchor chooses the browser (see ``ASPresentationAnchor``).
    /// - `callbackURLScheme` is a scheme, such as `com.example.app`. Given a whole URL such as
    ///   `fairese-nae://anilist-auth`, the part before the first `:` is used. `nil` means the
    ///   scheme registered for this program with `webauth scheme register SCHEME --app NAME` (see
    ///   `DesktopSchemeRegistry`), as `nil` means the `Info.plist` scheme on Apple platforms.
    /// - A custom scheme reaches the session through the desktop (the scheme must be registered)
    ///   or through a browser the session controls, which sees every redirect.
    /// - The completion handler is called once, on the main queue whenever something drains it,
    ///   as Apple calls it on the main thread: on the main thread itself under a GLib main loop
    ///   with the drain installed or a run loop, on the thread `dispatchMain()` serves the queue
    ///   from. In a program whose main thread is busy or blocked, on the thread the result
    ///   arrives on. See ``MainThreadDelivery``.
    /// - Errors have Apple's domain and codes; the detailed Linux error is kept (see
    ///   ``ASWebAuthenticationSessionError/webAuthenticationError``).
    open class ASWebAuthenticationSession: NSObject, @unchecked Sendable {
        // @unchecked Sendable: every mutable stored property below is read and written only with
        // `lock` held, and the others are immutable. The completion handler is not Sendable (it
        // is not on Apple platforms either); it is taken out under the lock exactly once and
        // called once, never concurrently with itself.

        /// The completion handler's type: the callback URL, or an error.
        public typealias CompletionHandler = (URL?, (any Error)?) -> Void

        /// The environment (browser and callback receivers) for sessions started in the current
        /// task; `nil` (the default) means `SessionEnvironment.standard`. An anchor with a
        /// browser overrides the environment's browser.
        ///
        /// Linux only. Bind it around the code that calls ``start()``:
        ///
        /// ```swift
        /// ASWebAuthenticationSession.$environment.withValue(myEnvironment) {
        ///     viewModel.signIn()
        /// }
        /// ```
        @TaskLocal public static var environment: SessionEnvironment?

        private enum Requested {
            case scheme(String?)
            case callback(Callback)
        }

        private enum Phase {
            case idle
            case starting(cancelRequested: Bool)
            case running(WebAuthSession)
            case finished
        }

        private struct StartingSettings {
            var provider: (any ASWebAuthenticationPresentationContextProviding)?
            var prefersEphemeral: Bool
            var headerFields: [String: String]?
        }

        private let url: URL
        private let requested: Requested
        private let lock = NSLock()
        private weak var provider: (any ASWebAuthenticationPresentationContextProviding)?
        private var ephemeral = false
        private var headerFields: [String: String]?
        private var phase = Phase.idle
        private var completionHandler: CompletionHandler?
        /// The main-queue probe sent when the session started, which decides the handler's thread.
        private var mainQueueProbe: MainQueueProbe?

        /// Creates a session for the authentication page at `url` whose service calls back with
        /// `callbackURLScheme`.
        ///
        /// Deprecated, as with Apple's 27.0 SDKs: use ``init(url:callback:completionHandler:)``
        /// with ``Callback/customScheme(_:)``, which behaves the same for a given scheme.
        ///
        /// - Parameters:
        ///   - url: The authentication page: `https`, or `http` to a loopback address.
        ///   - callbackURLScheme: The callback's custom scheme (the part before `:` of a whole
        ///     URL), or `nil` for the scheme registered for this program.
        ///   - completionHandler: Called once with the callback URL or an error.
        @available(
            *, deprecated, renamed: "init(url:callback:completionHandler:)",
            message: "Use init(url:callback:completionHandler:) with .customScheme(_:)"
        )
        public init(url: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {
            self.url = url
            self.requested = .scheme(callbackURLScheme)
            self.completionHandler = completionHandler
            super.init()
        }

        /// Creates a session for the authentication page at `url` whose service calls back to
        /// `callback`.
        ///
        /// - Parameters:
        ///   - url: The authentication page: `https`, or `http` to a loopback address.
        ///   - callback: Where the service sends the browser at the end: ``Callback/customScheme(_:)``
        ///     or ``Callback/https(host:path:)``.
        ///   - completionHandler: Called once with the callback URL or an error.
        public init(url: URL, callback: Callback, completionHandler: @escaping CompletionHandler) {
            self.url = url
            self.requested = .callback(callback)
            self.completionHandler = completionHandler
            super.init()
        }

        /// A session for the scheme registered for this program (`webauth scheme register
        /// --app`): what `nil` as `callbackURLScheme` means, without the deprecated initializer.
        static func forRegisteredScheme(url: URL, completionHandler: @escaping CompletionHandler)
            -> ASWebAuthenticationSession
        {
            ASWebAuthenticationSession(url: url, requested: .scheme(nil), completionHandler: completionHandler)
        }

        private init(url: URL, requested: Requested, completionHandler: @escaping CompletionHandler) {
            self.url = url
            self.requested = requested
            self.completionHandler = completionHandler
            super.init()
        }

        /// Not available: a session needs a URL, a callback and a completion handler.
        @available(*, unavailable)
        public override init() {
            fatalError("ASWebAuthenticationSession() is unavailable")
        }

        // MARK: - Settings

        /// Provides the anchor (on Linux: the browser choice). Held weakly; required before
        /// ``start()``.
        open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? {
            get { withLock { provider } }
            set { withLock { provider = newValue } }
        }

        /// Asks the browser to share no data with the person's normal browsing and to keep none.
        /// A browser that cannot honour it (the person's own browser) is used anyway, as on macOS
        /// with a default browser that ignores it; a browser the session controls honours it.
        open var prefersEphemeralWebBrowserSession: Bool {
            get { withLock { ephemeral } }
            set { withLock { ephemeral = newValue } }
        }

        /// Header fields sent with the first request to the authentication page, where the
        /// browser can send them (a browser the session controls).
        open var additionalHeaderFields: [String: String]? {
            get { withLock { headerFields } }
            set { withLock { headerFields = newValue } }
        }

        /// Whether ``start()`` would start the session: it has not been started or cancelled.
        open var canStart: Bool {
            withLock {
                if case .idle = phase { return true }
                return false
            }
        }

        // MARK: - Running

        /// Starts the session: asks the provider for its anchor and opens the page.
        ///
        /// - Returns: `true` if the session started. `false` if it was already started or
        ///   cancelled (nothing more is delivered), or if it cannot start — then the completion
        ///   handler receives the reason, soon after `start()` returns:
        ///   ``ASWebAuthenticationSessionError/Code/presentationContextNotProvided`` without a
        ///   provider; ``ASWebAuthenticationSessionError/Code/presentationContextInvalid`` for an
        ///   invalid scheme, no registered scheme for a `nil` scheme, or a custom scheme that
        ///   nothing here can receive (not registered with the desktop and no controlled
        ///   browser), with a message that names the fix, or a custom scheme another sign-in (of
        ///   this program or another) is already waiting for — one session per scheme, as on
        ///   Apple platforms one session is presented at a time.
        @discardableResult
        open func start() -> Bool {
            let starting: StartingSettings? = withLock {
                guard case .idle = phase else { return nil }
                phase = .starting(cancelRequested: false)
                mainQueueProbe = MainQueueProbe()
                return StartingSettings(provider: provider, prefersEphemeral: ephemeral, headerFields: headerFields)
            }
            guard let starting else { return false }
            guard let provider = starting.provider else {
                fail(
                    WebAuthenticationSessionError(
                        code: .presentationContextNotProvided,
                        message: "cannot start ASWebAuthenticationSession without a presentation context: "
                            + "set presentationContextProvider before calling start()"))
                return false
            }
            let anchor = provider.presentationAnchor(for: self)
            var environment = Self.environment ?? .standard
            if let browser = anchor.browser {
                environment = SessionEnvironment(browser: browser, receivers: environment.receivers)
            }

            let callback: EngineCallback
            switch resolveCallback(in: environment) {
            case .success(let resolved): callback = resolved
            case .failure(let error):
                fail(error)
                return false
            }

            // The completion closure holds `self` until the session has delivered: the session
            // keeps itself alive while it runs.
            let session = WebAuthSession(url: url, callback: callback, environment: environment) { result in
                self.deliver(result.map(\.url))
            }
            session.prefersEphemeralWebBrowserSession = starting.prefersEphemeral
            session.additionalHeaderFields = starting.headerFields
            let cancelRequested = withLock {
                let requested = if case .starting(true) = phase { true } else { false }
                phase = .running(session)
                return requested
            }
            // The session decides its browser and plan once; a session that cannot run is refused.
            if case .failure(let refusal) = session.startRefusingUnplannable() {
                fail(refusal)
                return false
            }
            if cancelRequested { session.cancel() }
            return true
        }

        /// Cancels the session. A running session ends with
        /// ``ASWebAuthenticationSessionError/Code/canceledLogin`` and its browser is dismissed
        /// where that is possible; a session not yet started will not start (and delivers
        /// nothing); cancelling again has no effect.
        open func cancel() {
            let running: WebAuthSession? = withLock {
                switch phase {
                case .idle:
                    phase = .finished
                    completionHandler = nil
                    return nil
                case .starting:
                    phase = .starting(cancelRequested: true)
                    return nil
                case .running(let session):
                    return session
                case .finished:
                    return nil
                }
            }
            running?.cancel()
        }

        // MARK: - Internals

        /// The engine callback for what was requested: the given scheme (or the scheme of a
        /// whole URL), or the one registered for this program in `environment`.
        private func resolveCallback(in environment: SessionEnvironment) -> Result<
            EngineCallback, WebAuthenticationSessionError
        > {
            let given: String
            switch requested {
            case .callback(let requested):
                guard let scheme = requested.givenScheme else { return .success(requested.engineCallback) }
                given = scheme
            case .scheme(let scheme?):
                given = scheme
            case .scheme(nil):
                return Result { () throws(WebAuthenticationSessionError) in try environment.registeredCallback() }
            }
            let redirectURI = given.contains(":") ? given : given + ":"
            guard let url = URL(string: redirectURI) else {
                return .failure(.invalidCallback("'\(given)' is not a URL scheme"))
            }
            return Result { () throws(WebAuthenticationSessionError) in
                let callback = try EngineCallback(redirectURI: url)
                guard callback.isCustomScheme else {
                    throw .invalidCallback(
                        "'\(callback.scheme)' is handled by the browser itself and cannot be a callback scheme")
                }
                return callback
            }
        }

        /// Ends a session that did not start, delivering `error` after `start()` has returned.
        private func fail(_ error: WebAuthenticationSessionError) {
            withLock { phase = .finished }
            Task { self.deliver(.failure(error)) }
        }

        /// Calls the completion handler, once, on the thread ``MainThreadDelivery`` describes.
        private func deliver(_ result: Result<URL, WebAuthenticationSessionError>) {
            let (handler, probe) = withLock {
                phase = .finished
                defer {
                    completionHandler = nil
                    mainQueueProbe = nil
                }
                return (completionHandler, mainQueueProbe)
            }
            guard let handler else { return }
            let call = {
                switch result {
                case .success(let url): handler(url, nil)
                case .failure(let error): handler(nil, ASWebAuthenticationSessionError(error))
                }
            }
            if let probe { probe.deliver(call) } else { call() }
        }

        private func withLock<Value>(_ body: () throws -> Value) rethrows -> Value {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }
    }
#endif
