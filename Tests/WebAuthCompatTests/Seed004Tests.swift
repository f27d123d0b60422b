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

    // Seed 004, "iOS 11, Privacy and Single Sign On": SFAuthenticationSession with a nil callback
    // scheme (the scheme the app registered) for an OAuth 1.0a-style callback carrying `oauth_token`,
    // with `import WebAuthCompat` for `import SafariServices`. The article's fragments are assembled
    // in a screen object; lines marked "test:" are not the article's. SFAuthenticationSession is
    // deprecated, as Apple marks it, so the code lives in deprecated declarations that the tests
    // reach through a protocol (which keeps the build free of deprecation warnings).

    @available(*, deprecated, message: "uses SFAuthenticationSession, as seed 004 does")
    final class AuthScreen {
        var authSession: SFAuthenticationSession!
        let tokens = Mailbox<String?>()  // test
        let completions = Mailbox<Completion>()  // test

        func authUser(authURLString: String) -> Bool {
            //Typedef block to handle response
            let handler: SFAuthenticationSession.CompletionHandler = { (callBack: URL?, error: Error?) in
                self.completions.put(Completion(url: callBack, error: error))  // test
                guard error == nil, let successURL = callBack else { return }
                let oauthToken = NSURLComponents(string: (successURL.absoluteString))?.queryItems?.filter({
                    $0.name == "oauth_token"
                }).first
                // Do what you now that you've got the token, or use the callBack URL
                self.tokens.put(oauthToken?.value)  // test
            }
            //OAuth Provider URL
            let authURL = NSURL(string: authURLString)
            //Initialize auth session
            //'self' is unnecessary, but illustrates it's an iVar
            self.authSession = SFAuthenticationSession(
                url: authURL! as URL, callbackURLScheme: nil, completionHandler: handler)  // test: `! as URL`
            //Kick it off
            return authSession.start()
        }
    }

    /// What the tests ask of seed 004's code (see the file's comment).
    protocol Seed004Flows {
        func signsInWithTheRegisteredScheme() async throws
        func aSecondStartAndASecondSessionReturnFalse() async throws
        func errorsAreSFAuthenticationErrors() async throws
    }

    struct Seed004 {}

    extension Seed004: Seed004Flows {
        @available(*, deprecated, message: "uses SFAuthenticationSession, as seed 004 does")
        func signsInWithTheRegisteredScheme() async throws {
            let scheme = "com.example.seedfour"
            let setup = try SeedDesktop(schemes: [scheme])  // registered for this program, like Info.plist
            defer { setup.remove() }
            try await BrowserTurns.withTurn {
                let requestToken = randomToken()
                let verifier = Mailbox<String>()
                // The provider's authorize page sends the browser back with the token and a verifier.
                let server = try await RedirectingProviderServer.start { request in
                    guard request.path == "/oauth/authorize", let token = request.queryValue("oauth_token") else {
                        return nil
                    }
                    let issued = randomToken()
                    verifier.put(issued)
                    return "\(scheme)://oauth-callback?oauth_token=\(token)&oauth_verifier=\(issued)"
                }
                let (browser, launcher) = try setup.chromium(handing: [scheme], from: [server.baseURL])
                defer { launcher.terminate() }

                let screen = AuthScreen()
                let started = ASWebAuthenticationSession.$environment.withValue(setup.environment(browser: browser)) {
                    screen.authUser(
                        authURLString: server.baseURL.absoluteString + "/oauth/authorize?oauth_token=\(requestToken)")
                }
                #expect(started)
                let completion = await screen.completions.next()
                if completion == nil { Issue.record("no completion; Chromium said:\n\(launcher.logTails())") }
                #expect(completion?.detail == nil, "\(String(describing: completion?.detail))")
                let token = try #require(await screen.tokens.next())
                await server.shutdown()
                #expect(token == requestToken)
                let callbackURL = try #require(screen.completions.all.first?.url)
                #expect(callbackURL.scheme == scheme)
                #expect(callbackURL.query?.contains("oauth_verifier=\(verifier.all.first ?? "?")") == true)
                #expect(screen.authSession.start() == false, "a session runs once")
            }
        }

        @available(*, deprecated, message: "uses SFAuthenticationSession, as seed 004 does")
        func aSecondStartAndASecondSessionReturnFalse() async throws {
            let scheme = "com.example.seedfourb"
            let setup = try SeedDesktop(schemes: [scheme])
            defer { setup.remove() }
            let screen = AuthScreen()
            try await ASWebAuthenticationSession.$environment.withValue(
                setup.environment(browser: SeedDesktop.silentBrowser)
            ) {
                // The article's "code like this would be a problem":
                #expect(screen.authUser(authURLString: "http://127.0.0.1:9/oauth/authorize") == true)  //Returns true
                let first = screen.authSession!
                #expect(await eventually { setup.socketExists(forScheme: scheme) })
                #expect(first.start() == false)  // the same session, started again
                #expect(screen.authUser(authURLString: "http://127.0.0.1:9/other") == false)  //Returns false
                let refused = try #require(await screen.completions.next(within: .seconds(10)))
                #expect(refused.isSFError)
                #expect(refused.detail?.message.contains("another sign-in is already waiting") == true)

                // The first session is still the one waiting, and it completes.
                let opened = try await setup.xdgOpen("\(scheme)://oauth-callback?oauth_token=first")
                #expect(opened.status == 0, "\(opened.standardError)")
                #expect(try #require(await screen.tokens.next()) == "first")
            }
        }

        @available(*, deprecated, message: "uses SFAuthenticationSession, as seed 004 does")
        func errorsAreSFAuthenticationErrors() async throws {
            let setup = try SeedDesktop(schemes: ["com.example.seedfourc"])
            defer { setup.remove() }
            let received = Mailbox<Completion>()
            let session = ASWebAuthenticationSession.$environment.withValue(
                setup.environment(browser: SeedDesktop.silentBrowser)
            ) {
                let session = SFAuthenticationSession(
                    url: URL(string: "http://127.0.0.1:9/")!, callbackURLScheme: "com.example.seedfourc"
                ) {
                    url, error in
                    received.put(Completion(url: url, error: error))
                    if let error = error as? SFAuthenticationError {
                        #expect(error.code == .canceledLogin)
                        #expect(error.webAuthenticationError?.cancellationReason == .program)
                    }
                }
                #expect(session.start())
                return session
            }
            #expect(await eventually { setup.socketExists(forScheme: "com.example.seedfourc") })
            session.cancel()
            let completion = try #require(await received.next())
            #expect(completion.isSFError)
            #expect(completion.domain == "com.apple.SafariServices.Authentication")
            #expect(completion.code == 1)
            #expect(completion.url == nil)
            #expect(!setup.socketExists(forScheme: "com.example.seedfourc"))

            // Without a registered scheme, nil cannot be resolved: start() says no, and why.
            let empty = try SeedDesktop(schemes: [])
            defer { empty.remove() }
            let unresolved = ASWebAuthenticationSession.$environment.withValue(
                empty.environment(browser: SeedDesktop.silentBrowser)
            ) {
                SFAuthenticationSession(url: URL(string: "http://127.0.0.1:9/")!, callbackURLScheme: nil) {
                    url, error in
                    received.put(Completion(url: url, error: error))
                }
            }
            #expect(
                ASWebAuthenticationSession.$environment.withValue(empty.environment(browser: SeedDesktop.silentBrowser))
                {
                    unresolved.start()
                } == false)
            let reason = try #require(await received.next())
            #expect(reason.isSFError)
            #expect(reason.detail?.message.contains("no URL scheme is registered for") == true)
            #expect(reason.detail?.message.contains("webauth scheme register SCHEME --app") == true)
        }
    }

    extension CompatIntegrationTests {
        @Suite(
            "Seed 004: SFAuthenticationSession, on Linux", .serialized, TestFixture.desktopTools.required,
            TestFixture.chromium.required)
        struct Seed004Tests {
            private let flows: any Seed004Flows = Seed004()

            @Test func signsInWithTheSchemeThisProgramRegistered() async throws {
                try await flows.signsInWithTheRegisteredScheme()
            }

            @Test func startReturnsFalseTheSecondTime() async throws {
                try await flows.aSecondStartAndASecondSessionReturnFalse()
            }

            @Test func errorsAreSFAuthenticationErrors() async throws {
                try await flows.errorsAreSFAuthenticationErrors()
            }
        }
    }
#endif
