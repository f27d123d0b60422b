// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthTestSupport
    import WebAuthTesting
    import WebAuthEmbeddedProvider

    // Seed 003, "SFSafariViewController and OAuth – the Instagram example": the browser is sent to
    // `myapp://…`, the app's open-URL entry point receives the URL and posts a notification, and the
    // waiting view controller, observing it, extracts the code and finishes. On Linux the open-URL
    // entry point is reached through the desktop (xdg-open runs the registered handler, which hands
    // the URL to the waiting session), and the session's completion handler plays the app
    // delegate's `application(_:open:options:)`. The article shows its code only as screenshots,
    // so this is its flow, written from the text; the page is a local stand-in for Instagram's.

    let kCloseSafariViewControllerNotification = Notification.Name("kCloseSafariViewControllerNotification")

    /// The app delegate: its open-URL method posts the URL for whoever waits for it.
    final class AppDelegate {
        func application(open url: URL, options: [String: Any] = [:]) -> Bool {
            NotificationCenter.default.post(name: kCloseSafariViewControllerNotification, object: url)
            return true
        }
    }

    /// test: what the tests ask of the screen, reached through a protocol so that calling the
    /// deprecated `loginTapped(authURL:scheme:)` adds no deprecation warning to the build.
    protocol Seed003Login {
        func loginTapped(authURL: URL, scheme: String)
    }

    /// The login screen: opens the sign-in page and waits for the notification.
    final class LoginViewController: NSObject, ASWebAuthenticationPresentationContextProviding, Seed003Login {
        let appDelegate: AppDelegate
        let codes = Mailbox<String>()  // test: where the code goes
        let completions = Mailbox<Completion>()  // test
        private var observer: (any NSObjectProtocol)?
        private var safariViewController: ASWebAuthenticationSession?

        init(appDelegate: AppDelegate) {
            self.appDelegate = appDelegate
        }

        func viewDidLoad() {
            let codes = self.codes
            observer = NotificationCenter.default.addObserver(
                forName: kCloseSafariViewControllerNotification, object: nil, queue: nil
            ) { notification in
                // safariLogin(_:): deal with the OAuth response, then "dismiss" the browser.
                guard let url = notification.object as? URL, let code = LoginViewController.extractCode(url) else {
                    return
                }
                codes.put(code)
            }
        }

        func viewDidDisappear() {
            if let observer { NotificationCenter.default.removeObserver(observer) }
        }

        /// The button's action: opens the sign-in page.
        // test: the seed calls the scheme initializer, deprecated since 27.0
        @available(*, deprecated, message: "seed 003 uses the scheme initializer")
        func loginTapped(authURL: URL, scheme: String) {
            let appDelegate = self.appDelegate
            let completions = self.completions  // test
            safariViewController = ASWebAuthenticationSession(url: authURL, callbackURLScheme: scheme) { url, error in
                completions.put(Completion(url: url, error: error))  // test
                guard let url else { return }
                _ = appDelegate.application(open: url)
            }
            safariViewController?.presentationContextProvider = self
            safariViewController?.start()
        }

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            ASPresentationAnchor()
        }

        /// The article's `extractCode`: the `code` query item of the response URL.
        static func extractCode(_ url: URL) -> String? {
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
        }
    }

    extension CompatIntegrationTests {
        @Suite(
            "Seed 003: open-URL through NotificationCenter, on Linux", .serialized,
            TestFixture.desktopTools.required, TestFixture.chromium.required)
        struct Seed003Tests {
            @Test func theOpenURLNotificationFinishesTheWaitingScreen() async throws {
                let scheme = "com.example.instagram-login"
                let setup = try SeedDesktop(schemes: [scheme])
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    try await AuthorizationPageServer.withServer { server in
                        let (browser, launcher) = try setup.chromium(handing: [scheme], from: [server.baseURL])
                        defer { launcher.terminate() }
                        let screen = LoginViewController(appDelegate: AppDelegate())
                        screen.viewDidLoad()
                        defer { screen.viewDidDisappear() }
                        let state = randomToken()
                        let authURL = server.authorizationURL(
                            redirectURI: URL(string: "\(scheme)://authorize")!, state: state)
                        ASWebAuthenticationSession.$environment.withValue(setup.environment(browser: browser)) {
                            (screen as any Seed003Login).loginTapped(authURL: authURL, scheme: scheme)
                        }
                        let completion = await screen.completions.next()
                        if completion == nil { Issue.record("no completion; Chromium said:\n\(launcher.logTails())") }
                        #expect(completion?.detail == nil, "\(String(describing: completion?.detail))")
                        let code = try #require(await screen.codes.next())
                        let request = try #require(await server.authorizationRequests.first)
                        #expect(code == request.issuedCode)
                        #expect(request.redirectLocation?.hasPrefix("\(scheme)://authorize?code=") == true)
                    }
                }
            }
        }
    }
#endif
