// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthSignIn
    import WebAuthOAuth
    import WebAuthTestSupport
    import WebAuthEmbeddedProvider
    import HTTPTypes

    /// A SwiftUI view as it is written on Apple platforms, less `View` and `body`: the
    /// environment line is SwiftUI's, character for character.
    struct SignInView {
        @Environment(\.webAuthenticationSession) private var webAuthenticationSession

        /// The scheme form, deprecated since Apple's 27.0 SDKs: reached through
        /// ``SchemeSignIn`` so that the build stays free of deprecation warnings.
        @MainActor
        @available(*, deprecated, message: "calls authenticate(using:callbackURLScheme:preferredBrowserSession:)")
        func signIn(at url: URL, scheme: String, browserSession: WebAuthenticationSession.BrowserSession?)
            async throws -> URL
        {
            try await webAuthenticationSession.authenticate(
                using: url, callbackURLScheme: scheme, preferredBrowserSession: browserSession)
        }

        @MainActor
        func signIn(at url: URL, callback: ASWebAuthenticationSession.Callback, headers: [String: String])
            async throws -> URL
        {
            try await webAuthenticationSession.authenticate(
                using: url, callback: callback, preferredBrowserSession: .ephemeral,
                additionalHeaderFields: headers)
        }
    }

    /// What the tests ask of the scheme form (see ``SignInView``).
    protocol SchemeSignIn {
        @MainActor
        func signIn(at url: URL, scheme: String, browserSession: WebAuthenticationSession.BrowserSession?)
            async throws -> URL
    }

    extension SignInView: SchemeSignIn {}

    extension CompatIntegrationTests {
        @Suite("SwiftUI's WebAuthenticationSession on Linux", .serialized, TestFixture.chromium.required)
        struct WebAuthenticationSessionTests {
            static let scheme = "com.example.swiftui"
            static let client = EmbeddedProvider.Client(
                id: "swiftui-app", redirectURIs: [URL(string: "com.example.swiftui:/signed-in")!])

            /// The provider's authorization URL for ``client``, with `state` and a PKCE challenge.
            static func authorizationURL(_ provider: EmbeddedProvider, state: String) -> URL {
                var components = URLComponents(url: provider.url(.authorization), resolvingAgainstBaseURL: false)!
                components.queryItems = [
                    URLQueryItem(name: "response_type", value: "code"),
                    URLQueryItem(name: "client_id", value: client.id),
                    URLQueryItem(name: "redirect_uri", value: client.redirectURIs[0].absoluteString),
                    URLQueryItem(name: "scope", value: "openid"),
                    URLQueryItem(name: "state", value: state),
                    URLQueryItem(name: "code_challenge", value: PKCE().challenge),
                    URLQueryItem(name: "code_challenge_method", value: "S256"),
                ]
                return components.url!
            }

            /// Runs a view's `signIn` in a task bound to `environment`.
            static func signIn(
                _ url: URL, _ browserSession: WebAuthenticationSession.BrowserSession?,
                in environment: SessionEnvironment
            ) -> Task<URL, any Error> {
                Task { @MainActor in
                    try await ASWebAuthenticationSession.$environment.withValue(environment) {
                        try await (SignInView() as any SchemeSignIn).signIn(
                            at: url, scheme: scheme, browserSession: browserSession)
                    }
                }
            }

            static func typePassword(on page: ChromiumPage) async throws {
                try await page.waitForElement("input[name=password]", within: .seconds(60))
                try await page.fill("input[name=username]", with: EmbeddedProvider.User.demo.username)
                try await page.fill("input[name=password]", with: EmbeddedProvider.User.demo.password)
                try await page.submit(form: "form")
            }

            /// Shared keeps the person's browser data (a cookie set in the first sign-in is there in
            /// the second, in the same kept profile); ephemeral starts from a fresh profile without
            /// it, which is deleted afterwards.
            @Test func signsInThroughTheEnvironmentValueSharedThenEphemeral() async throws {
                var configuration = EmbeddedProvider.Configuration()
                configuration.clients = [Self.client]
                configuration.requiresConsent = false
                try await EmbeddedProvider.withProvider(configuration) { provider in
                    try await BrowserTurns.withTurn {
                        let driver = try ChromiumPageDriver()
                        defer { driver.tearDown() }
                        let environment = driver.environment(receivers: [LoopbackReceiver()])
                        let remembered = "document.cookie.includes('person=ada') ? 'yes' : 'no'"

                        // 1. Shared: the page leaves a lasting cookie; the person signs in.
                        let first = Self.signIn(
                            Self.authorizationURL(provider, state: "first"), .shared, in: environment)
                        let firstPage = try await driver.page(0)
                        try await firstPage.waitForElement("input[name=password]", within: .seconds(60))
                        try await firstPage.evaluate("document.cookie = 'person=ada; Max-Age=3600; Path=/'")
                        try await Self.typePassword(on: firstPage)
                        let firstURL = try await first.value
                        #expect(firstURL.scheme == Self.scheme)
                        let firstItems = URLComponents(url: firstURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
                        #expect(firstItems.first { $0.name == "state" }?.value == "first")
                        #expect(firstItems.first { $0.name == "code" }?.value?.isEmpty == false)

                        // 2. Shared again: the cookie is in the kept profile.
                        let second = Self.signIn(
                            Self.authorizationURL(provider, state: "second"), .shared, in: environment)
                        let secondPage = try await driver.page(1)
                        try await secondPage.waitForElement("input[name=password]", within: .seconds(60))
                        #expect(try await secondPage.evaluate(remembered) == "yes")
                        try await Self.typePassword(on: secondPage)
                        #expect(try await second.value.query?.contains("state=second") == true)

                        // 3. Ephemeral: a fresh profile, without it.
                        let third = Self.signIn(
                            Self.authorizationURL(provider, state: "third"), .ephemeral, in: environment)
                        let thirdPage = try await driver.page(2)
                        try await thirdPage.waitForElement("input[name=password]", within: .seconds(60))
                        #expect(try await thirdPage.evaluate(remembered) == "no")
                        try await Self.typePassword(on: thirdPage)
                        #expect(try await third.value.query?.contains("state=third") == true)

                        let instances = driver.instances
                        #expect(instances.map(\.isEphemeral) == [false, false, true])
                        #expect(instances[0].profileDirectory == instances[1].profileDirectory)
                        #expect(instances[0].profileDirectory.path.hasPrefix(driver.dataDirectory.path))
                        #expect(FileManager.default.fileExists(atPath: instances[0].profileDirectory.path))
                        #expect(!FileManager.default.fileExists(atPath: instances[2].profileDirectory.path))
                        #expect(provider.requests(to: .login).filter { $0.method == "POST" }.count == 3)
                    }
                }
            }

            /// The 17.4 signature: a `Callback` and header fields, which reach the page.
            @Test func sendsTheHeaderFieldsWithTheCallbackSignature() async throws {
                try await BrowserTurns.withTurn {
                    let server = try await RedirectingProviderServer.start { request in
                        request.path == "/auth" ? "com.example.swiftui:/done?token=t1" : nil
                    }
                    let driver = try ChromiumPageDriver()
                    defer { driver.tearDown() }
                    let environment = driver.environment(receivers: [LoopbackReceiver()])
                    let url = try await Task { @MainActor in
                        try await ASWebAuthenticationSession.$environment.withValue(environment) {
                            try await SignInView().signIn(
                                at: server.baseURL.appendingPathComponent("auth"),
                                callback: .customScheme(Self.scheme), headers: ["X-Client-Version": "4.2"])
                        }
                    }.value
                    #expect(url.absoluteString == "com.example.swiftui:/done?token=t1")
                    let request = try #require(await server.requests.first { $0.path == "/auth" })
                    #expect(
                        request.headerFields.contains {
                            $0.name.canonicalName == "x-client-version" && $0.value == "4.2"
                        })
                    #expect(driver.instances.first?.isEphemeral == true)
                    await server.shutdown()
                }
            }

            /// Cancelling the task that awaits `authenticate` cancels the session and closes the browser.
            @Test func cancellingTheTaskEndsWithCanceledLogin() async throws {
                try await BrowserTurns.withTurn {
                    let driver = try ChromiumPageDriver()
                    defer { driver.tearDown() }
                    // The page never calls back: only the cancellation can end the session.
                    let task = Self.signIn(
                        URL(string: "http://127.0.0.1:9/never")!, .ephemeral,
                        in: driver.environment(receivers: []))
                    let page = try await driver.page(0)
                    task.cancel()
                    let error = await failure(of: task) as? ASWebAuthenticationSessionError
                    #expect(error != nil, "the session ended with an error of Apple's type")
                    #expect(error?.code == .canceledLogin)
                    #expect(error?.webAuthenticationError?.cancellationReason == .program)
                    #expect(!FileManager.default.fileExists(atPath: page.instance.profileDirectory.path))
                }
            }

            /// Cancelled before it starts: nothing opens, and the call still ends.
            @Test func aTaskCancelledBeforeTheCallThrowsCanceledLogin() async throws {
                let task = Task { @MainActor in
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await SignInView().signIn(
                        at: URL(string: "http://127.0.0.1:9/never")!, callback: .customScheme(Self.scheme), headers: [:]
                    )
                }
                let error = await failure(of: task) as? ASWebAuthenticationSessionError
                #expect(error != nil, "the session ended with an error of Apple's type")
                #expect(error?.code == .canceledLogin)
            }

            /// Errors are Apple's: a callback nothing here can receive is `presentationContextInvalid`.
            @Test func anUnreceivableCallbackThrowsPresentationContextInvalid() async throws {
                let task = Self.signIn(
                    URL(string: "http://127.0.0.1:9/never")!, nil,
                    in: SessionEnvironment(browser: SeedDesktop.silentBrowser, receivers: []))
                let error = await failure(of: task) as? ASWebAuthenticationSessionError
                #expect(error != nil, "the session ended with an error of Apple's type")
                #expect(error?.code == .presentationContextInvalid)
                #expect((error as NSError?)?.domain == "com.apple.AuthenticationServices.WebAuthenticationSession")
            }
        }
    }
#endif
