// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform

@testable import WebAuthCore

@Suite("WebAuthSession driven through stand-in seams")
struct WebAuthSessionTests {
    let authorize = URL(string: "https://auth.example.com/authorize")!

    private func session(
        browser: StandInBrowser, receiver: StandInReceiver = StandInReceiver(),
        callback: Callback = .loopback(), completion: WebAuthSession.CompletionHandler? = nil
    ) -> WebAuthSession {
        WebAuthSession(
            callback: callback, environment: SessionEnvironment(browser: browser, receivers: [receiver]),
            authorizationURL: { redirectURI in
                var components = URLComponents(string: "https://auth.example.com/authorize")!
                components.queryItems = [URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString)]
                return components.url!
            }, completionHandler: completion)
    }

    @Test func deliversTheCallbackAfterClosingEverything() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver(port: 41_000)
        let session = session(browser: browser, receiver: receiver)
        let result = Task { try await session.authenticate() }
        let presentation = await browser.nextPresentation()
        let request = try #require(browser.requests.first)
        #expect(request.url.absoluteString.contains("redirect_uri=http://127.0.0.1:41000/callback"))
        #expect(request.redirectURI?.absoluteString == "http://127.0.0.1:41000/callback")
        #expect(session.redirectURI?.absoluteString == "http://127.0.0.1:41000/callback")
        let listener = try #require(receiver.listeners.first)
        let callbackURL = URL(string: "http://127.0.0.1:41000/callback?code=abc&state=xyz")!
        #expect(listener.deliver(callbackURL))
        let received = try await result.value
        #expect(received.url == callbackURL)
        #expect(received.redirectURI.absoluteString == "http://127.0.0.1:41000/callback")
        #expect(listener.closeCount == 1)
        #expect(presentation.dismissCount == 1)
    }

    @Test func startsOnlyOnceAndCompletesExactlyOnce() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver()
        let calls = Locked<[Result<ReceivedCallback, WebAuthenticationSessionError>]>([])
        let (done, finished) = AsyncStream.makeStream(of: Void.self)
        let session = session(browser: browser, receiver: receiver) { result in
            calls.withLock { $0.append(result) }
            finished.yield()
        }
        #expect(session.canStart)
        #expect(session.start())
        #expect(!session.canStart)
        #expect(!session.start())
        _ = await browser.nextPresentation()
        let listener = try #require(receiver.listeners.first)
        listener.deliver(URL(string: "http://127.0.0.1:40000/callback?code=1")!)
        var iterator = done.makeAsyncIterator()
        await iterator.next()
        // A second delivery or cancel after completion must not produce a second call.
        session.cancel()
        listener.deliver(URL(string: "http://127.0.0.1:40000/callback?code=2")!)
        _ = try? await session.authenticate().url
        #expect(calls.withLock { $0.count } == 1)
        #expect(try calls.withLock { try $0[0].get() }.url.absoluteString.hasSuffix("code=1"))
    }

    @Test func cancelEndsWithProgramReasonAndCleansUp() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver()
        let session = session(browser: browser, receiver: receiver)
        let result = Task { try await session.authenticate().url }
        let presentation = await browser.nextPresentation()
        session.cancel()
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
        #expect(error?.code == .canceledLogin)
        #expect(error?.code.rawValue == 1)
        #expect(error?.cancellationReason == .program)
        #expect(receiver.listeners.first?.closeCount == 1)
        #expect(presentation.dismissCount == 1)
    }

    @Test func aListenerThatArrivesAfterCancellationIsClosedBeforeTheResult() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver(slow: true)
        let closedAtDelivery = Locked<Int?>(nil)
        let (delivered, deliver) = AsyncStream.makeStream(
            of: Result<ReceivedCallback, WebAuthenticationSessionError>.self)
        let session = session(browser: browser, receiver: receiver) { result in
            closedAtDelivery.withLock { $0 = receiver.listeners.first?.closeCount }
            deliver.yield(result)
        }
        #expect(session.start())
        var calls = receiver.listenCalls.makeAsyncIterator()
        await calls.next()
        session.cancel()
        var results = delivered.makeAsyncIterator()
        let result = try #require(await results.next())
        #expect(throws: WebAuthenticationSessionError.cancelled(.program)) { try result.get() }
        #expect(closedAtDelivery.withLock { $0 } == 1, "the late listener was closed before the result")
        #expect(browser.requests.isEmpty, "nothing was presented")
    }

    @Test func aReceiverAlreadyTakenRefusesTheStartOrFailsTheSession() async throws {
        let taken = WebAuthenticationSessionError(code: .callbackListenerFailed, message: "another session waits")
        let browser = StandInBrowser()
        let receiver = StandInReceiver(taken: taken)
        let refusing = session(browser: browser, receiver: receiver) { _ in
            Issue.record("a refused session called its completion handler")
        }
        #expect(throws: taken) { try refusing.startRefusingUnplannable().get() }
        #expect(!refusing.canStart)
        await #expect(throws: taken) { try await refusing.authenticate() }

        let failing = session(browser: browser, receiver: receiver)
        await #expect(throws: taken) { try await failing.authenticate() }
        #expect(receiver.listeners.isEmpty, "nobody listened")
        #expect(browser.requests.isEmpty, "nothing was presented")
    }

    @Test func cancellingTheTaskCancelsTheSession() async throws {
        let browser = StandInBrowser()
        let session = session(browser: browser)
        let task = Task { try await session.authenticate().url }
        _ = await browser.nextPresentation()
        task.cancel()
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await task.value }
        #expect(error?.cancellationReason == .program)
    }

    @Test func cancelBeforeStartMeansNeverStarting() async {
        let browser = StandInBrowser()
        let session = session(browser: browser)
        session.cancel()
        #expect(!session.canStart)
        #expect(!session.start())
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate().url }
        #expect(error?.code == .canceledLogin)
        #expect(browser.requests.isEmpty)
    }

    @Test func timesOut() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver()
        let session = session(browser: browser, receiver: receiver)
        session.timeout = .milliseconds(200)
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate().url }
        #expect(error?.code == .timedOut)
        #expect(error?.cancellationReason == .timeout)
        #expect(receiver.listeners.first?.closeCount == 1)
    }

    @Test func theWindowClosedByThePersonIsAUserCancel() async throws {
        let browser = StandInBrowser(capabilities: [.closeDetection])
        let session = session(browser: browser)
        let result = Task { try await session.authenticate().url }
        let presentation = await browser.nextPresentation()
        presentation.continuation.yield(.closedByUser)
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
        #expect(error?.code == .canceledLogin)
        #expect(error?.cancellationReason == .user)
    }

    @Test func aBrowserThatDiesFailsTheSession() async throws {
        let browser = StandInBrowser()
        let session = session(browser: browser)
        let result = Task { try await session.authenticate().url }
        let presentation = await browser.nextPresentation()
        presentation.continuation.yield(.failed("exited with status 1"))
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
        #expect(error?.code == .browserLaunchFailed)
        #expect(error?.message == "exited with status 1")
    }

    @Test func aBrowserThatCannotStartFailsTheSessionAndReleasesTheListener() async {
        let browser = StandInBrowser(failure: .noBrowserAvailable("nothing installed"))
        let receiver = StandInReceiver()
        let session = session(browser: browser, receiver: receiver)
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate().url }
        #expect(error?.code == .noBrowserAvailable)
        #expect(receiver.listeners.first?.closeCount == 1)
    }

    @Test func aListenerThatCannotListenFailsBeforeAnyBrowserOpens() async {
        let browser = StandInBrowser()
        let receiver = StandInReceiver(failure: .listenerFailed(port: 8080, "address already in use"))
        let session = session(browser: browser, receiver: receiver)
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate().url }
        #expect(error?.code == .callbackListenerFailed)
        #expect(error?.port == 8080)
        #expect(error?.message.contains("8080") == true)
        #expect(browser.requests.isEmpty)
    }

    @Test func anAuthorizationURLThatMayNotBeOpenedIsRefused() async {
        let browser = StandInBrowser()
        let session = WebAuthSession(
            url: URL(string: "file:///etc/passwd")!, callback: .loopback(),
            environment: SessionEnvironment(browser: browser, receivers: [StandInReceiver()]))
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate().url }
        #expect(error?.code == .invalidAuthorizationURL)
        #expect(browser.requests.isEmpty)
    }

    @Test func aMissingRequirementFailsAtStartWithoutOpeningAnything() async {
        let browser = StandInBrowser()
        let receiver = StandInReceiver()
        let session = session(browser: browser, receiver: receiver)
        session.prefersEphemeralWebBrowserSession = true
        session.requiredCapabilities = [.ephemeralSessions]
        let error = await #expect(throws: WebAuthenticationSessionError.self) { try await session.authenticate().url }
        #expect(error?.code == .browserCannotHonorRequest)
        #expect(browser.requests.isEmpty)
        #expect(receiver.listeners.isEmpty)
    }

    @Test func anUnhonouredPreferenceIsReportedAndTheSessionGoesOn() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver()
        let notices = Locked<[String]>([])
        let session = session(browser: browser, receiver: receiver)
        session.prefersEphemeralWebBrowserSession = true
        session.additionalHeaderFields = ["X-Client": "cli"]
        session.progressHandler = { progress in
            if progress.phase == .notice, let message = progress.message { notices.withLock { $0.append(message) } }
        }
        let result = Task { try await session.authenticate().url }
        _ = await browser.nextPresentation()
        #expect(browser.requests.first?.prefersEphemeralSession == true)
        #expect(browser.requests.first?.additionalHeaderFields == ["X-Client": "cli"])
        try #require(receiver.listeners.first).deliver(URL(string: "http://127.0.0.1:40000/callback?code=1")!)
        _ = try await result.value
        #expect(notices.withLock { $0.count } == 2)
    }

    @Test func aCallbackTheAcceptanceRuleRefusesDoesNotEndTheSession() async throws {
        let browser = StandInBrowser(capabilities: [.callbackInterception])
        let session = session(browser: browser, callback: .customScheme("com.example.app"))
        session.acceptsCallback = { url in url.query?.contains("state=expected") == true }
        let result = Task { try await session.authenticate().url }
        let presentation = await browser.nextPresentation()
        presentation.continuation.yield(.callback(URL(string: "com.example.app:/cb?code=evil&state=forged")!))
        presentation.continuation.yield(.callback(URL(string: "other.app:/cb?code=x&state=expected")!))
        let good = URL(string: "com.example.app:/cb?code=good&state=expected")!
        presentation.continuation.yield(.callback(good))
        #expect(try await result.value == good)
    }

    @Test func theSessionKeepsItselfAliveUntilItCompletes() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver()
        let (done, finished) = AsyncStream.makeStream(of: Result<ReceivedCallback, WebAuthenticationSessionError>.self)
        weak var weakSession: WebAuthSession?
        do {
            let session = session(browser: browser, receiver: receiver) { finished.yield($0) }
            weakSession = session
            #expect(session.start())
        }
        _ = await browser.nextPresentation()
        #expect(weakSession != nil)
        try #require(receiver.listeners.first).deliver(URL(string: "http://127.0.0.1:40000/callback?code=1")!)
        var iterator = done.makeAsyncIterator()
        let result = await iterator.next()
        #expect(try result?.get().url.query == "code=1")
    }

    @Test func aChoosingEnvironmentGetsTheSessionsNeeds() async throws {
        let plain = StandInBrowser()
        let capable = StandInBrowser(capabilities: [.ephemeralSessions, .callbackInterception])
        let seen = Locked<[BrowserNeeds]>([])
        let environment = SessionEnvironment(receivers: [StandInReceiver()]) { needs in
            seen.withLock { $0.append(needs) }
            return needs.prefersEphemeralSession ? capable : plain
        }
        let session = WebAuthSession(
            url: authorize, callback: .loopback(), environment: environment)
        session.prefersEphemeralWebBrowserSession = true
        session.additionalHeaderFields = ["X-Client": "cli"]
        let result = Task { try await session.authenticate().url }
        _ = await capable.nextPresentation()
        session.cancel()
        _ = try? await result.value
        let needs = try #require(seen.withLock { $0.first })
        #expect(needs.prefersEphemeralSession)
        #expect(needs.hasAdditionalHeaderFields)
        #expect(needs.callbackIsReceivable)
        #expect(needs.wantedCapabilities == [.ephemeralSessions, .additionalHeaderFields])
        #expect(plain.requests.isEmpty)
    }

    /// The session's state has one owner, its lock: callbacks arriving on many threads at once,
    /// a cancel among them, and readers of its properties meanwhile end it once, with one
    /// listener closed and one page dismissed. Under ThreadSanitizer (`scripts/sanitize`) an
    /// access to that state outside the lock is reported here.
    @Test func callbacksACancelAndReadersOnManyThreadsEndTheSessionOnce() async throws {
        let browser = StandInBrowser()
        let receiver = StandInReceiver(port: 44_000)
        let session = session(browser: browser, receiver: receiver)
        let result = Task { try await session.authenticate().url }
        let presentation = await browser.nextPresentation()
        let listener = try #require(receiver.listeners.first)
        let urls = (0..<32).map { URL(string: "http://127.0.0.1:44000/callback?code=\($0)")! }
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                DispatchQueue.concurrentPerform(iterations: 256) { index in
                    if index == 128 {
                        session.cancel()
                    } else {
                        listener.deliver(urls[index % urls.count])
                    }
                    _ = session.canStart
                    _ = session.redirectURI
                    _ = session.timeout
                }
                finished.resume()
            }
        }
        switch await result.result {
        case .success(let url): #expect(urls.contains(url))
        case .failure(let error): #expect(error as? WebAuthenticationSessionError == .cancelled(.program))
        }
        #expect(!session.canStart)
        #expect(listener.closeCount == 1)
        #expect(presentation.dismissCount == 1)
    }

    @Test func manySessionsAtOnceDoNotCrossTalk() async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let browser = StandInBrowser()
                    let receiver = StandInReceiver(port: 42_000 + index)
                    let session = session(browser: browser, receiver: receiver)
                    let result = Task { try await session.authenticate().url }
                    _ = await browser.nextPresentation()
                    let url = URL(string: "http://127.0.0.1:\(42_000 + index)/callback?code=\(index)")!
                    try #require(receiver.listeners.first).deliver(url)
                    return try await result.value == url
                }
            }
            for try await matched in group { #expect(matched) }
        }
    }
}
