import Foundation
import Testing
import WebAuthCore
import WebAuthTestSupport

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

/// Whole sessions through real headless Firefox (Debian's `firefox-esr`) over WebDriver BiDi,
/// each against a local authorization page, with every proxy pointed at a local recorder so that
/// nothing leaves the machine and anything that tries is seen. Firefox is the only receiver.
@Suite("Firefox sessions", .serialized, .timeLimit(.minutes(3)))
struct FirefoxSessionTests {
    typealias Testbed = FirefoxTestbed

    // MARK: - Catching the callback

    @Test func aRedirectToACustomSchemeIsStoppedAndCompletesTheSession() async throws {
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                let state = UUID().uuidString
                let session = WebAuthenticationSession(
                    url: server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: state),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let callbackURL = try await session.authenticate()

                #expect(callbackURL.scheme == "com.example.app")
                #expect(callbackURL.path == "/cb")
                let request = try #require(await server.authorizationRequests.first)
                #expect(Testbed.query(callbackURL)["state"] == state)
                #expect(Testbed.query(callbackURL)["code"] == request.issuedCode)
                #expect(request.header("User-Agent")?.contains("Firefox") == true)
                #expect(await server.authorizationRequests.count == 1)
                #expect(testbed.network.connections.isEmpty, "nothing left the machine: \(testbed.network.connections)")
                let presentation = try await testbed.presentation()
                #expect(Testbed.members(ofProcessGroup: presentation.processID).isEmpty)
            }
        }
    }

    @Test func anHTTPSCallbackIsStoppedBeforeAnyRequestReachesTheNetwork() async throws {
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                let session = WebAuthenticationSession(
                    url: server.authorizationURL(redirectURI: URL(string: "https://callback.example/cb")!, state: "s1"),
                    callback: .https(host: "callback.example", path: "/cb"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let callbackURL = try await session.authenticate()

                #expect(callbackURL.host == "callback.example")
                #expect(callbackURL.path == "/cb")
                #expect(Testbed.query(callbackURL)["state"] == "s1")
                #expect(Testbed.query(callbackURL)["code"] == (await server.authorizationRequests.first?.issuedCode))
                // Every proxy is the recorder: a request to callback.example (or anything else
                // off the machine) would be a connection there.
                #expect(testbed.network.connections.isEmpty, "connections: \(testbed.network.connections)")
            }
        }
    }

    @Test func aCustomSchemeURLOpenedByThePageItselfIsStopped() async throws {
        // `.page` answers 200 with a meta refresh to the callback: no redirect for the network
        // layer to see; Firefox hands the URL to the web handler the profile routes the scheme to.
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                let session = WebAuthenticationSession(
                    url: server.authorizationURL(
                        redirectURI: URL(string: "com.example.app:/cb")!, state: "meta", mode: .page),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let callbackURL = try await session.authenticate()

                #expect(callbackURL.absoluteString.hasPrefix("com.example.app:/cb?"))
                #expect(Testbed.query(callbackURL)["state"] == "meta")
                #expect(Testbed.query(callbackURL)["code"] == (await server.authorizationRequests.first?.issuedCode))
                #expect(testbed.network.connections.isEmpty, "the handler address never left Firefox")
            }
        }
    }

    @Test func additionalHeaderFieldsGoWithTheFirstRequestOnly() async throws {
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                // The first /authorize redirects to a second one, which redirects to the callback.
                let second = server.authorizationURL(redirectURI: URL(string: "com.example.app:/cb")!, state: "inner")
                let session = WebAuthenticationSession(
                    url: server.authorizationURL(redirectURI: second, state: "outer"),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.additionalHeaderFields = ["X-Test-Header": "42", "X-Other": "two words"]
                session.timeout = .seconds(60)
                let callbackURL = try await session.authenticate()

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
                let session = WebAuthenticationSession(
                    url: server.authorizationURL(
                        redirectURI: URL(string: "com.example.app:/other/place")!, state: "x", mode: .page),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let callbackURL = try await session.authenticate()
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
                let session = WebAuthenticationSession(
                    url: server.authorizationURL(redirectURI: URL(string: "https://callback.example/cbx")!, state: "y"),
                    callback: .https(host: "callback.example", path: "/cb"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(8)
                do throws(WebAuthenticationSessionError) {
                    let url = try await session.authenticate()
                    Issue.record("the session completed with \(url.redactedForLogs)")
                } catch {
                    #expect(error.code == .timedOut)
                }
                #expect(testbed.network.connections.contains { $0.contains("callback.example:443") })
            }
        }
    }

    // MARK: - Profiles

    @Test func anEphemeralSessionKeepsNoCookieAndLeavesNoProfile() async throws {
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                for index in 0..<2 {
                    let session = WebAuthenticationSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "com.example.app:/cb")!, state: "e\(index)", mode: .cookie),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = true
                    session.timeout = .seconds(60)
                    let callbackURL = try await session.authenticate()
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
            let session = WebAuthenticationSession(
                url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                environment: testbed.environment())
            session.prefersEphemeralWebBrowserSession = true
            session.timeout = .seconds(60)
            let result = Task { try await session.authenticate() }
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
                    let session = WebAuthenticationSession(
                        url: server.authorizationURL(
                            redirectURI: URL(string: "com.example.app:/cb")!, state: "s\(index)", mode: .cookie),
                        callback: .customScheme("com.example.app"), environment: testbed.environment())
                    session.prefersEphemeralWebBrowserSession = false
                    // Rewriting the first request's header fields must not lose the cookie.
                    session.additionalHeaderFields = ["X-Test-Header": "\(index)"]
                    session.timeout = .seconds(60)
                    _ = try await session.authenticate()
                    let presentation = try await testbed.presentation(index)
                    #expect(presentation.profileDirectory.standardizedFileURL == testbed.sharedProfile.standardizedFileURL)
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
            let first = WebAuthenticationSession(
                url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                environment: testbed.environment())
            first.timeout = .seconds(60)
            let firstResult = Task { try await first.authenticate() }
            _ = try await testbed.presentation()

            let second = WebAuthenticationSession(
                url: URL(string: "http://127.0.0.1:9/unreachable")!, callback: .customScheme("com.example.app"),
                environment: testbed.environment())
            second.timeout = .seconds(30)
            let started = ContinuousClock.now
            let error = await #expect(throws: WebAuthenticationSessionError.self) { try await second.authenticate() }
            #expect(error?.code == .browserLaunchFailed)
            #expect(error?.message.contains("in use") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(10), "it fails at once")
            #expect(testbed.presentations.count == 1, "no second Firefox was started")

            first.cancel()
            _ = await firstResult.result
        }
    }

    // MARK: - Endings

    @Test func cancelClosesFirefoxAndEveryProcessOfItsGroupExits() async throws {
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                let session = WebAuthenticationSession(
                    url: server.baseURL.appendingPathComponent("a-page-that-stays"),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let result = Task { try await session.authenticate() }
                let presentation = try await testbed.presentation()
                _ = await server.waitForRequests(path: "/a-page-that-stays")
                let group = presentation.processID
                #expect(Testbed.members(ofProcessGroup: group).count >= 2, "Firefox runs helper processes")

                session.cancel()
                let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
                #expect(error?.code == .canceledLogin)
                #expect(error?.cancellationReason == .program)
                // The result is delivered after dismissal: nothing of the group is left, not even a zombie.
                #expect(Testbed.members(ofProcessGroup: group).isEmpty)
                #expect(!Testbed.exists(presentation.profileDirectory))
            }
        }
    }

    @Test func thePersonClosingTheWindowCancelsWithReasonUser() async throws {
        try await Testbed.with { testbed in
            try await AuthorizationPageServer.withServer { server in
                let session = WebAuthenticationSession(
                    url: server.baseURL.appendingPathComponent("a-page-that-stays"),
                    callback: .customScheme("com.example.app"),
                    environment: testbed.environment(extraPreferences: ["dom.allow_scripts_to_close_windows": true]))
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let result = Task { try await session.authenticate() }
                let presentation = try await testbed.presentation()
                _ = await server.waitForRequests(path: "/a-page-that-stays")

                try await presentation.closeTabAsThePersonWould()
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
                let session = WebAuthenticationSession(
                    url: server.baseURL.appendingPathComponent("a-page-that-stays"),
                    callback: .customScheme("com.example.app"), environment: testbed.environment())
                session.prefersEphemeralWebBrowserSession = true
                session.timeout = .seconds(60)
                let result = Task { try await session.authenticate() }
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
            let session = WebAuthenticationSession(
                url: URL(string: "https://example.com/authorize")!, callback: .customScheme("com.example.app"),
                environment: SessionEnvironment(browser: FirefoxBrowser(options: options), receivers: []))
            session.timeout = .seconds(10)
            let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate() }
            #expect(error?.code == .noBrowserAvailable)
            #expect(error?.message.contains("no-such-firefox") == true)

            options.executable = "firefox-that-is-not-installed"
            let byName = WebAuthenticationSession(
                url: URL(string: "https://example.com/authorize")!, callback: .customScheme("com.example.app"),
                environment: SessionEnvironment(browser: FirefoxBrowser(options: options), receivers: []))
            let nameError = await #expect(throws: WebAuthenticationSessionError.self) { try await byName.authenticate() }
            #expect(nameError?.code == .noBrowserAvailable)
            #expect(nameError?.message.contains("in PATH") == true)
            #expect(testbed.presentations.isEmpty)
        }
    }
}
