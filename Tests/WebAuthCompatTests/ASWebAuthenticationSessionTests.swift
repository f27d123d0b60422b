// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthTestSupport

    extension CompatIntegrationTests {
        @Suite("ASWebAuthenticationSessionError and Callback")
        struct CompatErrorTests {
            @Test func codesAndDomainAreApples() {
                #expect(
                    ASWebAuthenticationSessionErrorDomain == "com.apple.AuthenticationServices.WebAuthenticationSession"
                )
                #expect(ASWebAuthenticationSessionError.errorDomain == ASWebAuthenticationSessionErrorDomain)
                #expect(ASWebAuthenticationSessionError.Code.canceledLogin.rawValue == 1)
                #expect(ASWebAuthenticationSessionError.Code.presentationContextNotProvided.rawValue == 2)
                #expect(ASWebAuthenticationSessionError.Code.presentationContextInvalid.rawValue == 3)
                #expect(ASWebAuthenticationSessionError.canceledLogin == .canceledLogin)

                let error = ASWebAuthenticationSessionError(
                    .presentationContextInvalid, userInfo: [NSLocalizedDescriptionKey: "x"])
                let bridged = error as NSError
                #expect(bridged.domain == ASWebAuthenticationSessionErrorDomain)
                #expect(bridged.code == 3)
                #expect(bridged.localizedDescription == "x")
                #expect(error.errorCode == 3)
                #expect(error == ASWebAuthenticationSessionError(.presentationContextInvalid))
                #expect(error != ASWebAuthenticationSessionError(.canceledLogin))
            }

            @Test func everyLinuxErrorMapsOntoAnAppleCodeAndStaysReachable() {
                let cases: [(WebAuthenticationSessionError, ASWebAuthenticationSessionError.Code)] = [
                    (.cancelled(.user), .canceledLogin),
                    (.cancelled(.program), .canceledLogin),
                    (.timedOut(after: .seconds(5)), .canceledLogin),
                    (
                        WebAuthenticationSessionError(code: .presentationContextNotProvided, message: "m"),
                        .presentationContextNotProvided
                    ),
                    (
                        WebAuthenticationSessionError(code: .presentationContextInvalid, message: "m"),
                        .presentationContextInvalid
                    ),
                    (.noBrowserAvailable("m"), .presentationContextInvalid),
                    (.browserLaunchFailed("m"), .presentationContextInvalid),
                    (.listenerFailed(port: 8080, "busy"), .presentationContextInvalid),
                    (.noCallbackReceiver("m"), .presentationContextInvalid),
                    (.invalidCallback("m"), .presentationContextInvalid),
                    (.invalidAuthorizationURL("m"), .presentationContextInvalid),
                    (.callbackMismatch("m"), .presentationContextInvalid),
                    (.browserCannotHonor("m"), .presentationContextInvalid),
                ]
                for (linux, apple) in cases {
                    let error = ASWebAuthenticationSessionError(linux)
                    #expect(error.code == apple, "\(linux.code)")
                    #expect(error.webAuthenticationError == linux)
                    #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == linux.message)
                    #expect(error.userInfo[NSUnderlyingErrorKey] is WebAuthenticationSessionError)
                }
                let timeout = ASWebAuthenticationSessionError(.timedOut(after: .seconds(5)))
                #expect(timeout.webAuthenticationError?.code == .timedOut)
                #expect(timeout.webAuthenticationError?.cancellationReason == .timeout)
                let port = ASWebAuthenticationSessionError(.listenerFailed(port: 8080, "busy"))
                #expect(port.webAuthenticationError?.port == 8080)
            }

            @Test func catchPatternsWorkAsOnApplePlatforms() {
                func classify(_ error: any Error) -> String {
                    do {
                        throw error
                    } catch ASWebAuthenticationSessionError.canceledLogin {
                        return "cancelled"
                    } catch ASWebAuthenticationSessionError.presentationContextNotProvided {
                        return "no context"
                    } catch {
                        return "other"
                    }
                }
                #expect(classify(ASWebAuthenticationSessionError(.cancelled(.user))) == "cancelled")
                #expect(classify(ASWebAuthenticationSessionError(.presentationContextNotProvided)) == "no context")
                #expect(classify(ASWebAuthenticationSessionError(.presentationContextInvalid)) == "other")
                #expect(classify(CocoaError(.fileNoSuchFile)) == "other")
            }

            @Test func callbacksMatchAsTheEngineDoes() {
                let custom = ASWebAuthenticationSession.Callback.customScheme("com.Example.App")
                #expect(custom.matchesURL(URL(string: "com.example.app:/done?code=1")!))
                #expect(custom.matchesURL(URL(string: "COM.EXAMPLE.APP://x")!))
                #expect(!custom.matchesURL(URL(string: "com.example.other:/done")!))
                let https = ASWebAuthenticationSession.Callback.https(host: "example.com", path: "/oauth")
                #expect(https.matchesURL(URL(string: "https://example.com/oauth/done?code=1")!))
                #expect(!https.matchesURL(URL(string: "https://example.com/oauthx")!))
                #expect(!https.matchesURL(URL(string: "https://example.com:8443/oauth")!))
                #expect(!https.matchesURL(URL(string: "http://example.com/oauth")!))
                #expect(custom == ASWebAuthenticationSession.Callback.customScheme("com.example.app"))
                #expect(custom != https)
                #expect(custom.description == "com.example.app:")
            }
        }
    }

    /// The scheme initializer, deprecated since Apple's 27.0 SDKs and still supported. Tests of its
    /// behaviour reach it through this protocol, which keeps the build free of deprecation
    /// warnings while the initializer itself stays marked.
    protocol SchemeInitializer: Sendable {
        func session(
            url: URL, callbackURLScheme: String?,
            completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler
        ) -> ASWebAuthenticationSession
    }

    struct DeprecatedSchemeInitializer: SchemeInitializer {
        @available(*, deprecated, message: "calls init(url:callbackURLScheme:completionHandler:)")
        func session(
            url: URL, callbackURLScheme: String?,
            completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler
        ) -> ASWebAuthenticationSession {
            ASWebAuthenticationSession(
                url: url, callbackURLScheme: callbackURLScheme, completionHandler: completionHandler)
        }
    }

    /// The deprecated initializer, for the tests of what it accepts.
    let schemeInitializer: any SchemeInitializer = DeprecatedSchemeInitializer()

    /// Starting, cancelling and keeping alive, with a "browser" that opens nothing (the desktop or
    /// the test delivers the callback) in a temporary desktop.
    extension CompatIntegrationTests {
        @Suite("ASWebAuthenticationSession semantics", .serialized, TestFixture.desktopTools.required)
        struct CompatSessionTests {
            final class Anchors: NSObject, ASWebAuthenticationPresentationContextProviding {
                let anchor: ASPresentationAnchor
                init(_ anchor: ASPresentationAnchor = ASPresentationAnchor()) { self.anchor = anchor }
                func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { anchor }
            }

            private func start(
                _ session: ASWebAuthenticationSession, in setup: SeedDesktop,
                browser: any Browser = SeedDesktop.silentBrowser
            ) -> Bool {
                ASWebAuthenticationSession.$environment.withValue(setup.environment(browser: browser)) {
                    session.start()
                }
            }

            @Test func withoutAPresentationContextProviderStartFailsAsOnApplePlatforms() async throws {
                let setup = try SeedDesktop(schemes: ["com.example.noprovider"])
                defer { setup.remove() }
                let received = Mailbox<Completion>()
                let session = ASWebAuthenticationSession(
                    url: URL(string: "http://127.0.0.1:9/")!, callback: .customScheme("com.example.noprovider")
                ) {
                    url, error in received.put(Completion(url: url, error: error))
                }
                #expect(session.canStart)
                #expect(start(session, in: setup) == false)
                let completion = try #require(await received.next())
                #expect(completion.code == 2)
                #expect(completion.domain == ASWebAuthenticationSessionErrorDomain)
                #expect(completion.detail?.code == .presentationContextNotProvided)
                #expect(!session.canStart)
                #expect(start(session, in: setup) == false)
                // Real time is the point: a refused second start that still called the handler
                // would do so later, from no event the test can wait for; 100 ms bounds it.
                try await Task.sleep(for: .milliseconds(100))
                #expect(received.all.count == 1, "the handler runs once")
                #expect(!setup.socketExists(forScheme: "com.example.noprovider"))
            }

            @Test func aWholeURLAsTheSchemeUsesItsSchemeAndTheSessionKeepsItselfAlive() async throws {
                let setup = try SeedDesktop(schemes: ["fairese-nae"])
                defer { setup.remove() }
                let received = Mailbox<Completion>()
                let provider = Anchors()
                weak var weakSession: ASWebAuthenticationSession?
                do {
                    let session = schemeInitializer.session(
                        url: URL(string: "http://127.0.0.1:9/")!, callbackURLScheme: "fairese-nae://anilist-auth"
                    ) { url, error in received.put(Completion(url: url, error: error)) }
                    session.presentationContextProvider = provider
                    #expect(session.presentationContextProvider === provider)
                    #expect(start(session, in: setup))
                    weakSession = session
                }
                #expect(await eventually { setup.socketExists(forScheme: "fairese-nae") })
                #expect(weakSession != nil, "a started session keeps itself alive")
                let opened = try await setup.xdgOpen("fairese-nae://anilist-auth#access_token=t&expires_in=1")
                #expect(opened.status == 0, "\(opened.standardError)")
                let completion = try #require(await received.next())
                #expect(completion.url?.absoluteString == "fairese-nae://anilist-auth#access_token=t&expires_in=1")
                #expect(await eventually { weakSession == nil }, "and lets go once it has completed")
            }

            @Test func cancelBeforeStartMeansNeverAndAfterFinishingNothing() async throws {
                let setup = try SeedDesktop(schemes: ["com.example.cancel"])
                defer { setup.remove() }
                let received = Mailbox<Completion>()
                let provider = Anchors()
                // Only the completion handler holds this: once it is gone, the handler is gone
                // too, and nothing can ever call it.
                final class HeldByTheHandler: Sendable {}
                var held: HeldByTheHandler? = HeldByTheHandler()
                weak let handlerWitness = held
                let session = ASWebAuthenticationSession(
                    url: URL(string: "http://127.0.0.1:9/")!, callback: .customScheme("com.example.cancel")
                ) { [held] url, error in
                    withExtendedLifetime(held) { received.put(Completion(url: url, error: error)) }
                }
                held = nil
                session.presentationContextProvider = provider
                #expect(handlerWitness != nil, "the session holds its handler until it ends")
                session.cancel()
                #expect(handlerWitness == nil, "cancelled before starting, the session let go of its handler")
                #expect(!session.canStart)
                #expect(start(session, in: setup) == false)
                #expect(received.all.isEmpty)
                #expect(!setup.socketExists(forScheme: "com.example.cancel"))
            }

            @Test func schemesThatCannotWorkFailAtStartNamingTheFix() async throws {
                let setup = try SeedDesktop(schemes: [])
                defer { setup.remove() }
                let provider = Anchors()
                func attempt(_ scheme: String?) async throws -> Completion {
                    let received = Mailbox<Completion>()
                    let session = schemeInitializer.session(
                        url: URL(string: "http://127.0.0.1:9/")!, callbackURLScheme: scheme
                    ) {
                        url, error in received.put(Completion(url: url, error: error))
                    }
                    session.presentationContextProvider = provider
                    #expect(start(session, in: setup) == false, "\(scheme ?? "nil")")
                    return try #require(await received.next())
                }
                let unregistered = try await attempt("com.example.unregistered")
                #expect(unregistered.code == ASWebAuthenticationSessionError.Code.presentationContextInvalid.rawValue)
                #expect(unregistered.detail?.code == .noCallbackReceiver)
                #expect(
                    unregistered.detail?.message.contains("webauth scheme register com.example.unregistered") == true)

                let unnamed = try await attempt(nil)
                #expect(unnamed.detail?.code == .noCallbackReceiver)
                #expect(unnamed.detail?.message.contains("no URL scheme is registered for") == true)

                let invalid = try await attempt("not a scheme")
                #expect(invalid.detail?.code == .invalidCallback)
                let browserSchemes = try await attempt("https")
                #expect(browserSchemes.detail?.code == .invalidCallback)
            }

            @Test func theTerminalAnchorTakesAPastedCallbackWithoutARegisteredScheme() async throws {
                // "No display": the anchor presents in the terminal; the person pastes where they ended up.
                let setup = try SeedDesktop(schemes: [])
                defer { setup.remove() }
                var pipeEnds: [Int32] = [0, 0]
                #expect(pipe(&pipeEnds) == 0)
                defer {
                    close(pipeEnds[0])
                    close(pipeEnds[1])
                }
                let printed = Mailbox<String>()
                let terminal = TerminalPresenter(input: pipeEnds[0]) { printed.put($0) }
                let provider = Anchors(ASPresentationAnchor(browser: terminal))
                let received = Mailbox<Completion>()
                let session = ASWebAuthenticationSession(
                    url: URL(string: "http://127.0.0.1:9/authorize")!, callback: .customScheme("com.example.pasted")
                ) { url, error in received.put(Completion(url: url, error: error)) }
                session.presentationContextProvider = provider
                #expect(start(session, in: setup))
                let instructions = try #require(await printed.next(within: .seconds(10)))
                #expect(instructions.contains("http://127.0.0.1:9/authorize"))
                let pasted = "com.example.pasted:/done?code=42\n"
                #expect(write(pipeEnds[1], pasted, pasted.utf8.count) == pasted.utf8.count)
                let completion = try #require(await received.next(within: .seconds(10)))
                #expect(completion.url?.absoluteString == "com.example.pasted:/done?code=42")
            }
        }
    }
#endif
