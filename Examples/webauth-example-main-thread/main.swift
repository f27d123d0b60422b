// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// A command-line program that signs in with Apple's API the way an app does, to show on which
// thread the completion handlers run (see `MainThreadDelivery`). The package's tests run it as a
// separate process, since only a process of its own can give its main thread to dispatchMain().
//
//   webauth-example-main-thread dispatch-main   start the sessions, then dispatchMain(): every
//                                                handler runs on the main queue, which
//                                                dispatchMain() serves from then on
//   webauth-example-main-thread blocked-main    start a session, then block the main thread
//                                                waiting for it: the handler runs elsewhere, and
//                                                the program does not deadlock
//
// The browser is a stand-in that "signs in" at once and hands back the callback URL; nothing
// leaves the process. Each handler prints one line: `NAME: completion on the main queue: yes|no,
// on the first thread: yes|no`.
import Dispatch
import Foundation
import WebAuth
import WebAuthCompat

/// A browser that answers every page with its callback URL, after one turn of the main queue
/// when `waitsForMainQueue` (as a person takes a moment; in a program whose main thread drains
/// the queue), else at once.
struct AnsweringBrowser: Browser {
    let waitsForMainQueue: Bool

    var name: String { "answering" }
    var capabilities: BrowserCapabilities { [.callbackInterception] }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        if waitsForMainQueue {
            await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
                DispatchQueue.main.async { turn.resume() }
            }
        }
        let redirect = request.redirectURI ?? request.callback.redirectURI
        let url = URL(string: redirect.absoluteString + "?code=example")!
        return Answer(
            events: AsyncStream { continuation in
                continuation.yield(.callback(url))
            })
    }

    struct Answer: BrowserPresentation {
        let events: AsyncStream<BrowserEvent>
        func dismiss() async {}
    }
}

/// The presentation context: the answering browser.
final class Context: NSObject, ASWebAuthenticationPresentationContextProviding {
    let browser: AnsweringBrowser

    init(browser: AnsweringBrowser) { self.browser = browser }

    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        ASPresentationAnchor(browser: browser)
    }
}

/// Marks the main queue, so that a handler can tell it runs there. After `dispatchMain()`,
/// libdispatch ends the process's first thread and serves the main queue (and so the main
/// actor) on another thread: there, "the main thread" is the main queue.
let mainQueueKey = DispatchSpecificKey<Bool>()
DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)

func report(_ name: String, _ url: URL?, _ error: (any Error)?) {
    let onMainQueue = DispatchQueue.getSpecific(key: mainQueueKey) == true
    let outcome = url != nil && error == nil ? "" : " (failed: \(String(describing: error)))"
    let line =
        "\(name): completion on the main queue: \(onMainQueue ? "yes" : "no"), "
        + "on the first thread: \(Thread.isMainThread ? "yes" : "no")\(outcome)\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}

/// Starts Apple's older session, deprecated as Apple marks it; reached through a protocol, which
/// keeps the build free of deprecation warnings.
protocol LegacySignIn {
    func start(url: URL, scheme: String, done: @escaping () -> Void)
}

struct SFAuthenticationSignIn: LegacySignIn {
    @available(*, deprecated, message: "uses SFAuthenticationSession")
    func start(url: URL, scheme: String, done: @escaping () -> Void) {
        let session = SFAuthenticationSession(url: url, callbackURLScheme: scheme) { url, error in
            report("SFAuthenticationSession", url, error)
            done()
        }
        session.start()
    }
}

let mode = CommandLine.arguments.dropFirst().first ?? ""
let authorizationURL = URL(string: "https://auth.example.com/authorize")!

switch mode {
case "dispatch-main":
    let browser = AnsweringBrowser(waitsForMainQueue: true)
    let context = Context(browser: browser)
    let environment = SessionEnvironment(browser: browser, receivers: [])
    let remaining = DispatchGroup()

    remaining.enter()
    let session = ASWebAuthenticationSession(url: authorizationURL, callback: .customScheme("com.example.app")) {
        url, error in
        report("ASWebAuthenticationSession", url, error)
        remaining.leave()
    }
    session.presentationContextProvider = context
    session.start()

    remaining.enter()
    ASWebAuthenticationSession.$environment.withValue(environment) {
        (SFAuthenticationSignIn() as any LegacySignIn).start(url: authorizationURL, scheme: "com.example.legacy") {
            remaining.leave()
        }
    }

    remaining.enter()
    Task { @MainActor in
        let url = try? await ASWebAuthenticationSession.$environment.withValue(environment) {
            try await EnvironmentValues().webAuthenticationSession.authenticate(
                using: authorizationURL, callback: .customScheme("com.example.swiftui"), additionalHeaderFields: [:])
        }
        report("WebAuthenticationSession", url, url == nil ? CancellationError() : nil)
        remaining.leave()
    }

    remaining.notify(queue: .main) { exit(0) }
    dispatchMain()

case "blocked-main":
    let browser = AnsweringBrowser(waitsForMainQueue: false)
    let context = Context(browser: browser)
    let done = DispatchSemaphore(value: 0)
    let session = ASWebAuthenticationSession(url: authorizationURL, callback: .customScheme("com.example.app")) {
        url, error in
        report("ASWebAuthenticationSession", url, error)
        done.signal()
    }
    session.presentationContextProvider = context
    session.start()
    guard done.wait(timeout: .now() + 30) == .success else {
        print("ASWebAuthenticationSession: no completion within 30 seconds")
        exit(1)
    }
    exit(0)

default:
    FileHandle.standardError.write(Data("usage: webauth-example-main-thread dispatch-main|blocked-main\n".utf8))
    exit(2)
}
