// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore

extension ChromiumBrowser {
    /// How the browser is found and started.
    public struct Options: Sendable {
        /// The executable to run: an absolute path, or a name looked up in the `PATH` of
        /// ``environment``. `nil` (the default) looks for ``ChromiumBrowser/executableNames``.
        public var executable: String?
        /// Whether to run without a window: `true`, `false`, or `nil` (the default) for headless
        /// exactly when ``environment`` has no display (see `DisplayEnvironment`).
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
        ///   - executable: The executable's path or name, or `nil` to search `PATH` for the usual
        ///     names.
        ///   - headless: `true`, `false`, or `nil` for "headless when there is no display".
        ///   - extraArguments: More command-line flags.
        ///   - launchTimeout: How long starting may take.
        ///   - environment: The environment to read and to give the browser.
        ///   - logger: Where to log.
        public init(
            executable: String? = nil,
            headless: Bool? = nil,
            extraArguments: [String] = [],
            launchTimeout: Duration = .seconds(30),
            environment: [String: String] = ProcessInfo.processInfo.environment,
            logger: Logger = .webAuthSilent
        ) {
            self.executable = executable
            self.headless = headless
            self.extraArguments = extraArguments
            self.launchTimeout = launchTimeout
            self.environment = environment
            self.logger = logger
        }

        /// Whether the browser will run headless: ``headless``, or whether there is no display.
        public var runsHeadless: Bool {
            headless ?? !DisplayEnvironment(environment: environment).hasDisplay
        }
    }
}

extension ChromiumBrowser.Options: ControlledBrowserOptions {}
