// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthControlledBrowsers
import WebAuthCore
import WebAuthTestSupport
import WebAuthTesting

#if canImport(Glibc)
    import Glibc
    import WebAuthEmbeddedProvider
#endif

extension ChromiumTests {
    /// Whole sessions through real headless Chromium (Debian's, with the offline flags), each against
    /// a local authorization page. The browser is the only receiver: nothing is registered anywhere.
    @Suite("Chromium sessions", .timeLimit(.minutes(2)))
    struct SessionTests {
        /// `MAP callback.example` to a local listener, everything else as the offline flags have it.
        private static func rules(mappingCallbackTo network: LocalPageServer) -> String {
            "MAP callback.example 127.0.0.1:\(network.port), MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"
        }

        /// After a session ended: the browser is gone, so it can make no connection later, and
        /// `network` saw none before (its barrier request is the only one it ever took).
        private static func expectNoConnection(to network: LocalPageServer, from testbed: ChromiumTestbed) async throws
        {
            let instance = try #require(testbed.instances.first)
            #expect(BrowserProcessGroup.liveMembers(of: instance.pid).isEmpty, "the browser has exited")
            try await network.barrier()
            #expect(network.connectionCount == 1, "no connection to the callback host")
            #expect(await network.requestedPaths == [LocalPageServer.barrierPath])
        }

        // MARK: - Catching the callback

        @Test func aRedirectToACustomSchemeIsCaughtInTheBrowser() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            try await AuthorizationPageServer.withServer { server in
                let state = UUID().uuidString
                let session = WebAuthSession(
                    url: server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: state),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(45)
                let callbackURL = try await session.authenticate().url

                #expect(callbackURL.scheme == "com.example.app")
                #expect(callbackURL.path == "/cb")
                #expect(queryValue("state", in: callbackURL) == state)
                let request = try #require(await server.authorizationRequests.first)
                #expect(queryValue("code", in: callbackURL) == request.issuedCode)
                #expect(request.header("User-Agent")?.contains("Chrome") == true)

                // Dismissed: the browser and its helpers are gone, and so is the ephemeral profile.
                let instance = try #require(testbed.instances.first)
                #expect(instance.isEphemeral)
                #expect(BrowserProcessGroup.liveMembers(of: instance.pid).isEmpty)
                #expect(processIsGone(instance.pid))
                #expect(!FileManager.default.fileExists(atPath: instance.profileDirectory.path))
            }
        }

