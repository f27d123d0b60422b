// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth

/// The examples of README.md and the DocC articles, compiled (and, where it needs nothing
/// outside the process, checked), so that the documentation cannot drift from the API.
@Suite("Documentation examples")
struct DocumentationExamplesTests {
    /// README "Use it from Swift", first example.
    func readmeLoopbackExample(state: String) async throws -> URL {
        let session = WebAuthSession(callback: .loopback(path: "/callback")) { redirectURI in
            var components = URLComponents(string: "https://auth.example.com/authorize")!
            components.queryItems = [
                URLQueryItem(name: "client_id", value: "my-cli"),
                URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
                URLQueryItem(name: "state", value: state),
            ]
            return components.url!
        }
        session.acceptsCallback = { url in
            URLComponents(url: url, resolvingAgainstBaseURL: false)?
                .queryItems?.contains { $0.name == "state" && $0.value == state } == true
        }
        session.timeout = .seconds(300)
        let received = try await session.authenticate()
        // received.url: the callback URL; received.redirectURI: the redirect URI it was built with
        return received.url
    }

    /// README "Use it from Swift", second example (and the DocC getting-started one).
    func readmeCompletionHandlerExample() -> WebAuthSession {
        let session = WebAuthSession(
            url: URL(string: "https://example.com/auth")!, callback: .customScheme("com.example.app")
        ) { result in
            // .success(received), received.url being the callback URL, or .failure(WebAuthenticationSessionError)
            _ = result
        }
        session.prefersEphemeralWebBrowserSession = true
        return session
    }

    /// DocC "Getting started", error handling.
    func gettingStartedErrors(_ session: WebAuthSession) async -> String {
        do {
            let callbackURL = try await session.authenticate().url
            return callbackURL.absoluteString
        } catch let error where error.cancellationReason == .user {
            return "You closed the browser window."
        } catch let error where error.code == .timedOut {
            return "No answer from the browser in time."
        } catch {
            return "\(error)"
        }
    }

    /// `BrowserSelection` documentation example.
    func selectionExample() -> SessionEnvironment {
        let selection = BrowserSelection(choice: .chromium, headless: true)
        return SessionEnvironment.standard(selection: selection)
    }

    @Test func theCompletionHandlerExampleBuildsAnUnstartedSession() {
        let session = readmeCompletionHandlerExample()
        #expect(session.canStart)
        #expect(session.callback == .customScheme("com.example.app"))
        #expect(session.prefersEphemeralWebBrowserSession)
    }

    @Test func theErrorHandlingExampleReadsTheReason() async {
        let session = WebAuthSession(
            url: URL(string: "https://example.com/auth")!, callback: .loopback(),
            environment: .standard(browser: TerminalPresenter(input: nil) { _ in }))
        session.timeout = .milliseconds(100)
        #expect(await gettingStartedErrors(session) == "No answer from the browser in time.")
    }
}
