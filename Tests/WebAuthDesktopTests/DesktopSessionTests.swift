// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux desktop (xdg-utils, XDG directories, SO_PEERCRED) is what these tests exercise.
#if os(Linux)
    import Foundation
    import Testing
    import WebAuthCore
    import WebAuthSystemBrowser
    import WebAuthTestSupport
    import WebAuthTesting
    import WebAuthEmbeddedProvider

    @testable import WebAuthDesktop
    import WebAuthDesktopSocket

    /// Whole sessions whose custom-scheme callback comes back through the desktop: real headless
    /// Chromium as the person's browser hands the redirect to the real `xdg-open`, which runs the real
    /// handler, which forwards it over the receiver's socket.
    extension DesktopIntegrationTests {
        @Suite("Sessions through the desktop", .serialized, TestFixture.desktopTools.required)
        struct DesktopSessionTests {
            /// A session with headless Chromium (handing `schemes` from `server` to `setup`'s desktop) and
            /// the desktop receiver.
            private func environment(
                _ setup: RegisteredDesktop, handing schemes: [String], from origins: [URL]
            ) throws -> (SessionEnvironment, ChromiumLauncher) {
                let launcher = try TestBrowsers.makeChromiumLauncherScript(
                    handingSchemes: schemes, from: origins, to: setup.desktop)
                let browser = SystemBrowser(command: BrowserCommand(executable: launcher.scriptPath))
                return (SessionEnvironment(browser: browser, receivers: [setup.receiver()]), launcher)
            }

            @Test(TestFixture.chromium.required)
            func headlessChromiumHandsTheRedirectToTheDesktopAndTheSessionGetsIt() async throws {
                let scheme = "com.example.desktop"
                let setup = try RegisteredDesktop(schemes: [scheme])
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    try await AuthorizationPageServer.withServer { server in
                        let (environment, launcher) = try environment(setup, handing: [scheme], from: [server.baseURL])
                        defer { launcher.terminate() }
                        let state = UUID().uuidString
                        let session = WebAuthSession(
                            callback: .customScheme(scheme), environment: environment
                        ) {
                            redirectURI in
                            server.authorizationURL(
                                redirectURI: URL(string: "\(redirectURI.absoluteString)/oauth/done")!, state: state)
                        }
                        let rule = AcceptanceRule(state: state)
                        session.acceptsCallback = rule.rule
                        session.timeout = .seconds(45)
                        let callbackURL = try await session.authenticate().url

                        #expect(callbackURL.scheme == scheme)
                        #expect(callbackURL.path == "/oauth/done")
                        let items = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
                        #expect(items.first { $0.name == "state" }?.value == state)
                        let request = try #require(await server.authorizationRequests.first)
                        #expect(items.first { $0.name == "code" }?.value == request.issuedCode)
                        #expect(request.header("User-Agent")?.contains("Chrome") == true)
                        #expect(
                            !FileManager.default.fileExists(atPath: setup.socketDirectory.socketPath(forScheme: scheme))
                        )
                    }
                }
            }

            @Test(TestFixture.chromium.required)
            func twoSessionsOnDifferentSchemesEachGetTheirOwnCallback() async throws {
                let schemes = ["com.example.first", "com.example.second"]
                let setup = try RegisteredDesktop(schemes: schemes)
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    try await AuthorizationPageServer.withServer { server in
                        let (environment, launcher) = try environment(setup, handing: schemes, from: [server.baseURL])
                        defer { launcher.terminate() }
                        try await withThrowingTaskGroup(of: (String, String, URL).self) { group in
                            for scheme in schemes {
                                group.addTask {
                                    let state = "\(scheme)-\(UUID().uuidString)"
                                    let session = WebAuthSession(
                                        callback: .customScheme(scheme), environment: environment
                                    ) {
                                        redirectURI in server.authorizationURL(redirectURI: redirectURI, state: state)
                                    }
                                    session.acceptsCallback = AcceptanceRule(state: state).rule
                                    session.timeout = .seconds(45)
                                    return (scheme, state, try await session.authenticate().url)
                                }
                            }
                            var seen = Set<String>()
                            for try await (scheme, state, callbackURL) in group {
                                #expect(callbackURL.scheme == scheme)
                                #expect(callbackURL.query?.contains("state=\(state)") == true)
                                seen.insert(scheme)
                            }
                            #expect(seen == Set(schemes))
                        }
                        #expect(launcher.browserProcessIDs.count == 2)
                    }
                }
            }

            @Test func anUnregisteredSchemeFailsAtStartNamingTheFix() async throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let environment = SessionEnvironment(
                    browser: SystemBrowser(command: BrowserCommand(executable: "/bin/true")),
                    receivers: [setup.receiver()])
                let session = WebAuthSession(
                    url: URL(string: "https://example.com/authorize")!, callback: .customScheme("com.example.nowhere"),
                    environment: environment)
                let error = try await #require(throws: WebAuthenticationSessionError.self) {
                    try await session.authenticate().url
                }
                #expect(error.code == .noCallbackReceiver)
                #expect(error.message.contains("register the scheme with the desktop"))
            }

            @Test func cancellingAWaitingSessionReleasesItsScheme() async throws {
                let scheme = "com.example.cancelled"
                let setup = try RegisteredDesktop(schemes: [scheme])
                defer { setup.remove() }
                // A "browser" that opens nothing: the session waits for the desktop alone.
                let environment = SessionEnvironment(
                    browser: SystemBrowser(command: BrowserCommand(executable: "/bin/true")),
                    receivers: [setup.receiver()])
                let session = WebAuthSession(
                    url: URL(string: "http://127.0.0.1:9/authorize")!, callback: .customScheme(scheme),
                    environment: environment
                )
                let result = Task { try await session.authenticate().url }
                let socket = setup.socketDirectory.socketPath(forScheme: scheme)
                #expect(await eventually { FileManager.default.fileExists(atPath: socket) })
                session.cancel()
                let error = try await #require(throws: WebAuthenticationSessionError.self) { try await result.value }
                #expect(error.code == .canceledLogin)
                #expect(error.cancellationReason == .program)
                #expect(!FileManager.default.fileExists(atPath: socket))
                let late = try await setup.handler("\(scheme):/cb?x=1")
                #expect(late.status == CallbackForwardingError.Code.noWaitingSession.exitStatus)
                let next = try await setup.receiver().listen(for: .customScheme(scheme), deciding: acceptingEvery)
                await next.close()
            }

            @Test func theSameSchemeInASecondProcessIsRefusedEitherWay() async throws {
                let scheme = "com.example.shared"
                let setup = try RegisteredDesktop(schemes: [scheme])
                defer { setup.remove() }
                let arguments = [
                    "open", "--callback-scheme", scheme, "--timeout", "30", "http://127.0.0.1:9/authorize",
                ]
                let quietBrowser = ["BROWSER": "/bin/true"]

                // This process waits first: the command line is refused.
                let listener = try await setup.receiver().listen(for: .customScheme(scheme), deciding: acceptingEvery)
                let refused = try await setup.webauth(arguments, extra: quietBrowser)
                #expect(refused.status == 6, "\(refused.standardError)")
                #expect(refused.standardError.contains("another sign-in is already waiting for \(scheme): callbacks"))
                await listener.close()

                // The command line waits first: this process is refused, and the desktop reaches the command line.
                let command = try setup.desktop.start(RegisteredDesktop.webauthPath, arguments, extra: quietBrowser)
                let socket = setup.socketDirectory.socketPath(forScheme: scheme)
                #expect(await eventually(within: .seconds(20)) { FileManager.default.fileExists(atPath: socket) })
                let error = try await #require(throws: WebAuthenticationSessionError.self) {
                    try await setup.receiver().listen(for: .customScheme(scheme), deciding: acceptingEvery)
                }
                #expect(error.code == .callbackListenerFailed)
                let opened = try await setup.xdgOpen("\(scheme):/done?code=from-desktop")
                #expect(opened.status == 0, "\(opened.standardError)")
                let finished = await command.wait(timeout: .seconds(30))
                #expect(finished.status == 0, "\(finished.standardError)")
                #expect(
                    finished.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                        == "\(scheme):/done?code=from-desktop")
            }
        }
    }

    extension DesktopIntegrationTests {
        @Suite("webauth scheme, run as a process", TestFixture.desktopTools.required)
        struct SchemeCommandTests {
            @Test func registerStatusAndUnregister() async throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let scheme = "com.example.cli"
                let handler = ["--handler", TemporaryDesktop.schemeHandlerPath]

                let notYet = try await setup.webauth(["scheme", "status", scheme])
                #expect(notYet.status == 1)
                #expect(notYet.standardOutput.contains("\(scheme): not registered"))

                let registered = try await setup.webauth(["scheme", "register", scheme, "--app", "tool"] + handler)
                #expect(registered.status == 0, "\(registered.standardError)")
                #expect(registered.standardOutput.contains("\(scheme): registered"))
                #expect(registered.standardError.isEmpty)
                #expect(setup.registry.isRegistered(scheme: scheme))
                #expect(setup.registry.registeredSchemes(forApplication: "tool") == [scheme])

                let status = try await setup.webauth(["scheme", "status", scheme, "--json"])
                #expect(status.status == 0)
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
                #expect(json["registered"] as? Bool == true)
                #expect(json["default_handler"] as? String == "webauth-scheme-\(scheme).desktop")
                #expect(json["handler"] as? String == TemporaryDesktop.schemeHandlerPath)
                #expect(json["application"] as? String == "tool")

                let short = try await setup.webauth(["scheme", "register", "myapp"] + handler)
                #expect(short.status == 0)
                #expect(short.standardError.contains("warning: 'myapp' is not a reverse-DNS name"))

                let invalid = try await setup.webauth(["scheme", "register", "not a scheme"] + handler)
                #expect(invalid.status == 7)
                #expect(invalid.standardError.contains("error: 'not a scheme' cannot be a callback scheme"))

                let removed = try await setup.webauth(["scheme", "unregister", scheme])
                #expect(removed.status == 0)
                #expect(removed.standardOutput.contains("Unregistered \(scheme):"))
                #expect(!setup.registry.isRegistered(scheme: scheme))
                let after = try await setup.webauth(["scheme", "status", scheme])
                #expect(after.status == 1)
            }

            @Test func theDefaultHandlerIsTheOneBuiltNextToWebauth() async throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                let registered = try await setup.webauth(["scheme", "register", "com.example.default", "--json"])
                #expect(registered.status == 0, "\(registered.standardError)")
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(registered.standardOutput.utf8)) as? [String: Any])
                let handler = try #require(json["handler"] as? String)
                #expect(
                    URL(fileURLWithPath: handler).resolvingSymlinksInPath().path
                        == URL(fileURLWithPath: TemporaryDesktop.schemeHandlerPath).resolvingSymlinksInPath().path)
            }
        }
    }
#endif
