// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthCompat

/// A browser app's session handler, written against Apple's names: it fulfils each request in a
/// headless Chromium it controls — a fresh profile when the request asks for an ephemeral
/// session, the header fields sent with the first request — and answers with the URL that
/// matched the request's callback, or with the cancellation.
final class ExampleSessionHandler: NSObject, ASWebAuthenticationSessionWebBrowserSessionHandling,
    @unchecked Sendable
{
    // @unchecked Sendable: `sessions` and `lastActivity` are read and written only with `lock`
    // held; the other stored properties are immutable and Sendable.

    private let browser: any Browser
    private let declinesEverything: Bool
    private let log: ExampleLog
    private let lock = NSLock()
    private var sessions: [UUID: ASWebAuthenticationSession] = [:]
    private var lastActivity = ContinuousClock.now

    /// A handler that signs in with `browser`, or declines every request (as a person who says
    /// no) when `declinesEverything`.
    init(browser: any Browser, declinesEverything: Bool, log: ExampleLog) {
        self.browser = browser
        self.declinesEverything = declinesEverything
        self.log = log
    }

    /// How long no request has been under way.
    var idleTime: Duration {
        lock.withLock { sessions.isEmpty ? ContinuousClock.now - lastActivity : .zero }
    }

    func begin(_ request: ASWebAuthenticationSessionRequest!) {
        guard let request else { return }
        let headers = (request.additionalHeaderFields ?? [:]).keys.sorted().joined(separator: ",")
        log.write(
            "begin \(request.uuid) ephemeral=\(request.shouldUseEphemeralSession) headers=\(headers) "
                + "callback=\(request.callback?.description ?? "-")")
        if declinesEverything {
            log.write("declined \(request.uuid)")
            request.cancelWithError(ASWebAuthenticationSessionError(.canceledLogin))
            return
        }
        guard let callback = request.callback else {
            request.cancelWithError(ASWebAuthenticationSessionError(.presentationContextInvalid))
            return
        }
        let session = ASWebAuthenticationSession(url: request.url, callback: callback) { url, error in
            self.finish(request.uuid)
            // Logged first: once answered, the requesting program may look at once.
            if let url {
                self.log.write("completed \(request.uuid)")
                request.complete(withCallbackURL: url)
            } else {
                self.log.write("cancelled \(request.uuid)")
                request.cancelWithError(error ?? ASWebAuthenticationSessionError(.canceledLogin))
            }
        }
        session.presentationContextProvider = self
        session.prefersEphemeralWebBrowserSession = request.shouldUseEphemeralSession
        session.additionalHeaderFields = request.additionalHeaderFields
        lock.withLock { sessions[request.uuid] = session }
        // The browser catches the callback itself: no desktop scheme handler or listener here.
        ASWebAuthenticationSession.$environment.withValue(SessionEnvironment(browser: browser, receivers: [])) {
            _ = session.start()
        }
    }

    func cancel(_ request: ASWebAuthenticationSessionRequest!) {
        guard let request else { return }
        log.write("cancel \(request.uuid)")
        let session = lock.withLock { sessions[request.uuid] }
        session?.cancel()
    }

    private func finish(_ uuid: UUID) {
        lock.withLock {
            sessions[uuid] = nil
            lastActivity = .now
        }
    }
}

extension ExampleSessionHandler: ASWebAuthenticationPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        ASPresentationAnchor(browser: browser)
    }
}
