// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthTestSupport
    import WebAuthEmbeddedProvider

    // Seed 002, "Authenticating a User Through a Web Service" (Apple's article), with only the import
    // changed: `import WebAuthCompat` for `import AuthenticationServices`. The article's fragments are
    // put together in a view controller; the authentication page is a local stand-in for
    // `https://example.com/auth` (tests never leave the machine) that, as the article's example
    // provider does, calls back with `exampleauth://auth?token=…`. Lines marked "test:" are not the
    // article's.

    /// test: a stand-in for a window-owning view; on Linux the anchor chooses the browser.
    final class View {
        var window: ASPresentationAnchor?
    }

    /// test: what the tests ask of the view controller, reached through a protocol so that
    /// calling the deprecated `signIn(authURLString:)` adds no deprecation warning to the build.
    protocol Seed002SignIn {
        func signIn(authURLString: String)
    }

    final class ViewController: NSObject, Seed002SignIn {
        let view = View()
        let tokens = Mailbox<String?>()  // test: where "handle the callback" puts its result
        let errors = Mailbox<Completion>()  // test
        var session: ASWebAuthenticationSession?

        // test: the seed calls the scheme initializer, deprecated since 27.0
        @available(*, deprecated, message: "seed 002 uses the scheme initializer")
        func signIn(authURLString: String) {
            // Use the URL and callback scheme specified by the authorization provider.
            guard let authURL = URL(string: authURLString) else { return }
            let scheme = "exampleauth"

            // Initialize the session.
            let session = ASWebAuthenticationSession(url: authURL, callbackURLScheme: scheme) { callbackURL, error in
                // Handle the callback.
                self.errors.put(Completion(url: callbackURL, error: error))  // test
                guard error == nil, let callbackURL = callbackURL else { return }

                // The callback URL format depends on the provider. For this example:
                //   exampleauth://auth?token=1234
                let queryItems = URLComponents(string: callbackURL.absoluteString)?.queryItems
                let token = queryItems?.filter({ $0.name == "token" }).first?.value
                self.tokens.put(token)  // test
            }
            session.presentationContextProvider = self
            session.prefersEphemeralWebBrowserSession = true
            session.start()
            self.session = session  // test: kept to call cancel()
        }

        func cancelSignIn() {
            session?.cancel()
        }
    }

    extension ViewController: ASWebAuthenticationPresentationContextProviding {
        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            return view.window!
        }
    }

    extension CompatIntegrationTests {
        @Suite(
            "Seed 002: Apple's article, on Linux", .serialized, TestFixture.desktopTools.required,
            TestFixture.chromium.required)
        struct Seed002Tests {
            @Test func theArticlesSessionSignsInThroughHeadlessChromiumAndTheDesktop() async throws {
                let setup = try SeedDesktop(schemes: ["exampleauth"])
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    let issued = Mailbox<String>()
                    let server = try await RedirectingProviderServer.start { request in
                        guard request.path == "/auth" else { return nil }
                        let token = randomToken()
                        issued.put(token)
                        return "exampleauth://auth?token=\(token)"
                    }
                    let (browser, launcher) = try setup.chromium(handing: ["exampleauth"], from: [server.baseURL])
                    defer { launcher.terminate() }

                    let viewController = ViewController()
                    viewController.view.window = ASPresentationAnchor(browser: browser)
                    ASWebAuthenticationSession.$environment.withValue(
                        setup.environment(browser: SeedDesktop.silentBrowser)
                    ) {
                        (viewController as any Seed002SignIn).signIn(
                            authURLString: server.baseURL.absoluteString + "/auth")
                    }
                    let completion = await viewController.errors.next()
                    if completion == nil { Issue.record("no completion; Chromium said:\n\(launcher.logTails())") }
                    #expect(completion?.detail == nil, "\(String(describing: completion?.detail))")
                    let token = try #require(await viewController.tokens.next())
                    await server.shutdown()

                    #expect(token != nil)
                    #expect(token == issued.all.first)
                    #expect(viewController.errors.all.count == 1)
                    #expect(viewController.session?.canStart == false)
                    #expect(viewController.session?.start() == false, "a session starts once")
                    let request = try #require(await server.requests.first)
                    #expect(request.header("User-Agent")?.contains("Chrome") == true, "the anchor's browser was used")
                    #expect(!setup.socketExists(forScheme: "exampleauth"))
                }
            }

            @Test func cancelEndsTheSessionWithCanceledLogin() async throws {
                let setup = try SeedDesktop(schemes: ["exampleauth"])
                defer { setup.remove() }
                let viewController = ViewController()
                viewController.view.window = ASPresentationAnchor(browser: SeedDesktop.silentBrowser)
                ASWebAuthenticationSession.$environment.withValue(setup.environment(browser: SeedDesktop.silentBrowser))
                {
                    (viewController as any Seed002SignIn).signIn(authURLString: "http://127.0.0.1:9/auth")
                }
                #expect(await eventually { setup.socketExists(forScheme: "exampleauth") })
                viewController.cancelSignIn()

                let completion = try #require(await viewController.errors.next())
                #expect(completion.url == nil)
                #expect(completion.isASError)
                #expect(completion.domain == "com.apple.AuthenticationServices.WebAuthenticationSession")
                #expect(completion.code == ASWebAuthenticationSessionError.Code.canceledLogin.rawValue)
                #expect(completion.detail?.cancellationReason == .program)
                #expect(
                    await viewController.tokens.next(within: .milliseconds(200)) == nil, "the callback returned early")
                #expect(!setup.socketExists(forScheme: "exampleauth"))
                viewController.cancelSignIn()
                #expect(viewController.errors.all.count == 1, "cancelling again has no effect")
            }
        }
    }
#endif
