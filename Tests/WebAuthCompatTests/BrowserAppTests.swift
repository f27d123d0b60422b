// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthTestSupport
    import HTTPTypes
    import WebAuthEmbeddedProvider

    /// A temporary desktop whose web-authentication browser is the example browser app
    /// (`Examples/webauth-example-browser`), registered through a small script that gives it the
    /// offline Chromium flags and a log file.
    struct BrowserAppDesktop {
        let desktop: TemporaryDesktop
        let logPath: String

        static var examplePath: String {
            TemporaryDesktop.builtProductsDirectory.appendingPathComponent("webauth-example-browser").path
        }

        init(capabilities: AuthenticationBrowserCapabilities, declines: Bool = false) throws {
            desktop = try TemporaryDesktop()
            logPath = desktop.root.appendingPathComponent("browser-app.log").path
            let script = desktop.root.appendingPathComponent("browser-app").path
            func quoted(_ value: String) -> String { "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            let lines = [
                "#!/bin/sh",
                "export WEBAUTH_EXAMPLE_BROWSER_LOG=\(quoted(logPath))",
                "export WEBAUTH_EXAMPLE_BROWSER_IDLE=60",
                "export WEBAUTH_EXAMPLE_BROWSER_ARGS=\(quoted(TestBrowsers.chromiumOfflineArguments.joined(separator: "\n")))",
                declines ? "export WEBAUTH_EXAMPLE_BROWSER_DECLINE=1" : "",
                "exec \(quoted(Self.examplePath))",
            ]
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: script))
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: script)
            try AuthenticationBrowserRegistry(environment: DesktopEnvironment(variables: desktop.variables)).register(
                name: "Example Browser", executablePath: script, capabilities: capabilities)
        }

        /// The standard selection on this desktop, with a loopback listener as the only receiver.
        var environment: SessionEnvironment {
            let selection = BrowserSelection(environment: desktop.variables)
            return SessionEnvironment(receivers: [LoopbackReceiver()]) { needs in selection.browser(for: needs) }
        }

        /// What the app logged so far.
        var log: [String] {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// The app's process ID, once it listens.
        var appPID: pid_t? {
            log.lazy.compactMap { line -> pid_t? in
                guard line.hasPrefix("listening pid=") else { return nil }
                return pid_t(line.dropFirst("listening pid=".count).prefix { $0.isNumber })
            }.first
        }

        /// Whether a log line starts with `prefix`.
        func logged(_ prefix: String) -> Bool { log.contains { $0.hasPrefix(prefix) } }

        /// Ends the app (its Chromium ends with it) and removes the desktop.
        func remove() {
            if let pid = appPID { kill(pid, SIGTERM) }
            desktop.remove()
        }

        /// Signs in through SwiftUI's session on this desktop, in a task.
        func signIn(
            _ url: URL, callback: ASWebAuthenticationSession.Callback, ephemeral: Bool = false,
            headers: [String: String] = [:]
        ) -> Task<URL, any Error> {
            let environment = environment
            let task = Task { @MainActor in
                try await ASWebAuthenticationSession.$environment.withValue(environment) {
                    try await EnvironmentValues().webAuthenticationSession.authenticate(
                        using: url, callback: callback, preferredBrowserSession: ephemeral ? .ephemeral : .shared,
                        additionalHeaderFields: headers)
                }
            }
            // Only stops a hang: a sign-in that outlives this is a failure.
            watchdog(after: .seconds(120)) { task.cancel() }
            return task
        }
    }

    extension CompatIntegrationTests {
        @Suite(
            "A browser app answers other programs' sign-ins", .serialized, TestFixture.chromium.required)
        struct BrowserAppTests {
            /// A provider page that sends the browser to `callback` with a fresh token.
            static func provider(calling callback: String, issued: Mailbox<String>) async throws
                -> RedirectingProviderServer
            {
                try await RedirectingProviderServer.start { request in
                    guard request.path == "/auth" else { return nil }
                    let token = randomToken()
                    issued.put(token)
                    return callback + "?token=" + token
                }
            }

            @Test func aCustomSchemeSignInIsHandedToTheAppWhichIsStartedForIt() async throws {
                let setup = try BrowserAppDesktop(capabilities: AuthenticationBrowserCapabilities())
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    let issued = Mailbox<String>()
                    let server = try await Self.provider(calling: "com.example.browserapp:/done", issued: issued)
                    let url = try await setup.signIn(
                        server.baseURL.appendingPathComponent("auth"),
                        callback: .customScheme("com.example.browserapp"),
                        headers: ["X-Request-Source": "browser-app-test"]
                    ).value
                    let requests = await server.requests
                    await server.shutdown()

                    #expect(url.absoluteString == "com.example.browserapp:/done?token=\(issued.all.first ?? "-")")
                    #expect(setup.logged("listening pid=\(setup.appPID ?? 0) launched=true"), "\(setup.log)")
                    #expect(setup.logged("begin ") && setup.log.contains { $0.contains("ephemeral=false") })
                    #expect(setup.logged("completed "))
                    let page = try #require(requests.first { $0.path == "/auth" })
                    #expect(
                        page.headerFields.contains {
                            $0.name.rawName == "X-Request-Source" && $0.value == "browser-app-test"
                        })
                    #expect(
                        page.headerFields.contains { $0.name.rawName == "User-Agent" && $0.value.contains("Chrome") })
                    // A shared request: the app's Chromium used its kept profile.
                    #expect(
                        FileManager.default.fileExists(atPath: setup.desktop.dataHome + "/webauth/profiles/chromium"))
                }
            }

            /// Started by the person, the app says so, and a session uses it without starting another.
            @Test func aRunningAppGetsTheRequestWithoutASecondStart() async throws {
                let setup = try BrowserAppDesktop(capabilities: AuthenticationBrowserCapabilities())
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    let app = try setup.desktop.start(setup.desktop.root.appendingPathComponent("browser-app").path, [])
                    #expect(await eventually { setup.logged("listening pid=\(app.processIdentifier) launched=false") })
                    let issued = Mailbox<String>()
                    let server = try await Self.provider(calling: "com.example.browserapp:/done", issued: issued)
                    let url = try await setup.signIn(
                        server.baseURL.appendingPathComponent("auth"), callback: .customScheme("com.example.browserapp")
                    ).value
                    await server.shutdown()
                    #expect(url.query == "token=\(issued.all.first ?? "-")")
                    #expect(setup.log.filter { $0.hasPrefix("listening ") }.count == 1, "\(setup.log)")
                }
            }

            @Test func anEphemeralHTTPSSignInIsHandedToAnAppThatDeclaresBoth() async throws {
                let setup = try BrowserAppDesktop(
                    capabilities: AuthenticationBrowserCapabilities(
                        ephemeralBrowserSessionIsSupported: true, callbackURLMatchingIsSupported: true))
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    let issued = Mailbox<String>()
                    let server = try await Self.provider(calling: "https://app.example.com/oauth/done", issued: issued)
                    let url = try await setup.signIn(
                        server.baseURL.appendingPathComponent("auth"),
                        callback: .https(host: "app.example.com", path: "/oauth"), ephemeral: true
                    ).value
                    await server.shutdown()

                    #expect(url.absoluteString == "https://app.example.com/oauth/done?token=\(issued.all.first ?? "-")")
                    #expect(
                        setup.log.contains { $0.hasPrefix("begin ") && $0.contains("ephemeral=true") }, "\(setup.log)")
                    // Ephemeral: no kept profile was made, and the fresh one is gone.
                    #expect(!FileManager.default.fileExists(atPath: setup.desktop.dataHome + "/webauth/profiles"))
                    let runtime =
                        (try? FileManager.default.subpathsOfDirectory(atPath: setup.desktop.runtimeDirectory)) ?? []
                    #expect(runtime.contains("webauth/profiles"), "the fresh profile's place: \(runtime)")
                    #expect(!runtime.contains { $0.hasPrefix("webauth/profiles/") }, "\(runtime)")
                }
            }

            @Test func theAppCancellingEndsTheSessionWithCanceledLogin() async throws {
                let setup = try BrowserAppDesktop(capabilities: AuthenticationBrowserCapabilities(), declines: true)
                defer { setup.remove() }
                let task = setup.signIn(
                    URL(string: "http://127.0.0.1:9/auth")!, callback: .customScheme("com.example.browserapp"))
                let error = await failure(of: task) as? ASWebAuthenticationSessionError
                #expect(error != nil, "the session ended with an error of Apple's type")
                #expect(error?.code == .canceledLogin)
                #expect(error?.webAuthenticationError?.cancellationReason == .user)
                #expect(setup.logged("declined "), "\(setup.log)")
            }

            @Test func theSessionCancellingCallsTheAppsCancel() async throws {
                let setup = try BrowserAppDesktop(capabilities: AuthenticationBrowserCapabilities())
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    // A page that never calls back.
                    let server = try await RedirectingProviderServer.start { _ in nil }
                    let task = setup.signIn(
                        server.baseURL.appendingPathComponent("auth"), callback: .customScheme("com.example.browserapp")
                    )
                    #expect(await eventually { await server.requests.contains { $0.path == "/auth" } })
                    task.cancel()
                    let error = await failure(of: task) as? ASWebAuthenticationSessionError
                    #expect(error != nil, "the session ended with an error of Apple's type")
                    #expect(error?.code == .canceledLogin)
                    #expect(error?.webAuthenticationError?.cancellationReason == .program)
                    #expect(await eventually { setup.logged("cancel ") }, "\(setup.log)")
                    // The app's cancel(_:) cancelled its own session, which closed its Chromium.
                    #expect(await eventually { setup.logged("cancelled ") }, "\(setup.log)")
                    await server.shutdown()
                }
            }

            @Test func theAppKilledMidRequestEndsTheSessionAtOnce() async throws {
                let setup = try BrowserAppDesktop(capabilities: AuthenticationBrowserCapabilities())
                defer { setup.remove() }
                try await BrowserTurns.withTurn {
                    let server = try await RedirectingProviderServer.start { _ in nil }
                    let task = setup.signIn(
                        server.baseURL.appendingPathComponent("auth"), callback: .customScheme("com.example.browserapp")
                    )
                    #expect(await eventually { await server.requests.contains { $0.path == "/auth" } })
                    let pid = try #require(setup.appPID)
                    let killed = ContinuousClock.now
                    kill(pid, SIGKILL)
                    let error = await failure(of: task) as? ASWebAuthenticationSessionError
                    #expect(error != nil, "the session ended with an error of Apple's type")
                    let elapsed = ContinuousClock.now - killed
                    print("browser app killed: the session ended \(elapsed) later")
                    #expect(error?.code == .presentationContextInvalid)
                    #expect(error?.webAuthenticationError?.code == .browserLaunchFailed)
                    #expect(error?.webAuthenticationError?.message.contains("ended without answering") == true)
                    // Only a hang-stopper: the end of the connection is seen at once (the figure is printed).
                    #expect(elapsed < .seconds(30))
                    await server.shutdown()
                }
            }
        }
    }
#endif
