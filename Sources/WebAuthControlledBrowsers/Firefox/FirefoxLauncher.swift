// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore
import WebAuthProcess

/// Starting Firefox and connecting to it over WebDriver BiDi.
///
/// The shared lifecycle takes the profile (``BrowserProfile``) and starts the process
/// (``LaunchedBrowser``); what is Firefox's own is the command line, the profile's preferences
/// and scheme handler (``FirefoxProfileSetup``), finding the BiDi endpoint, and preparing the tab
/// over it (``BiDiSessionSetup``). Firefox has no pipe transport for WebDriver BiDi, so it is
/// reached over a loopback port it announces (``BiDiEndpoint``).
enum FirefoxLauncher: ControlledBrowserLauncher {
    /// The command-line arguments: `--profile DIR --no-remote --remote-debugging-port=0
    /// [--headless] EXTRA… about:blank`.
    static func arguments(profile: URL, headless: Bool, extra: [String]) -> [String] {
        var arguments = ["--profile", profile.path, "--no-remote", "--remote-debugging-port=0"]
        if headless { arguments.append("--headless") }
        return arguments + extra + ["about:blank"]
    }

    /// Starts `executable` for `request`, connects over WebDriver BiDi, and opens the
    /// authorization URL in its tab. Everything started is stopped and removed again if a step
    /// fails.
    static func launch(
        executable: String, request: BrowserRequest, options: FirefoxBrowser.Options
    ) async throws(WebAuthenticationSessionError) -> FirefoxPresentation {
        let started = ContinuousClock.now
        let logger = options.logger
        let token = (0..<2).map { _ in String(format: "%016llx", UInt64.random(in: .min ... .max)) }.joined()
        let handlerPrefix = FirefoxProfileSetup.schemeHandlerPrefix(token: token)
        let customScheme = request.callback.isCustomScheme ? request.callback.scheme : nil
        var preferences = FirefoxBrowser.defaultPreferences
        if let customScheme { preferences["network.protocol-handler.external.\(customScheme)"] = true }
        preferences.merge(options.extraPreferences) { _, user in user }
        let (profile, _) = try await BrowserProfile.claim(
            browser: "firefox", ephemeral: request.prefersEphemeralSession, environment: options.environment,
            runningBrowser: FirefoxProfileSetup.runningBrowser(in:),
            setUp: { [preferences] directory throws(WebAuthenticationSessionError) in
                try FirefoxProfileSetup.prepare(
                    directory: directory, preferences: preferences, customScheme: customScheme,
                    handlerPrefix: handlerPrefix)
            })

        var environment = options.environment
        // No crash-report dialog or upload; remote settings off (see defaultPreferences).
        for (name, value) in ["MOZ_CRASHREPORTER_DISABLE": "1", "MOZ_REMOTE_SETTINGS_DEVTOOLS": "1"]
        where environment[name] == nil {
            environment[name] = value
        }
        let browser = try await LaunchedBrowser.start(
            name: "firefox", executable: executable,
            arguments: arguments(
                profile: profile.directory, headless: options.runsHeadless, extra: options.extraArguments),
            environment: environment, profile: profile, watched: true, logger: logger)
        var connection: BiDiConnection?
        do throws(WebAuthenticationSessionError) {
            let endpoint = await BiDiEndpoint.wait(
                outputFile: browser.outputFile.path, process: browser.process, timeout: options.launchTimeout)
            let endpointReady = ContinuousClock.now
            let host: String
            let port: Int
            switch endpoint {
            case .ready(let readyHost, let readyPort):
                (host, port) = (readyHost, readyPort)
            case .exited:
                let status = await browser.process.exitStatus()
                throw .browserLaunchFailed(
                    "firefox exited (\(Subprocess.describe(status: status))) before WebDriver BiDi was ready"
                        + browser.outputTail())
            case .timedOut:
                throw .browserLaunchFailed(
                    "firefox did not open WebDriver BiDi within \(options.launchTimeout)\(browser.outputTail())")
            case .cancelled:
                throw .cancelled(.program)
            }

            let socket: WebSocketClient
            do {
                socket = try await WebSocketClient.connect(host: host, port: port, path: "/session")
            } catch {
                throw .browserLaunchFailed("cannot connect to Firefox's WebDriver BiDi endpoint: \(error)")
            }
            let bidi = BiDiConnection(socket: socket, logger: logger)
            connection = bidi
            let setup = try await BiDiSessionSetup.run(
                on: bidi, callback: request.callback, hasHeaders: !request.additionalHeaderFields.isEmpty,
                startupTimeout: max(options.launchTimeout - (ContinuousClock.now - started), .seconds(10)),
                logger: logger)

            let presentation = FirefoxPresentation(
                browser: browser, connection: bidi, context: setup.context, browserVersion: setup.browserVersion,
                launchStartedAt: started, endpointReadyAt: endpointReady, sessionReadyAt: .now, logger: logger)
            presentation.start(
                with: FirefoxNavigationInterceptor(
                    callback: request.callback, context: setup.context,
                    additionalHeaderFields: request.additionalHeaderFields, schemeHandlerPrefix: handlerPrefix))
            bidi.post(
                "browsingContext.navigate",
                ["context": .string(setup.context), "url": .string(request.url.absoluteString), "wait": "none"])
            logger.debug(
                "opening the authorization page in firefox",
                metadata: ["url": "\(request.url.redactedForLogs)", "version": "\(setup.browserVersion)"])
            options.launchObserver?(presentation)
            return presentation
        } catch {
            await connection?.close()  // a browser that failed to start is not asked to quit
            await browser.stop(connection: nil)
            throw error
        }
    }
}
