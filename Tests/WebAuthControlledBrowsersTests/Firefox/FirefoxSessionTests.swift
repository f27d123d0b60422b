// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Testing
import WebAuthCore
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTesting

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
    import WebAuthEmbeddedProvider
#endif

/// Whole sessions through real headless Firefox (Debian's `firefox-esr`) over WebDriver BiDi,
/// each against a local authorization page, with every proxy pointed at a local recorder so that
/// nothing leaves the machine and anything that tries is seen. Firefox is the only receiver.
extension RealFirefoxTests {
    @Suite("Firefox sessions", .timeLimit(.minutes(3)))
    struct SessionTests {
        typealias Testbed = FirefoxTestbed

        // MARK: - Catching the callback

        @Test func aRedirectToACustomSchemeIsStoppedAndCompletesTheSession() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let state = UUID().uuidString
                    let session = WebAuthSession(
                        url: server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: state),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate().url

                    #expect(callbackURL.scheme == "com.example.app")
                    #expect(callbackURL.path == "/cb")
                    let request = try #require(await server.authorizationRequests.first)
                    #expect(Testbed.query(callbackURL)["state"] == state)
                    #expect(Testbed.query(callbackURL)["code"] == request.issuedCode)
                    #expect(request.header("User-Agent")?.contains("Firefox") == true)
                    #expect(await server.authorizationRequests.count == 1)
                    #expect(
                        testbed.network.connections.isEmpty, "nothing left the machine: \(testbed.network.connections)")
                    let presentation = try await testbed.presentation()
                    #expect(Testbed.members(ofProcessGroup: presentation.processID).isEmpty)
                }
            }
        }

        @Test func anHTTPSCallbackIsStoppedBeforeAnyRequestReachesTheNetwork() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "https://callback.example/cb")!, state: "s1"),
                        callback: .https(host: "callback.example", path: "/cb"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate().url

                    #expect(callbackURL.host == "callback.example")
                    #expect(callbackURL.path == "/cb")
                    #expect(Testbed.query(callbackURL)["state"] == "s1")
                    #expect(
                        Testbed.query(callbackURL)["code"] == (await server.authorizationRequests.first?.issuedCode))
                    // Every proxy is the recorder: a request to callback.example (or anything else
                    // off the machine) would be a connection there.
                    #expect(testbed.network.connections.isEmpty, "connections: \(testbed.network.connections)")
                }
            }
        }

        @Test func anHTTPSCallbackCausesNoDNSLookup() async throws {
            // The callback host is exempt from the proxy and "resolves" through Firefox's own
            // localDomains list (so no query could leave the machine), and Firefox logs every lookup
            // it starts. A stray URL on the same host, which is not the callback, is the control: its
            // lookup must show up in the same log.
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let log = testbed.root.appendingPathComponent("dns.log")
                    var options = testbed.options(extraPreferences: [
                        "network.proxy.no_proxies_on": "callback.example",
                        "network.dns.localDomains": "callback.example",
                    ])
                    options.environment["MOZ_LOG"] = "nsHostResolver:5"
                    options.environment["MOZ_LOG_FILE"] = log.path
                    let environment = SessionEnvironment(browser: FirefoxBrowser(options: options), receivers: [])
                    func lookups() -> String {
                        let files = (try? FileManager.default.contentsOfDirectory(atPath: testbed.root.path)) ?? []
                        return files.filter { $0.hasPrefix("dns.log") }.compactMap {
                            try? String(contentsOf: testbed.root.appendingPathComponent($0), encoding: .utf8)
                        }.joined().split(separator: "\n").filter { $0.contains("Resolving host") }.joined(
                            separator: "\n")
                    }

                    let session = WebAuthSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "https://callback.example/cb")!, state: "d"),
                        callback: .https(host: "callback.example", path: "/cb"), environment: environment)
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate().url
                    #expect(Testbed.query(callbackURL)["state"] == "d")
                    let afterCallback = lookups()
                    let logFiles = try FileManager.default.contentsOfDirectory(atPath: testbed.root.path)
                    #expect(logFiles.contains { $0.hasPrefix("dns.log") }, "Firefox wrote its resolver log")
                    #expect(!afterCallback.contains("callback.example"), "\(afterCallback)")

                    let stray = WebAuthSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "https://callback.example/other")!, state: "c"),
                        callback: .https(host: "callback.example", path: "/cb"), environment: environment)
                    stray.prefersEphemeralWebBrowserSession = true
                    stray.timeout = .seconds(90)
                    let strayResult = Task { try await stray.authenticate().url }
                    #expect(
                        await eventually { lookups().contains("callback.example") },
                        "the control URL was looked up")
                    stray.cancel()
                    _ = await strayResult.result
                    #expect(testbed.network.connections.isEmpty, "\(testbed.network.connections)")
                }
            }
        }

        @Test func aCustomSchemeURLOpenedByThePageItselfIsStopped() async throws {
            // `.page` answers 200 with a meta refresh to the callback: no redirect for the network
            // layer to see; Firefox hands the URL to the web handler the profile routes the scheme to.
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "com.example.app:/cb")!, state: "meta", mode: .page),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate().url

                    #expect(callbackURL.absoluteString.hasPrefix("com.example.app:/cb?"))
                    #expect(Testbed.query(callbackURL)["state"] == "meta")
                    #expect(
                        Testbed.query(callbackURL)["code"] == (await server.authorizationRequests.first?.issuedCode))
                    #expect(testbed.network.connections.isEmpty, "the handler address never left Firefox")
                }
            }
        }

        @Test func additionalHeaderFieldsGoWithTheFirstRequestOnly() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    // The first /authorize redirects to a second one, which redirects to the callback.
                    let second = server.authorizationURL(
                        redirectURI: URL(string: "com.example.app:/cb")!, state: "inner")
                    let session = WebAuthSession(
                        url: server.authorizationURL(redirectURI: second, state: "outer"),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.additionalHeaderFields = ["X-Test-Header": "42", "X-Other": "two words"]
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate().url

                    #expect(Testbed.query(callbackURL)["state"] == "inner")
                    let requests = await server.authorizationRequests
                    try #require(requests.count == 2)
                    #expect(requests[0].header("X-Test-Header") == "42")
                    #expect(requests[0].header("X-Other") == "two words")
                    #expect(requests[0].header("User-Agent")?.contains("Firefox") == true, "Firefox's own headers stay")
                    #expect(requests[1].header("X-Test-Header") == nil)
                    #expect(requests[1].header("X-Other") == nil)
                }
            }
        }

        // MARK: - Matching rules for stray links

        @Test func aCustomSchemeURLWithAnotherPathStillMatches() async throws {
            // Documented rule: a custom-scheme callback matches any path of its scheme.
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "com.example.app:/other/place")!, state: "x", mode: .page),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate().url
                    #expect(callbackURL.path == "/other/place")
                    #expect(testbed.network.connections.isEmpty)
                }
            }
        }

        @Test func anHTTPSURLOnAnotherPathDoesNotComplete() async throws {
            // Documented rule: an https callback matches its host and path (or below it) only. The
            // stray URL is not intercepted: Firefox really sends it to "the network" (the recorder).
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "https://callback.example/cbx")!, state: "y"),
                        callback: .https(host: "callback.example", path: "/cb"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(90)
                    let result = Task { try await session.authenticate().url }
                    #expect(
                        await eventually {
                            testbed.network.connections.contains("CONNECT callback.example:443 HTTP/1.1")
                        })
                    // The interceptor decided before the navigation went on to the network.
                    session.cancel()
                    let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
                    #expect(
                        error?.code == .canceledLogin, "the session was still waiting: \(String(describing: error))")
                }
            }
        }

        // MARK: - Profiles

        @Test func anEphemeralSessionKeepsNoCookieAndLeavesNoProfile() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    for index in 0..<2 {
                        let session = WebAuthSession(
                            url: server.authorizationURL(
                                redirectURI: URL(string: "com.example.app:/cb")!, state: "e\(index)", mode: .cookie),
                            callback: .customScheme("com.example.app"), environment: testbed.environment())
                        session.prefersEphemeralWebBrowserSession = true
                        session.timeout = .seconds(60)
                        let callbackURL = try await session.authenticate().url
                        #expect(Testbed.query(callbackURL)["state"] == "e\(index)")
                        let presentation = try await testbed.presentation(index)
                        #expect(presentation.profileDirectory.path.hasPrefix(testbed.ephemeralBase.path))
                        #expect(!Testbed.exists(presentation.profileDirectory), "the profile is removed")
                    }
                    let requests = await server.authorizationRequests
                    try #require(requests.count == 2)
                    #expect(!requests[0].cameWithTestCookie)
                    #expect(!requests[1].cameWithTestCookie, "the second session did not get the first one's cookie")
                    let left = try FileManager.default.contentsOfDirectory(atPath: testbed.ephemeralBase.path)
                    #expect(left.isEmpty, "nothing left in the ephemeral directory: \(left)")
                    #expect(!Testbed.exists(testbed.sharedProfile))
                }
            }
        }

        @Test func anEphemeralProfileIsPrivateWhileItExists() async throws {
            try await Testbed.with { testbed in
                let session = WebAuthSession(
                    url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                    environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let result = Task { try await session.authenticate().url }
                let presentation = try await testbed.presentation()
                #expect(Testbed.mode(of: presentation.profileDirectory) == 0o700)
                #expect(Testbed.mode(of: testbed.ephemeralBase) == 0o700)
                let userJS = try String(
                    contentsOf: presentation.profileDirectory.appendingPathComponent("user.js"), encoding: .utf8)
                #expect(userJS.contains(#"user_pref("toolkit.telemetry.enabled", false);"#))
                #expect(userJS.contains(#"user_pref("network.protocol-handler.external.com.example.app", true);"#))
                session.cancel()
                _ = await result.result
                #expect(!Testbed.exists(presentation.profileDirectory))
            }
        }

        @Test func theSharedProfileKeepsTheCookie() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    for index in 0..<2 {
                        let session = WebAuthSession(
                            url: server.authorizationURL(
                                redirectURI: URL(string: "com.example.app:/cb")!, state: "s\(index)", mode: .cookie),
                            callback: .customScheme("com.example.app"), environment: testbed.environment())
                        session.prefersEphemeralWebBrowserSession = false
                        // Rewriting the first request's header fields must not lose the cookie.
                        session.additionalHeaderFields = ["X-Test-Header": "\(index)"]
                        session.timeout = .seconds(60)
                        _ = try await session.authenticate().url
                        let presentation = try await testbed.presentation(index)
                        #expect(
                            presentation.profileDirectory.standardizedFileURL
                                == testbed.sharedProfile.standardizedFileURL)
                    }
                    let requests = await server.authorizationRequests
                    try #require(requests.count == 2)
                    #expect(!requests[0].cameWithTestCookie)
                    #expect(requests[1].cameWithTestCookie, "the person stays signed in")
                    #expect(requests[1].header("X-Test-Header") == "1")
                    #expect(Testbed.exists(testbed.sharedProfile.appendingPathComponent("cookies.sqlite")))
                    #expect(Testbed.mode(of: testbed.sharedProfile) == 0o700)
                }
            }
        }

        @Test func aSharedProfileInUseFailsClearly() async throws {
            try await Testbed.with { testbed in
                let first = WebAuthSession(
                    url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                    environment: testbed.environment())
                first.timeout = .seconds(60)
                let firstResult = Task { try await first.authenticate().url }
                _ = try await testbed.presentation()

                let second = WebAuthSession(
                    url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                    environment: testbed.environment())
                second.timeout = .seconds(30)
                let started = ContinuousClock.now
                let error = await #expect(throws: WebAuthenticationSessionError.self) {
                    try await second.authenticate().url
                }
                #expect(error?.code == .browserLaunchFailed)
                #expect(error?.message.contains("in use") == true, "\(String(describing: error))")
                #expect(ContinuousClock.now - started < .seconds(10), "it fails at once")
                #expect(testbed.presentations.count == 1, "no second Firefox was started")

                first.cancel()
                _ = await firstResult.result
            }
        }

        // MARK: - The BiDi port

        @Test func firefoxAcceptsOneBiDiSessionSoALaterClientIsRefused() async throws {
            // What the security note relies on: once the session holds Firefox, another local
            // program that connects to the port gets no session.
            try await Testbed.with { testbed in
                let executable = try #require(FirefoxBrowser.find(), "Firefox is not installed")
                let profile = testbed.root.appendingPathComponent("one-session", isDirectory: true)
                try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
                try Data(FirefoxProfileSetup.userPreferencesFile(testbed.offlinePreferences).utf8)
                    .write(to: profile.appendingPathComponent("user.js"))
                let output = profile.appendingPathComponent("output.log")
                let process = try Subprocess(
                    executable: executable,
                    arguments: FirefoxLauncher.arguments(profile: profile, headless: true, extra: []),
                    environment: testbed.options().environment, output: output.path)
                let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
                let endpoint = await BiDiEndpoint.wait(
                    outputFile: output.path, process: process, timeout: .seconds(60))
                guard case .ready(let host, let port) = endpoint else {
                    Issue.record("Firefox did not open WebDriver BiDi: \(endpoint)")
                    await process.terminate(grace: .zero)
                    return
                }
                let first = BiDiConnection(
                    socket: try await WebSocketClient.connect(host: host, port: port, path: "/session"), logger: logger)
                _ = try await first.send("session.new", ["capabilities": [:]], timeout: .seconds(60))

                let second = BiDiConnection(
                    socket: try await WebSocketClient.connect(host: host, port: port, path: "/session"), logger: logger)
                do throws(WebAuthenticationSessionError) {
                    _ = try await BiDiSessionSetup.run(
                        on: second, callback: .customScheme("com.example.app"), hasHeaders: false,
                        startupTimeout: .seconds(30), logger: logger)
                    Issue.record("a second BiDi session was accepted")
                } catch {
                    #expect(error.code == .browserLaunchFailed)
                    #expect(error.message.contains("refused"), "\(error)")
                }
                await second.close()
                await first.close()
                await process.terminate(grace: .zero)
            }
        }

        // MARK: - Endings

        @Test func cancelClosesFirefoxAndEveryProcessOfItsGroupExits() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.baseURL.appendingPathComponent("a-page-that-stays"),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let result = Task { try await session.authenticate().url }
                    let presentation = try await testbed.presentation()
                    _ = await server.waitForRequests(path: "/a-page-that-stays")
                    let group = presentation.processID
                    #expect(Testbed.members(ofProcessGroup: group).count >= 2, "Firefox runs helper processes")

                    session.cancel()
                    let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
                    #expect(error?.code == .canceledLogin)
                    #expect(error?.cancellationReason == .program)
                    // The result is delivered after dismissal: nothing of the group still runs, and
                    // no exited process waits for this one to reap it.
                    #expect(Testbed.members(ofProcessGroup: group).isEmpty)
                    #expect(Testbed.zombieChildren(inProcessGroup: group).isEmpty)
                    #expect(!Testbed.exists(presentation.profileDirectory))
                }
            }
        }

        @Test func cancelWhileFirefoxIsStartingLeavesNothingBehind() async throws {
            try await Testbed.with { testbed in
                for delay in [Duration.milliseconds(50), .milliseconds(600)] {
                    let session = WebAuthSession(
                        url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                        environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let result = Task { try await session.authenticate().url }
                    // Real time is the point: cancelling at two moments of a real Firefox's start.
                    try await Task.sleep(for: delay)
                    session.cancel()
                    let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
                    #expect(error?.code == .canceledLogin)
                    #expect(Testbed.processes(mentioning: testbed.root.path).isEmpty, "after \(delay)")
                    let left = (try? FileManager.default.contentsOfDirectory(atPath: testbed.ephemeralBase.path)) ?? []
                    #expect(left.isEmpty, "after \(delay): \(left)")
                }
            }
        }

        @Test func thePersonClosingTheWindowCancelsWithReasonUser() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.baseURL.appendingPathComponent("a-page-that-stays"),
                        callback: .customScheme("com.example.app"),
                        environment: testbed.environment(extraPreferences: ["dom.allow_scripts_to_close_windows": true])
                    )
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let result = Task { try await session.authenticate().url }
                    let presentation = try await testbed.presentation()
                    _ = await server.waitForRequests(path: "/a-page-that-stays")

                    presentation.closeTabAsThePersonWould()
                    let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
                    #expect(error?.code == .canceledLogin)
                    #expect(error?.cancellationReason == .user)
                    #expect(Testbed.members(ofProcessGroup: presentation.processID).isEmpty)
                }
            }
        }

        @Test func firefoxKilledMidFlowEndsTheSessionWithAnErrorNotAHang() async throws {
            try await Testbed.with { testbed in
                try await AuthorizationPageServer.withServer { server in
                    let session = WebAuthSession(
                        url: server.baseURL.appendingPathComponent("a-page-that-stays"),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let result = Task { try await session.authenticate().url }
                    let presentation = try await testbed.presentation()
                    _ = await server.waitForRequests(path: "/a-page-that-stays")

                    let killed = ContinuousClock.now
                    kill(presentation.processID, SIGKILL)
                    let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
                    #expect(error?.code == .browserLaunchFailed)
                    #expect(error?.message.contains("exited") == true, "\(String(describing: error))")
                    #expect(error?.message.contains("signal 9") == true, "\(String(describing: error))")
                    #expect(ContinuousClock.now - killed < .seconds(15), "no hang")
                    #expect(Testbed.members(ofProcessGroup: presentation.processID).isEmpty, "no orphaned helpers")
                    #expect(!Testbed.exists(presentation.profileDirectory))
                }
            }
        }

        @Test func aMissingExecutableMeansNoBrowserAvailable() async throws {
            try await Testbed.with { testbed in
                var options = testbed.options()
                options.executable = testbed.root.appendingPathComponent("no-such-firefox").path
                let session = WebAuthSession(
                    url: URL(string: "https://example.com/authorize")!, callback: .customScheme("com.example.app"),
                    environment: SessionEnvironment(browser: FirefoxBrowser(options: options), receivers: []))
                session.timeout = .seconds(10)
                let error = await #expect(throws: WebAuthenticationSessionError.self) {
                    try await session.authenticate().url
                }
                #expect(error?.code == .noBrowserAvailable)
                #expect(error?.message.contains("no-such-firefox") == true)

                options.executable = "firefox-that-is-not-installed"
                let byName = WebAuthSession(
                    url: URL(string: "https://example.com/authorize")!, callback: .customScheme("com.example.app"),
                    environment: SessionEnvironment(browser: FirefoxBrowser(options: options), receivers: []))
                let nameError = await #expect(throws: WebAuthenticationSessionError.self) {
                    try await byName.authenticate().url
                }
                #expect(nameError?.code == .noBrowserAvailable)
                #expect(nameError?.message.contains("in PATH") == true)
                #expect(testbed.presentations.isEmpty)
            }
        }
    }
}

extension FirefoxPresentation {
    /// Closes the session's tab as the person would, with `window.close()` in the page. Firefox
    /// then closes its only window and quits. Needs the preference
    /// `dom.allow_scripts_to_close_windows` (BiDi's `browsingContext.close` does not close a
    /// window's last tab).
    func closeTabAsThePersonWould() {
        // Not awaited: Firefox may quit before it answers.
        connection.post(
            "script.evaluate",
            ["expression": "window.close()", "target": ["context": .string(context)], "awaitPromise": false])
    }
}
