// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthPlatform
import WebAuthTestSupport
import WebAuthTesting

/// Whole sessions over real sockets: the real loopback listener, a real local authorization page,
/// and either real headless Chromium (as the person's `$BROWSER`) or a redirect-following client.
@Suite("End to end", .serialized)
struct EndToEndTests {
    @Test(TestFixture.chromium.required)
    func headlessChromiumAsTheSystemBrowserCompletesALoopbackSession() async throws {
        let launcher = try TestBrowsers.makeChromiumLauncherScript()
        defer { launcher.terminate() }
        try await AuthorizationPageServer.withServer { server in
            let browser = SystemBrowser(command: BrowserCommand(executable: launcher.scriptPath))
            let state = UUID().uuidString
            let path = uniqueCallbackPath()
            let session = WebAuthSession(
                callback: .loopback(path: path), environment: .standard(browser: browser)
            ) { redirectURI in server.authorizationURL(redirectURI: redirectURI, state: state) }
            session.timeout = .seconds(45)
            let callbackURL = try await session.authenticate().url

            let items = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(items.first { $0.name == "state" }?.value == state)
            let request = try #require(await server.authorizationRequests.first)
            #expect(items.first { $0.name == "code" }?.value == request.issuedCode)
            #expect(request.header("User-Agent")?.contains("Chrome") == true)
            let port = try #require(callbackURL.port)
            #expect(callbackURL.host == "127.0.0.1")
            #expect(await loopbackListenerIsGone(port: port, path: path), "the callback port is released")
        }
    }

    @Test(TestFixture.chromium.required)
    func headlessChromiumFollowsAClientSideRedirect() async throws {
        let launcher = try TestBrowsers.makeChromiumLauncherScript()
        defer { launcher.terminate() }
        try await AuthorizationPageServer.withServer { server in
            let browser = SystemBrowser(command: BrowserCommand(executable: launcher.scriptPath))
            let session = WebAuthSession(
                callback: .loopback(path: "/oauth/done"), environment: .standard(browser: browser)
            ) { redirectURI in server.authorizationURL(redirectURI: redirectURI, state: "page-state", mode: .page) }
            session.timeout = .seconds(45)
            let callbackURL = try await session.authenticate().url
            #expect(callbackURL.path == "/oauth/done")
            #expect(callbackURL.query?.contains("state=page-state") == true)
        }
    }

    @Test func anErrorResponseIsHandedBackForTheCallerToRead() async throws {
        try await AuthorizationPageServer.withServer { server in
            let session = WebAuthSession(
                callback: .loopback(), environment: .standard(browser: RedirectFollowingBrowser())
            ) { redirectURI in server.authorizationURL(redirectURI: redirectURI, state: "s", mode: .error) }
            session.timeout = .seconds(20)
            let callbackURL = try await session.authenticate().url
            #expect(callbackURL.query?.contains("error=access_denied") == true)
        }
    }

    @Test func aForgedCallbackDoesNotConsumeTheSession() async throws {
        try await AuthorizationPageServer.withServer { server in
            let state = UUID().uuidString
            let (listening, listeningContinuation) = AsyncStream.makeStream(of: URL.self)
            let gate = Gate()
            let session = WebAuthSession(
                callback: .loopback(), environment: .standard(browser: GatedBrowser(gate: gate))
            ) { redirectURI in server.authorizationURL(redirectURI: redirectURI, state: state) }
            session.acceptsCallback = { url in
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.contains {
                    $0.name == "state" && $0.value == state
                } == true
            }
            session.progressHandler = { progress in
                if progress.phase == .listening, let uri = progress.redirectURI { listeningContinuation.yield(uri) }
            }
            session.timeout = .seconds(20)
            let result = Task { try await session.authenticate().url }

            var iterator = listening.makeAsyncIterator()
            let redirectURI = try #require(await iterator.next())
            let port = try #require(redirectURI.port)
            let forged = try await RawHTTPClient.get(port: port, target: "/callback?code=attacker&state=guess")
            #expect(forged.status == 400)
            #expect(!forged.body.contains("attacker"))
            let stray = try await RawHTTPClient.get(port: port, target: "/favicon.ico")
            #expect(stray.status == 404)
            gate.open()  // now the real browser goes through the authorization page
            let callbackURL = try await result.value
            #expect(callbackURL.query?.contains("state=\(state)") == true)
            #expect(!callbackURL.query!.contains("attacker"))
        }
    }

    @Test func fiftySessionsAtOnceEachGetTheirOwnCallback() async throws {
        try await AuthorizationPageServer.withServer { server in
            try await withThrowingTaskGroup(of: (String, URL).self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let state = "session-\(index)-\(UUID().uuidString)"
                        let session = WebAuthSession(
                            callback: .loopback(), environment: .standard(browser: RedirectFollowingBrowser())
                        ) { redirectURI in server.authorizationURL(redirectURI: redirectURI, state: state) }
                        session.timeout = .seconds(60)
                        return (state, try await session.authenticate().url)
                    }
                }
                var ports = Set<Int>()
                for try await (state, callbackURL) in group {
                    let items = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
                    #expect(items.first { $0.name == "state" }?.value == state)
                    ports.insert(callbackURL.port ?? 0)
                }
                #expect(ports.count == 50, "every session listened on a port of its own")
            }
            let codes = await server.authorizationRequests.compactMap(\.issuedCode)
            #expect(Set(codes).count == 50)
        }
    }

    @Test func theStandardEnvironmentWithoutADisplayPrintsTheURL() async throws {
        // TerminalPresenter with no input: the URL is printed, the listener still completes.
        try await AuthorizationPageServer.withServer { server in
            let printed = Locked<[String]>([])
            let terminal = TerminalPresenter(input: nil) { message in printed.withLock { $0.append(message) } }
            let session = WebAuthSession(callback: .loopback(), environment: .standard(browser: terminal)) {
                redirectURI in server.authorizationURL(redirectURI: redirectURI, state: "t")
            }
            session.timeout = .seconds(20)
            let result = Task { try await session.authenticate().url }
            // Play the person: take the printed URL and open it "elsewhere".
            var authorizationURL: URL?
            _ = await eventually(within: .seconds(20)) {
                authorizationURL = printed.withLock { $0.first }.flatMap { message in
                    message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                        .first { $0.hasPrefix("http://127.0.0.1") }
                }.flatMap(URL.init(string:))
                return authorizationURL != nil
            }
            let url = try #require(authorizationURL)
            _ = try await RedirectFollowingBrowser().present(BrowserRequest(url: url, callback: .loopback()))
            let callbackURL = try await result.value
            #expect(callbackURL.query?.contains("state=t") == true)
        }
    }
}

/// Holds a browser back until the test opens it.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// A redirect-following browser that starts only when its gate opens.
struct GatedBrowser: Browser {
    let gate: Gate
    var name: String { "gated" }
    var capabilities: BrowserCapabilities { [] }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        await gate.wait()
        return try await RedirectFollowingBrowser().present(request)
    }
}
