// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    public import Foundation
    import OpenCombine
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthTestSupport
    import WebAuthEmbeddedProvider

    // Seed 000, "Using ASWebAuthenticationSession with SwiftUI", minus SwiftUI: the view model as the
    // article writes it, with `import WebAuthCompat` for `import AuthenticationServices` and
    // OpenCombine for Combine. Lines marked "test:" differ from the article, for running offline:
    // - `load()` reads `anilist_api.json` from a bundle the test writes instead of `Bundle.main`;
    // - the configuration may name the authorization server (the test's local stand-in for
    //   anilist.co, which speaks plain HTTP on 127.0.0.1), and the URL builder uses it;
    // - "Store the token" stores it where the test can read it.
    // The redirect URL stays the article's `fairese-nae://anilist-auth`, passed whole as the
    // callback scheme exactly as the article does.

    /// The article's `anilist_api.json`.
    public class AnilistAPIConfigurations: Codable {
        /// The client ID.
        public let id: Int
        /// The API secret.
        public let secret: String
        /// The client's name.
        public let name: String
        /// The registered redirect URL.
        public let redirectURL: URL
        /// test: the authorization server to use instead of anilist.co.
        public let authorizationServer: URL?

        static func load(from bundle: Bundle) -> AnilistAPIConfigurations {  // test: `bundle` for `Bundle.main`
            let filePath = bundle.url(forResource: "anilist_api", withExtension: "json")!
            let data = try! Data(contentsOf: filePath)
            let object = try! JSONDecoder().decode(AnilistAPIConfigurations.self, from: data)
            return object
        }
    }

    /// Builds authentication URLs.
    public class AnilistAuthenticationURLBuilder {

        /// The domain URL
        let domain: String

        /// Client ID
        let clientID: Int

        /// test: the server to use instead of `https://{domain}`
        let server: URL?

        init(
            domain: String = "anilist.co",
            server: URL? = nil,  // test
            clientID: Int
        ) {
            self.domain = domain
            self.server = server
            self.clientID = clientID
        }

        var url: URL {
            var components = URLComponents()
            components.scheme = server?.scheme ?? "https"  // test: `?? "https"`
            components.host = server?.host ?? domain  // test: `server?.host ??`
            components.port = server?.port  // test
            components.path = "/api/v2/oauth/authorize"
            components.queryItems =
                [
                    "client_id": String(clientID),
                    "response_type": "token",
                ].map { URLQueryItem(name: $0, value: $1) }
            return components.url!
        }

        func callAsFunction() -> URL {
            url
        }
    }

    /// test: where `processResponseURL` stores the token.
    struct StoredToken: Sendable, Equatable {
        var token: String
        var expiresIn: String
    }

    /// test: what the tests ask of the view model, reached through a protocol so that calling the
    /// deprecated `signIn()` adds no deprecation warning to the build.
    protocol Seed000SignIn {
        func signIn()
    }

    class SignInViewModel: NSObject, ObservableObject, ASWebAuthenticationPresentationContextProviding, Seed000SignIn {
        var subscriptions = Set<AnyCancellable>()
        let configurationBundle: Bundle  // test
        let storedTokens = Mailbox<StoredToken>()  // test
        let failures = Mailbox<Completion>()  // test

        init(configurationBundle: Bundle) {  // test
            self.configurationBundle = configurationBundle
        }

        // MARK: - ASWebAuthenticationPresentationContextProviding

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            return ASPresentationAnchor()
        }

        // test: the seed calls the scheme initializer, deprecated since 27.0
        @available(*, deprecated, message: "seed 000 uses the scheme initializer")
        func signIn() {
            let signInPromise = Future<URL, Error> { completion in
                let apiData = AnilistAPIConfigurations.load(from: self.configurationBundle)  // test: `from:`
                // test: `server:`
                let authUrl = AnilistAuthenticationURLBuilder(
                    server: apiData.authorizationServer, clientID: apiData.id)()

                let authSession = ASWebAuthenticationSession(
                    url: authUrl,
                    callbackURLScheme:
                        apiData.redirectURL.absoluteString
                ) { (url, error) in
                    if let error = error {
                        completion(.failure(error))
                    } else if let url = url {
                        completion(.success(url))
                    }
                }

                authSession.presentationContextProvider = self
                authSession.prefersEphemeralWebBrowserSession = true
                authSession.start()
            }

            signInPromise.sink { (completion) in
                switch completion {
                // Handle the error here. An error can even be when the user cancels authentication.
                case .failure(let error):
                    self.failures.put(Completion(url: nil, error: error))  // test
                default: break
                }
            } receiveValue: { (url) in
                self.processResponseURL(url: url)
            }
            .store(in: &subscriptions)
        }

        func processResponseURL(url: URL) {
            let anilistComponents = URLComponents(url: url, resolvingAgainstBaseURL: true)
            // Anilist actually returns the token in a messed up way.
            // All the parameters - including query parameters - are AFTER the fragment.
            // So I can't just access the query property of these components to get all the data I need.
            // To work around this and save myself the headache of possible encoding issues, I will create
            // a new URL using the fragment of the old components and some dummy domain.

            if let anilistFragment = anilistComponents?.fragment,
                let dummyURL = URL(string: "http://dummyurl.com?\(anilistFragment)"),
                let components = URLComponents(url: dummyURL, resolvingAgainstBaseURL: true),
                let queryItems = components.queryItems,
                let token = queryItems.filter({ $0.name == "access_token" }).first?.value,
                let expirationDate = queryItems.filter({ $0.name == "expires_in" }).first?.value
            {

                /// Store the token
                /// Store the token expiration date if necessary.
                storedTokens.put(StoredToken(token: token, expiresIn: expirationDate))  // test
            }
        }

    }

    extension CompatIntegrationTests {
        @Suite(
            "Seed 000: the SwiftUI article's view model, on Linux", .serialized, TestFixture.desktopTools.required,
            TestFixture.chromium.required)
        struct Seed000Tests {
            /// Writes the article's `anilist_api.json` (plus the local server) into a new bundle directory.
            private func configurationBundle(in desktop: TemporaryDesktop, server: URL) throws -> Bundle {
                let directory = desktop.root.appendingPathComponent("Nae.bundle")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let json = """
                    {
                        "id": 1,
                        "secret": "api_secret",
                        "name": "Nae for Anilist",
                        "redirectURL": "fairese-nae://anilist-auth",
                        "authorizationServer": "\(server.absoluteString)"
                    }
                    """
                try Data(json.utf8).write(to: directory.appendingPathComponent("anilist_api.json"))
                return try #require(Bundle(url: directory))
            }

            @Test func theViewModelSignsInAndReadsTheTokenFromTheFragment() async throws {
                let setup = try SeedDesktop(schemes: ["fairese-nae"])
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    let issued = Mailbox<String>()
                    // An implicit grant like Anilist's: the token comes back after the fragment.
                    let server = try await RedirectingProviderServer.start { request in
                        guard request.path == "/api/v2/oauth/authorize", request.queryValue("client_id") == "1",
                            request.queryValue("response_type") == "token"
                        else { return nil }
                        let token = randomToken()
                        issued.put(token)
                        return "fairese-nae://anilist-auth#access_token=\(token)&token_type=Bearer&expires_in=31536000"
                    }
                    let (browser, launcher) = try setup.chromium(handing: ["fairese-nae"], from: [server.baseURL])
                    defer { launcher.terminate() }

                    let viewModel = SignInViewModel(
                        configurationBundle: try configurationBundle(in: setup.desktop, server: server.baseURL))
                    ASWebAuthenticationSession.$environment.withValue(setup.environment(browser: browser)) {
                        (viewModel as any Seed000SignIn).signIn()
                    }
                    let stored = await viewModel.storedTokens.next(orFailureIn: viewModel.failures)
                    if stored == nil {
                        let failures = viewModel.failures.all.map { String(describing: $0.detail) }
                        Issue.record("no token; failures: \(failures); Chromium said:\n\(launcher.logTails())")
                    }
                    await server.shutdown()

                    let token = try #require(stored)
                    #expect(token.token == issued.all.first)
                    #expect(token.expiresIn == "31536000")
                    #expect(viewModel.failures.all.isEmpty)
                    #expect(viewModel.subscriptions.count == 1)
                    let request = try #require(await server.requests.first)
                    #expect(request.header("User-Agent")?.contains("Chrome") == true)
                }
            }

            @Test func aFailureReachesTheSubscriberAsAppleSError() async throws {
                // The scheme is not registered and the person's browser cannot hand it back.
                let setup = try SeedDesktop(schemes: [])
                defer { setup.remove() }
                let viewModel = SignInViewModel(
                    configurationBundle: try configurationBundle(
                        in: setup.desktop, server: URL(string: "http://127.0.0.1:9")!))
                ASWebAuthenticationSession.$environment.withValue(setup.environment(browser: SeedDesktop.silentBrowser))
                {
                    (viewModel as any Seed000SignIn).signIn()
                }
                let failure = try #require(await viewModel.failures.next(within: .seconds(10)))
                #expect(failure.domain == ASWebAuthenticationSessionErrorDomain)
                #expect(failure.code == ASWebAuthenticationSessionError.Code.presentationContextInvalid.rawValue)
                #expect(failure.detail?.code == .noCallbackReceiver)
                #expect(failure.detail?.message.contains("webauth scheme register fairese-nae") == true)
                #expect(viewModel.storedTokens.all.isEmpty)
            }
        }
    }
#endif
