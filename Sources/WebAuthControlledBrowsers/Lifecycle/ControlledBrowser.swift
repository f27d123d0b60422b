// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

/// A browser the session launches and steers itself, as the shared lifecycle sees it: where its
/// executable is looked for, its options, and the launcher that starts it and opens the page.
///
/// A browser plugs in with three pieces of its own — a ``ControlledBrowserLauncher``, a
/// ``BrowserControlConnection`` (its protocol client) and a navigation interceptor — and gets the
/// rest from the lifecycle: ``BrowserExecutable``, ``BrowserProfile``, ``LaunchedBrowser``,
/// ``PresentationEvents``.
protocol ControlledBrowser: Browser {
    associatedtype Launcher: ControlledBrowserLauncher
    /// How the browser is found and started.
    var options: Launcher.Options { get }
    /// Where its executable is looked for, and what to say when it is not found.
    static var executableLookup: BrowserExecutable { get }
}

/// Starts one kind of controlled browser for a request and opens the authorization page in it;
/// everything it started is stopped and removed again if a step fails.
protocol ControlledBrowserLauncher {
    associatedtype Options: ControlledBrowserOptions
    associatedtype Presentation: BrowserPresentation
    /// Starts `executable` for `request` and opens its authorization URL.
    static func launch(
        executable: String, request: BrowserRequest, options: Options
    ) async throws(WebAuthenticationSessionError) -> Presentation
}

/// What the lifecycle reads from a controlled browser's options.
protocol ControlledBrowserOptions: Sendable {
    /// The executable: a path, a name looked up in `PATH`, or `nil` for the browser's usual names.
    var executable: String? { get }
    /// The environment, where `PATH` is read.
    var environment: [String: String] { get }
}

extension ControlledBrowser {
    /// What every controlled browser can do: ephemeral sessions, additional header fields,
    /// callback interception, dismissal and close detection.
    static var controlledCapabilities: BrowserCapabilities {
        [.ephemeralSessions, .additionalHeaderFields, .callbackInterception, .dismissal, .closeDetection]
    }

    /// Checks the authorization URL, finds the executable, and launches the browser.
    func launch(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        _ = try AuthorizationURLPolicy.validate(request.url)
        let executable = try Self.executableLookup.resolve(options.executable, searchPath: options.environment["PATH"])
        return try await Launcher.launch(executable: executable, request: request, options: options)
    }
}
