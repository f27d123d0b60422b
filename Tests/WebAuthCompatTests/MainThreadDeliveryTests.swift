// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Dispatch
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthTestSupport

    /// On which thread Apple's sessions call their handlers (`MainThreadDelivery`): in programs
    /// of their own (`Examples/webauth-example-main-thread`), since only a whole process can give
    /// its main thread to `dispatchMain()` or block it; and in this test process, whose `async`
    /// entry point drains the main queue.
    @Suite("Main-thread delivery")
    struct MainThreadDeliveryTests {
        static var programPath: String {
            TemporaryDesktop.builtProductsDirectory.appendingPathComponent("webauth-example-main-thread").path
        }

        private func run(_ mode: String) async throws -> TemporaryDesktop.ProcessResult {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            return try await desktop.run(Self.programPath, [mode], timeout: .seconds(60))
        }

        @Test func aDispatchMainProgramGetsEveryHandlerOnTheMainQueue() async throws {
            let result = try await run("dispatch-main")
            #expect(result.status == 0, "stderr: \(result.standardError)")
            // dispatchMain() ends the first thread and serves the main queue from another one.
            let lines = Set(result.standardOutput.split(separator: "\n").map(String.init))
            #expect(
                lines == [
                    "ASWebAuthenticationSession: completion on the main queue: yes, on the first thread: no",
                    "SFAuthenticationSession: completion on the main queue: yes, on the first thread: no",
                    "WebAuthenticationSession: completion on the main queue: yes, on the first thread: no",
                ])
        }

        @Test func aProgramThatBlocksItsMainThreadStillGetsItsHandler() async throws {
            let result = try await run("blocked-main")
            #expect(result.status == 0, "stdout: \(result.standardOutput) stderr: \(result.standardError)")
            #expect(
                result.standardOutput
                    == "ASWebAuthenticationSession: completion on the main queue: no, on the first thread: no\n")
        }

        @Test func inThisProcessTheHandlerRunsOnTheMainQueue() async throws {
            let key = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: key, value: true)
            defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
            let browser = CallbackAnsweringBrowser()
            let context = AnchorContext(browser: browser)
            let onMainQueue = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
                let session = ASWebAuthenticationSession(
                    url: URL(string: "https://auth.example.com/authorize")!, callback: .customScheme("com.example.app")
                ) { url, _ in
                    done.resume(returning: url != nil && DispatchQueue.getSpecific(key: key) == true)
                }
                session.presentationContextProvider = context
                session.start()
            }
            #expect(onMainQueue)
            withExtendedLifetime(context) {}
        }
    }

    /// A browser that answers with the callback URL once the main queue has turned once, as a
    /// person takes a moment.
    private struct CallbackAnsweringBrowser: Browser {
        var name: String { "answering" }
        var capabilities: BrowserCapabilities { [.callbackInterception] }

        func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
            -> any BrowserPresentation
        {
            await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
                DispatchQueue.main.async { turn.resume() }
            }
            let url = URL(string: (request.redirectURI ?? request.callback.redirectURI).absoluteString + "?code=1")!
            return Answer(events: AsyncStream { $0.yield(.callback(url)) })
        }

        struct Answer: BrowserPresentation {
            let events: AsyncStream<BrowserEvent>
            func dismiss() async {}
        }
    }

    private final class AnchorContext: NSObject, ASWebAuthenticationPresentationContextProviding {
        let browser: any Browser

        init(browser: any Browser) { self.browser = browser }

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            ASPresentationAnchor(browser: browser)
        }
    }
#endif