        @Test func anHTTPSCallbackIsStoppedBeforeItReachesTheNetwork() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            // callback.example resolves to a local listener that counts connections, and the proxy is
            // bypassed for it: a request that got out would be seen there (the stray-link test below
            // shows that one does).
            let network = try await LocalPageServer()
            defer { network.stop() }
            let environment = testbed.environment(
                extraArguments: ["--proxy-bypass-list=callback.example"],
                hostResolverRules: Self.rules(mappingCallbackTo: network))
            try await AuthorizationPageServer.withServer { server in
                let session = WebAuthSession(
                    url: server.authorizationURL(redirectURI: URL(string: "https://callback.example/cb")!, state: "s1"),
                    callback: .https(host: "callback.example", path: "/cb"), environment: environment)
                session.timeout = .seconds(45)
                session.prefersEphemeralWebBrowserSession = true
                let callbackURL = try await session.authenticate().url

                #expect(callbackURL.host == "callback.example")
                #expect(callbackURL.path == "/cb")
                #expect(queryValue("state", in: callbackURL) == "s1")
                try await Self.expectNoConnection(to: network, from: testbed)
            }
        }

        @Test func aLinkToTheHTTPSCallbackIsStoppedAtTheRequest() async throws {
            // A page-initiated navigation (no redirect to look at): paused as a request, before DNS.
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let network = try await LocalPageServer()
            defer { network.stop() }
            let pages = try await LocalPageServer(pages: [
                "/link": #"<!DOCTYPE html><a id="go" href="https://callback.example/cb/done?code=yes">Continue</a>"#
            ])
            defer { pages.stop() }
            let environment = testbed.environment(
                extraArguments: ["--proxy-bypass-list=callback.example"],
                hostResolverRules: Self.rules(mappingCallbackTo: network))
            let session = WebAuthSession(
                url: pages.url("/link"), callback: .https(host: "callback.example", path: "/cb"),
                environment: environment)
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(45)
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser

            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/link")
            // The click can end the session, and so close the pipe, before the reply to it arrives;
            // what counts is the session's result below.
            _ = try? await instance.evaluate("document.getElementById('go').click()")
            let callbackURL = try await result.value.get()
            #expect(callbackURL.absoluteString == "https://callback.example/cb/done?code=yes")
            try await Self.expectNoConnection(to: network, from: testbed)
        }

        @Test func aMetaRefreshToACustomSchemeIsCaught() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            try await AuthorizationPageServer.withServer { server in
                let session = WebAuthSession(
                    url: server.authorizationURL(
                        redirectURI: URL(string: "com.example.app:/cb")!, state: "meta", mode: .page),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(45)
                let callbackURL = try await session.authenticate().url
                #expect(callbackURL.path == "/cb")
                #expect(queryValue("state", in: callbackURL) == "meta")
                #expect(try #require(await server.authorizationRequests.first).responseStatus == 200)
            }
        }

        @Test func aLinkClickToACustomSchemeIsCaught() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let pages = try await LocalPageServer(pages: [
                "/link": #"<!DOCTYPE html><a id="go" href="com.example.app://cb?code=clicked&state=l">Continue</a>"#
            ])
            defer { pages.stop() }
            let session = WebAuthSession(
                url: pages.url("/link"), callback: .customScheme("com.example.app"), environment: testbed.environment())
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(45)
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser

            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/link")
            // The click can end the session, and so close the pipe, before the reply to it arrives;
            // what counts is the session's result below.
            _ = try? await instance.evaluate("document.getElementById('go').click()")
            let callbackURL = try await result.value.get()
            #expect(callbackURL.absoluteString == "com.example.app://cb?code=clicked&state=l")
        }

        // MARK: - Matching rules for stray links

        @Test func aStrayLinkWithTheCustomSchemeAndAnotherPathCompletes() async throws {
            // Documented rule: a custom-scheme callback matches any host and path of that scheme.
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let pages = try await LocalPageServer(pages: [
                "/stray": #"<!DOCTYPE html><a id="stray" href="com.example.app:/elsewhere?x=1">Help</a>"#
            ])
            defer { pages.stop() }
            let session = WebAuthSession(
                url: pages.url("/stray"), callback: .customScheme("com.example.app"), environment: testbed.environment()
            )
            session.timeout = .seconds(45)
            session.prefersEphemeralWebBrowserSession = true
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser

            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/stray")
            // The click can end the session, and so close the pipe, before the reply to it arrives;
            // what counts is the session's result below.
            _ = try? await instance.evaluate("document.getElementById('stray').click()")
            let callbackURL = try await result.value.get()
            #expect(callbackURL.path == "/elsewhere")
        }

        @Test func aStrayLinkToTheHTTPSCallbackHostOnAnotherPathGoesOn() async throws {
            // Documented rule: an https callback matches its path and below only, so /other is an
            // ordinary navigation: it reaches the network and does not end the session.
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let network = try await LocalPageServer()
            defer { network.stop() }
            let pages = try await LocalPageServer(pages: [
                "/stray": #"<!DOCTYPE html><a id="stray" href="https://callback.example/other?code=nope">Help</a>"#
            ])
            defer { pages.stop() }
            let environment = testbed.environment(
                extraArguments: ["--proxy-bypass-list=callback.example"],
                hostResolverRules: Self.rules(mappingCallbackTo: network))
            let session = WebAuthSession(
                url: pages.url("/stray"), callback: .https(host: "callback.example", path: "/cb"),
                environment: environment)
            session.timeout = .seconds(45)
            session.prefersEphemeralWebBrowserSession = true
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser

            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/stray")
            _ = try await instance.evaluate("document.getElementById('stray').click()")
            #expect(
                await eventually(within: .seconds(20)) { network.connectionCount > 0 },
                "the stray navigation went on to the network")
            // The interceptor decided on the stray URL before the navigation went on: the
            // session, cancelled now, must still have been waiting.
            session.cancel()
            let error = try #require(await result.value.failure, "the stray URL did not complete the session")
            #expect(error.code == .canceledLogin)
            #expect(error.cancellationReason == .program)
        }

        // MARK: - Extra header fields

        @Test func additionalHeaderFieldsGoWithTheFirstRequestOnly() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            try await AuthorizationPageServer.withServer { server in
                // The first page moves on client-side to a second /authorize request, which redirects
                // to the callback: two requests, of which only the first may carry the header.
                let second = server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: "second")
                let first = server.authorizationURL(redirectURI: second, state: "first", mode: .page)
                let session = WebAuthSession(
                    url: first, callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.additionalHeaderFields = ["X-Webauth-Test": "42"]
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(45)
                let callbackURL = try await session.authenticate().url
                #expect(queryValue("state", in: callbackURL) == "second")

                let requests = await server.authorizationRequests
                try #require(requests.count == 2)
                #expect(requests[0].queryValue("state") == "first")
                #expect(requests[0].header("X-Webauth-Test") == "42")
                #expect(requests[0].header("User-Agent")?.contains("Chrome") == true, "the browser's own fields stay")
                #expect(requests[1].queryValue("state") == "second")
                #expect(requests[1].header("X-Webauth-Test") == nil)
            }
        }

        // MARK: - Profiles

        @Test func anEphemeralSessionStartsWithoutCookiesAndLeavesNoProfile() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            try await AuthorizationPageServer.withServer { server in
                for run in 0..<2 {
                    // /authorize sets the cookie and redirects to a second /authorize, which shows
                    // whether the cookie stuck within the session.
                    let inner = server.authorizationURL(
                        redirectURI: URL(string: "com.example.app:/cb")!, state: "inner-\(run)")
                    let session = WebAuthSession(
                        url: server.authorizationURL(redirectURI: inner, state: "outer-\(run)", mode: .cookie),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(45)
                    _ = try await session.authenticate().url
                }
                let requests = await server.authorizationRequests
                try #require(requests.count == 4)
                #expect(!requests[0].cameWithTestCookie)
                #expect(requests[1].cameWithTestCookie, "the cookie is kept during the session")
                #expect(!requests[2].cameWithTestCookie, "the second session starts without it")
                #expect(requests[3].cameWithTestCookie)
            }
            let instances = testbed.instances
            try #require(instances.count == 2)
            #expect(instances[0].profileDirectory != instances[1].profileDirectory)
            for instance in instances {
                #expect(instance.isEphemeral)
                #expect(instance.profileDirectory.path.hasPrefix(testbed.ephemeralProfiles.path))
                #expect(!FileManager.default.fileExists(atPath: instance.profileDirectory.path))
            }
            #expect(testbed.leftoverEphemeralProfiles.isEmpty)
        }

        @Test func aSharedSessionKeepsItsCookies() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            try await AuthorizationPageServer.withServer { server in
                for run in 0..<2 {
                    let inner = server.authorizationURL(
                        redirectURI: URL(string: "com.example.app:/cb")!, state: "inner-\(run)")
                    let session = WebAuthSession(
                        url: server.authorizationURL(redirectURI: inner, state: "outer-\(run)", mode: .cookie),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = false
                    // Extra fields replace the request's header list; cookies must survive that.
                    session.additionalHeaderFields = ["X-Webauth-Test": "\(run)"]
                    session.timeout = .seconds(45)
                    _ = try await session.authenticate().url
                }
                let requests = await server.authorizationRequests
                try #require(requests.count == 4)
                #expect(!requests[0].cameWithTestCookie)
                #expect(requests[1].cameWithTestCookie)
                #expect(requests[2].cameWithTestCookie, "signed in once, still signed in")
                #expect(requests[2].header("X-Webauth-Test") == "1")
                #expect(requests[3].header("X-Webauth-Test") == nil)
            }
            let instances = testbed.instances
            try #require(instances.count == 2)
            for instance in instances {
                #expect(!instance.isEphemeral)
                #expect(instance.profileDirectory.standardizedFileURL == testbed.sharedProfile.standardizedFileURL)
                #expect(processIsGone(instance.pid))
            }
            #expect(FileManager.default.fileExists(atPath: testbed.sharedProfile.path), "the shared profile is kept")
            var status = stat()
            #expect(stat(testbed.sharedProfile.path, &status) == 0 && status.st_mode & 0o777 == 0o700)
            #expect(testbed.leftoverEphemeralProfiles.isEmpty)
        }

        @Test func aSharedProfileInUseIsRefusedClearly() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let pages = try await LocalPageServer(pages: ["/wait": "<!DOCTYPE html><p>Sign in…</p>"])
            defer { pages.stop() }
            let first = WebAuthSession(
                url: pages.url("/wait"), callback: .customScheme("com.example.app"), environment: testbed.environment())
            first.timeout = .seconds(45)
            let firstResult = Task { await outcome(of: first) }
            defer { first.cancel() }
            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/wait")

            let second = WebAuthSession(
                url: pages.url("/wait"), callback: .customScheme("com.example.app"), environment: testbed.environment())
            second.timeout = .seconds(45)
            let error = try #require(await outcome(of: second).failure)
            #expect(error.code == .browserLaunchFailed)
            #expect(error.message.contains("shared browser profile is in use"))
            #expect(testbed.instances.count == 1, "no second browser was started")

            first.cancel()
            #expect(await firstResult.value.failure?.cancellationReason == .program)
        }

        // MARK: - Endings

        @Test func cancelClosesTheBrowserAndEveryProcessOfItsGroup() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let pages = try await LocalPageServer(pages: ["/wait": "<!DOCTYPE html><p>Sign in…</p>"])
            defer { pages.stop() }
            let session = WebAuthSession(
                url: pages.url("/wait"), callback: .customScheme("com.example.app"), environment: testbed.environment())
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(45)
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser
            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/wait")
            #expect(BrowserProcessGroup.liveMembers(of: instance.pid).count > 1, "the browser runs helper processes")

            session.cancel()
            let error = try #require(await result.value.failure)
            #expect(error.code == .canceledLogin)
            #expect(error.cancellationReason == .program)
            // The result is delivered after the teardown: nothing of the browser is left.
            #expect(BrowserProcessGroup.liveMembers(of: instance.pid).isEmpty)
            #expect(processIsGone(instance.pid))
            #expect(!FileManager.default.fileExists(atPath: instance.profileDirectory.path))
        }

        @Test func closingThePageEndsTheSessionAsCancelledByTheUser() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let pages = try await LocalPageServer(pages: ["/wait": "<!DOCTYPE html><p>Sign in…</p>"])
            defer { pages.stop() }
            let session = WebAuthSession(
                url: pages.url("/wait"), callback: .customScheme("com.example.app"), environment: testbed.environment())
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(45)
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser
            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/wait")

            try await instance.closePage()  // as the person closing the tab
            let error = try #require(await result.value.failure)
            #expect(error.code == .canceledLogin)
            #expect(error.cancellationReason == .user)
            #expect(BrowserProcessGroup.liveMembers(of: instance.pid).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: instance.profileDirectory.path))
        }

        @Test func aKilledBrowserEndsTheSessionWithAClearError() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let pages = try await LocalPageServer(pages: ["/wait": "<!DOCTYPE html><p>Sign in…</p>"])
            defer { pages.stop() }
            let session = WebAuthSession(
                url: pages.url("/wait"), callback: .customScheme("com.example.app"), environment: testbed.environment())
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(45)
            let result = Task { await outcome(of: session) }
            defer { session.cancel() }  // if the test stops early, so does the browser
            let instance = try await testbed.instance()
            try await testbed.waitForPage(instance, path: "/wait")

            let killed = ContinuousClock.now
            kill(instance.pid, SIGKILL)
            let error = try #require(await result.value.failure)
            #expect(ContinuousClock.now - killed < .seconds(15), "no hang")
            #expect(error.code == .browserLaunchFailed)
            #expect(error.message.contains("exited"))
            #expect(error.message.contains("signal 9"))
            #expect(BrowserProcessGroup.liveMembers(of: instance.pid).isEmpty, "orphaned helpers are ended too")
            #expect(!FileManager.default.fileExists(atPath: instance.profileDirectory.path))
        }

        @Test func aMissingExecutableMeansNoBrowserAvailable() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            var explicit = testbed.options()
            explicit.executable = testbed.root.appendingPathComponent("no-such-chromium").path
            var searched = testbed.options()
            searched.environment["PATH"] = testbed.root.path
            for options in [explicit, searched] {
                let session = WebAuthSession(
                    url: URL(string: "https://auth.example/authorize")!, callback: .customScheme("com.example.app"),
                    environment: SessionEnvironment(browser: ChromiumBrowser(options: options), receivers: []))
                session.timeout = .seconds(20)
                let error = try #require(await outcome(of: session).failure)
                #expect(error.code == .noBrowserAvailable)
                #expect(error.message.contains("install"))
            }
            #expect(testbed.instances.isEmpty)
        }

        @Test func aBrowserThatExitsWhileStartingIsReportedWithItsOutput() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let script = testbed.root.appendingPathComponent("broken-chromium")
            try Data("#!/bin/sh\necho 'cannot open display' >&2\nexit 3\n".utf8).write(to: script)
            chmod(script.path, 0o755)
            var options = testbed.options()
            options.executable = script.path
            let session = WebAuthSession(
                url: URL(string: "https://auth.example/authorize")!, callback: .customScheme("com.example.app"),
                environment: SessionEnvironment(browser: ChromiumBrowser(options: options), receivers: []))
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(30)
            let error = try #require(await outcome(of: session).failure)
            #expect(error.code == .browserLaunchFailed)
            #expect(error.message.contains("exited while starting (exit status 3)"))
            #expect(error.message.contains("cannot open display"))
            #expect(testbed.leftoverEphemeralProfiles.isEmpty)
        }

        @Test func aBrowserThatNeverAnswersTimesOutAndIsEnded() async throws {
            let testbed = try ChromiumTestbed()
            defer { testbed.tearDown() }
            let script = testbed.root.appendingPathComponent("silent-chromium")
            let pidFile = testbed.root.appendingPathComponent("silent.pid")
            try Data("#!/bin/sh\necho $$ > '\(pidFile.path)'\nexec sleep 60\n".utf8).write(to: script)
            chmod(script.path, 0o755)
            var options = testbed.options()
            options.executable = script.path
            options.launchTimeout = .seconds(2)
            let session = WebAuthSession(
                url: URL(string: "https://auth.example/authorize")!, callback: .customScheme("com.example.app"),
                environment: SessionEnvironment(browser: ChromiumBrowser(options: options), receivers: []))
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(30)
            let error = try #require(await outcome(of: session).failure)
            #expect(error.code == .browserLaunchFailed)
            #expect(error.message.contains("did not answer on its DevTools pipe"))
            let pid = try #require(
                pid_t(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(processIsGone(pid), "the silent browser was ended")
            #expect(testbed.leftoverEphemeralProfiles.isEmpty)
        }
    }
}
