import Foundation
import Logging
import WebAuthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Chromium or Google Chrome, launched and steered by the session over the DevTools protocol on a
/// pipe (`--remote-debugging-pipe`) — never a TCP debugging port, so no other local process can
/// attach to it.
///
/// Because the session sees every navigation, it can:
/// - catch **any callback** without registering anything: a top-level navigation (redirects
///   included) to a URL that ``Callback/matchesURL(_:)`` is stopped inside the browser and the
///   session completes with it — a custom scheme never reaches the desktop's handler, and an
///   `https` callback is stopped before any DNS lookup or connection;
/// - run **ephemeral** sessions in a fresh 0700 profile that is deleted when the session ends,
///   or **shared** ones in a profile of its own under `$XDG_DATA_HOME/webauth/profiles/chromium`,
///   so that a person who signed in once stays signed in;
/// - send ``WebAuthenticationSession/additionalHeaderFields`` with the first request only;
/// - **dismiss itself**: when the session ends the browser is closed and every process it started
///   exits;
/// - notice that the person **closed the window** (the session ends as cancelled by the user), or
///   that the browser **crashed** (it ends with ``WebAuthenticationSessionError/Code/browserLaunchFailed``).
///
/// ```swift
/// let chromium = ChromiumBrowser(options: .init(headless: true))
/// let session = WebAuthenticationSession(
///     url: authorizationURL, callback: .customScheme("com.example.app"),
///     environment: SessionEnvironment(browser: chromium, receivers: []))
/// session.prefersEphemeralWebBrowserSession = true
/// let callbackURL = try await session.authenticate().url
/// ```
///
/// The browser runs with the flags it needs and nothing more; in particular it adds no flags that
/// block or redirect network traffic. Pass proxies and similar settings in
/// ``Options/extraArguments``. Its profile is set not to *predict* network use (no speculative
/// preconnect or DNS prefetch): otherwise Chromium would look up and connect to an `https`
/// callback's host as soon as a link or form on the page started navigating there, before the
/// request itself could be stopped.
public struct ChromiumBrowser: Browser {
    /// How the browser is found and started.
    public struct Options: Sendable {
        /// The executable to run, or `nil` to look for ``ChromiumBrowser/executableNames`` in the
        /// `PATH` of ``environment``.
        public var executablePath: String?
        /// Whether to run without a window: `true`, `false`, or `nil` (the default) for headless
        /// exactly when ``environment`` names no display (`DISPLAY`, `WAYLAND_DISPLAY`).
        public var headless: Bool?
        /// More command-line flags, added after the browser's own (proxies, offline test flags).
        /// Do not pass `--user-data-dir` or a remote-debugging flag: the browser sets those itself.
        public var extraArguments: [String]
        /// How long the browser may take to start answering on its pipe. Default 30 seconds.
        public var launchTimeout: Duration
        /// The environment: the browser's own, and where `PATH`, `DISPLAY`, `XDG_DATA_HOME` and
        /// `XDG_RUNTIME_DIR` are read from. Default: this process's environment.
        public var environment: [String: String]
        /// Where the browser logs what it does (never a URL's query or fragment).
        public var logger: Logger

        /// Called with each browser this one launches, once it is ready; for tests and benchmarks.
        package var launchObserver: (@Sendable (ChromiumInstance) -> Void)?

        /// Creates options; every parameter has a default.
        ///
        /// - Parameters:
        ///   - executablePath: The executable, or `nil` to search `PATH`.
        ///   - headless: `true`, `false`, or `nil` for "headless when there is no display".
        ///   - extraArguments: More command-line flags.
        ///   - launchTimeout: How long starting may take.
        ///   - environment: The environment to read and to give the browser.
        ///   - logger: Where to log.
        public init(
            executablePath: String? = nil,
            headless: Bool? = nil,
            extraArguments: [String] = [],
            launchTimeout: Duration = .seconds(30),
            environment: [String: String] = ProcessInfo.processInfo.environment,
            logger: Logger = Logger(label: "webauth.chromium", factory: { _ in SwiftLogNoOpLogHandler() })
        ) {
            self.executablePath = executablePath
            self.headless = headless
            self.extraArguments = extraArguments
            self.launchTimeout = launchTimeout
            self.environment = environment
            self.logger = logger
        }

        /// Whether the browser will run headless: ``headless``, or whether there is no display.
        public var runsHeadless: Bool {
            if let headless { return headless }
            let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].compactMap { $0 }
            return !display.contains { !$0.isEmpty }
        }
    }

    /// The executable names looked for, in order.
    public static let executableNames = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    /// How the browser is found and started.
    public var options: Options

    /// Creates a browser with `options`.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// The first of ``executableNames`` found as an executable file in `searchPath`.
    ///
    /// - Parameter searchPath: A `PATH`-style list of directories; `nil` uses this process's
    ///   `PATH`.
    /// - Returns: The executable's path, or `nil` when none is installed.
    public static func find(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").filter {
            $0.hasPrefix("/")
        }
        for name in executableNames {
            for directory in directories {
                let candidate = "\(directory)/\(name)"
                if isExecutableFile(candidate) { return candidate }
            }
        }
        return nil
    }

    /// The executable's name, such as `chromium` or `google-chrome`.
    public var name: String {
        let path = options.executablePath ?? Self.find(searchPath: options.environment["PATH"])
        return path.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "chromium"
    }

    /// Ephemeral sessions, extra header fields, callback interception, dismissal and close
    /// detection.
    public var capabilities: BrowserCapabilities {
        [.ephemeralSessions, .additionalHeaderFields, .callbackInterception, .dismissal, .closeDetection]
    }

    /// Starts the browser, sets up interception, and sends the page to the authorization URL.
    ///
    /// Returns once the navigation has been sent; the returned presentation reports the callback,
    /// the window being closed, or the browser failing.
    ///
    /// - Throws: ``WebAuthenticationSessionError`` with
    ///   ``WebAuthenticationSessionError/Code/noBrowserAvailable`` when no executable is found,
    ///   ``WebAuthenticationSessionError/Code/browserLaunchFailed`` when it does not start (or the
    ///   shared profile is in use), or ``WebAuthenticationSessionError/Code/invalidAuthorizationURL``.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        _ = try AuthorizationURLPolicy.validate(request.url)
        let executable = try resolveExecutable()
        return try await ChromiumPresentation.launch(executable: executable, request: request, options: options)
    }

    /// The executable to run, or why there is none.
    func resolveExecutable() throws(WebAuthenticationSessionError) -> String {
        let install = "install Chromium (for example `sudo apt install chromium`) or Google Chrome"
        if let path = options.executablePath {
            guard Self.isExecutableFile(path) else {
                throw .noBrowserAvailable(
                    "the Chromium executable \(path) does not exist or is not executable; \(install)")
            }
            return path
        }
        let searchPath = options.environment["PATH"] ?? ""
        guard let found = Self.find(searchPath: searchPath) else {
            throw .noBrowserAvailable(
                "no Chromium or Chrome found (looked for \(Self.executableNames.joined(separator: ", ")) in PATH "
                    + "\(searchPath.isEmpty ? "(empty)" : searchPath)); \(install), or pass its path")
        }
        return found
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
