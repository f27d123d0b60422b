// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthCore
import WebAuthPlatform
import WebAuthProcess

/// Starting Chromium and connecting to it over the DevTools pipe.
///
/// The shared lifecycle takes the profile (``BrowserProfile``) and starts the process
/// (``LaunchedBrowser``); what is Chromium's own is the command line, the profile's preferences
/// (``ChromiumProfileSetup``), the pipe on descriptors 3 and 4, and preparing the page over it
/// (``DevToolsSessionSetup``).
enum ChromiumLauncher: ControlledBrowserLauncher {
    /// The first page: blank, so that interception is in place before anything is loaded.
    static let initialPage = "about:blank"

    /// The command-line arguments, in order: ours, then the caller's `extra` ones, then
    /// ``initialPage``.
    ///
    /// - `--remote-debugging-pipe`: DevTools on descriptors 3 and 4, no TCP port.
    /// - `--user-data-dir`: the session's own profile (ephemeral or shared).
    /// - `--no-first-run`, `--no-default-browser-check`: no welcome pages or prompts.
    /// - `--headless=new` when headless.
    /// - `--no-sandbox` only when running as root: Chromium's sandbox cannot run for the root user
    ///   and the browser refuses to start without this flag. Anyone else keeps the sandbox.
    ///
    /// Nothing here blocks or redirects network traffic; that is the caller's choice, in `extra`.
    static func arguments(profile: URL, headless: Bool, runningAsRoot: Bool, extra: [String]) -> [String] {
        var arguments = [
            "--remote-debugging-pipe",
            "--user-data-dir=\(profile.path)",
            "--no-first-run",
            "--no-default-browser-check",
        ]
        if headless { arguments.append("--headless=new") }
        if runningAsRoot { arguments.append("--no-sandbox") }
        arguments += extra
        arguments.append(initialPage)
        return arguments
    }

    /// Starts `executable` for `request`, prepares its page, and sends it to the authorization
    /// URL. Everything started is stopped and removed again if a step fails.
    static func launch(
        executable: String, request: BrowserRequest, options: ChromiumBrowser.Options
    ) async throws(WebAuthenticationSessionError) -> ChromiumPresentation {
        let started = ContinuousClock.now
        let logger = options.logger
        let (profile, configured) = try await BrowserProfile.claim(
            browser: "chromium", ephemeral: request.prefersEphemeralSession, environment: options.environment,
            runningBrowser: ChromiumProfileSetup.runningBrowser(in:),
            setUp: { ChromiumProfileSetup.apply(to: $0) })
        if !configured {
            logger.notice(
                "could not set the profile's preferences; chromium may preconnect to hosts it navigates to",
                metadata: ["profile": "\(profile.directory.path)"])
        }

        let pipe: DevToolsPipe
        do {
            pipe = try DevToolsPipe.make()
        } catch {
            await profile.release()
            throw .browserLaunchFailed("cannot start chromium: \(error)")
        }
        let headless = options.runsHeadless
        // No watchdog: Chromium exits by itself when our end of its pipe closes, which the kernel
        // does if this process dies; the next start sweeps away an ephemeral profile left behind.
        let browser: LaunchedBrowser
        do {
            browser = try await LaunchedBrowser.start(
                name: "chromium", executable: executable,
                arguments: arguments(
                    profile: profile.directory, headless: headless, runningAsRoot: CurrentProcess.effectiveUserID == 0,
                    extra: options.extraArguments),
                environment: options.environment, descriptors: pipe.childDescriptors, profile: profile, watched: false,
                logger: logger)
        } catch {
            pipe.close()
            throw error
        }

        let (inputStream, inputs) = AsyncStream.makeStream(of: ChromiumPresentation.Input.self)
        let connection = DevToolsConnection(
            pipe: pipe, onEvent: { inputs.yield(.event($0)) }, onClose: { inputs.yield(.pipeClosed($0)) })
        Task {
            let status = await browser.process.exitStatus()
            inputs.yield(.exited(status))
        }
        let page: DevToolsSessionSetup.Result
        do {
            page = try await DevToolsSessionSetup.run(
                on: connection, browser: browser, deadline: started + options.launchTimeout,
                timeout: options.launchTimeout)
        } catch {
            inputs.finish()
            connection.close()  // a browser that failed to start is not asked to quit
            await browser.stop(connection: nil)
            logger.debug("chromium did not start", metadata: ["reason": "\(error.message)"])
            throw error
        }

        let instance = ChromiumInstance(
            pid: browser.process.pid, profileDirectory: profile.directory, isEphemeral: profile.isEphemeral,
            pageTargetID: page.targetID, pageSessionID: page.sessionID, connection: connection)
        instance.record(.launchStarted, at: started)
        instance.record(.browserAnswered, at: page.browserAnswered)
        let presentation = ChromiumPresentation(
            browser: browser, instance: instance, inputs: inputs, logger: logger)
        presentation.start(
            watching: inputStream,
            with: ChromiumNavigationInterceptor(
                callback: request.callback, mainFrameID: page.mainFrameID, authorizationURL: request.url,
                additionalHeaderFields: request.additionalHeaderFields))
        options.launchObserver?(instance)
        inputs.yield(.navigate(request.url))
        logger.debug("chromium is opening the page", metadata: ["url": "\(request.url.redactedForLogs)"])
        return presentation
    }
}
