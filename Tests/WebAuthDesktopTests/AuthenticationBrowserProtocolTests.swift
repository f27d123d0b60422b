// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux desktop (XDG directories, SO_PEERCRED) is what these tests exercise.
#if os(Linux)
    import Foundation
    import Testing
    import WebAuthCore
    import WebAuthDesktop
    import WebAuthDesktopSocket
    import WebAuthTestSupport

    @Suite("The web-authentication browser's protocol and registration")
    struct AuthenticationBrowserProtocolTests {
        let request = AuthenticationBrowserRequest(
            url: URL(string: "https://id.example.com/authorize?client_id=a&state=s")!,
            callback: .https(host: "app.example.com", path: "/done"), prefersEphemeralSession: true,
            additionalHeaderFields: ["X-Client": "4.2"])

        @Test func everyMessageReadsBackAsItWasWritten() throws {
            let messages: [AuthenticationBrowserMessage] = [
                .begin(request), .cancel(request.uuid),
                .complete(request.uuid, URL(string: "https://app.example.com/done?code=c")!),
                .canceled(request.uuid, code: 1, message: "the person closed the window"),
            ]
            for message in messages {
                let line = message.line
                #expect(line.last == UInt8(ascii: "\n"))
                #expect(!line.dropLast().contains(UInt8(ascii: "\n")), "one line per message")
                #expect(try AuthenticationBrowserMessage.parse(Array(line.dropLast())) == message)
            }
            let scheme = AuthenticationBrowserRequest(url: request.url, callback: .customScheme("com.example.app"))
            guard
                case .begin(let read) = try AuthenticationBrowserMessage.parse(
                    Array(AuthenticationBrowserMessage.begin(scheme).line.dropLast()))
            else {
                Issue.record("not a begin")
                return
            }
            #expect(read.callback == .customScheme("com.example.app"))
        }

        @Test func badMessagesAreProtocolViolations() {
            func violation(_ text: String) -> Bool {
                do {
                    _ = try AuthenticationBrowserMessage.parse(Array(text.utf8))
                    return false
                } catch {
                    return error.code == .protocolViolation && !error.message.contains("state=")
                }
            }
            let uuid = UUID().uuidString
            #expect(violation("not json"))
            #expect(violation(#"{"v":2,"type":"cancel","uuid":"\#(uuid)"}"#), "another version")
            #expect(violation(#"{"v":1,"type":"cancel","uuid":"nope"}"#))
            #expect(violation(#"{"v":1,"type":"shout","uuid":"\#(uuid)"}"#))
            #expect(violation(#"{"v":1,"type":"complete","uuid":"\#(uuid)","url":"has space"}"#))
            #expect(
                violation(
                    #"{"v":1,"type":"begin","uuid":"\#(uuid)","url":"http://example.com/?state=x","callback":"a.b:"}"#),
                "plain http off loopback")
            #expect(
                violation(
                    #"{"v":1,"type":"begin","uuid":"\#(uuid)","url":"https://e.com/","callback":"http://127.0.0.1/cb"}"#
                ),
                "a loopback callback")
            #expect(
                violation(
                    #"{"v":1,"type":"begin","uuid":"\#(uuid)","url":"https://e.com/","callback":"a.b:","headers":{"Cookie":"x"}}"#
                ),
                "a header the browser sets")
            #expect(violation(String(repeating: " ", count: AuthenticationBrowserMessage.maximumLineLength + 1)))
        }

        @Test func aCancellationMessageIsCleanedAndCut() throws {
            let text = #"{"v":1,"type":"canceled","uuid":"\#(UUID().uuidString)","code":1,"message":"a\u001b[31mb"}"#
            guard case .canceled(_, 1, let message) = try AuthenticationBrowserMessage.parse(Array(text.utf8)) else {
                Issue.record("not a cancellation")
                return
            }
            #expect(message == "a?[31mb")
        }

        @Test func registrationWritesReadsAndRemovesTheEntry() throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let registry = AuthenticationBrowserRegistry(environment: DesktopEnvironment(variables: desktop.variables))
            #expect(registry.registration == nil)
            let capabilities = AuthenticationBrowserCapabilities(ephemeralBrowserSessionIsSupported: true)
            let registration = try registry.register(
                name: "Example", executablePath: "/bin/true", capabilities: capabilities)
            #expect(registration.entryPath == desktop.dataHome + "/applications/webauth-authentication-browser.desktop")
            let text = try String(contentsOfFile: registration.entryPath, encoding: .utf8)
            #expect(text.contains("[X-ASWebAuthenticationSessionWebBrowserSupportCapabilities]\nIsSupported=true"))
            #expect(text.contains("EphemeralBrowserSessionIsSupported=true\nCallbackURLMatchingIsSupported=false"))
            #expect(registry.registration?.capabilities == capabilities)
            #expect(registry.registration?.isUsable == true)
            #expect(try registry.unregister())
            #expect(registry.registration == nil)
            #expect(try !registry.unregister())

            #expect(throws: AuthenticationBrowserError.self) {
                try registry.register(name: "x", executablePath: "relative/path", capabilities: capabilities)
            }
            #expect(throws: AuthenticationBrowserError.self) {
                try registry.register(name: "x", executablePath: "/no/such/program", capabilities: capabilities)
            }
            try Data("[Desktop Entry]\nName=Someone else's\n".utf8).write(to: URL(fileURLWithPath: registry.entryPath))
            let foreign = #expect(throws: AuthenticationBrowserError.self) { try registry.unregister() }
            #expect(foreign?.code == .foreignEntry)
        }

        /// A server in this process and the session's browser: the socket is private, a request
        /// arrives checked, an answer reaches the session, and a peer that hangs up ends it.
        @Test func theSocketCarriesARequestAndItsAnswer() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let environment = DesktopEnvironment(variables: desktop.variables)
            let begun = Mailbox<AuthenticationBrowserConnection>()
            let server = try AuthenticationBrowserServer.start(
                environment: environment, handler: .init(begin: { begun.put($0) }, cancel: { _ in }))
            defer { server.stop() }
            #expect(fileMode(server.socketPath)?.mode == 0o600)
            #expect(fileMode(server.socketPath)?.isSocket == true)
            let second = #expect(throws: AuthenticationBrowserError.self) {
                try AuthenticationBrowserServer.start(
                    environment: environment, handler: .init(begin: { _ in }, cancel: { _ in }))
            }
            #expect(second?.code == .alreadyListening)

            let registration = try AuthenticationBrowserRegistry(environment: environment).register(
                name: "In-process", executablePath: "/bin/false", capabilities: AuthenticationBrowserCapabilities())
            let browser = AuthenticationBrowser(registration: registration, environment: environment)
            let presentation = try await browser.present(
                BrowserRequest(
                    url: request.url, callback: .customScheme("com.example.app"),
                    additionalHeaderFields: ["X-Client": "4.2"]))
            let connection = try #require(await begun.next())
            #expect(connection.request.url == request.url)
            #expect(connection.request.additionalHeaderFields == ["X-Client": "4.2"])
            #expect(connection.complete(withCallbackURL: URL(string: "com.example.app:/done?code=c")!))
            #expect(!connection.complete(withCallbackURL: URL(string: "com.example.app:/again")!), "once only")
            var events = presentation.events.makeAsyncIterator()
            #expect(await events.next() == .callback(URL(string: "com.example.app:/done?code=c")!))
            await presentation.dismiss()
        }

        /// What the session sends is checked again on arrival: a request the program may not
        /// carry out is refused, and the session hears why.
        @Test func theProgramRefusesARequestItMayNotCarryOut() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let environment = DesktopEnvironment(variables: desktop.variables)
            let begun = Mailbox<AuthenticationBrowserConnection>()
            let server = try AuthenticationBrowserServer.start(
                environment: environment, handler: .init(begin: { begun.put($0) }, cancel: { _ in }))
            defer { server.stop() }
            let registration = try AuthenticationBrowserRegistry(environment: environment).register(
                name: "In-process", executablePath: "/bin/false", capabilities: AuthenticationBrowserCapabilities())
            let presentation = try await AuthenticationBrowser(registration: registration, environment: environment)
                .present(
                    BrowserRequest(
                        url: request.url, callback: .customScheme("com.example.app"),
                        additionalHeaderFields: ["Cookie": "session=stolen"]))
            var events = presentation.events.makeAsyncIterator()
            let event = await events.next()
            #expect(event?.description.contains("refused the request") == true, "\(String(describing: event))")
            #expect(event?.description.contains("Cookie") == true)
            #expect(await begun.next(within: .milliseconds(200)) == nil, "the handler never saw it")
            await presentation.dismiss()
        }

        /// `webauth browser register|status|unregister`, run as a process on a temporary desktop.
        @Test func theCommandRegistersShowsAndRemoves() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let webauth = RegisteredDesktop.webauthPath
            let none = try await desktop.run(webauth, ["browser", "status"])
            #expect(none.status == 1)
            #expect(none.standardOutput.contains("No web-authentication browser is registered"))

            let registered = try await desktop.run(
                webauth, ["browser", "register", "/bin/true", "--name", "Example", "--ephemeral"])
            #expect(registered.status == 0, "\(registered.standardError)")
            let status = try await desktop.run(webauth, ["browser", "status", "--json"])
            #expect(status.status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any]
            #expect(object?["name"] as? String == "Example")
            #expect(object?["program"] as? String == "/bin/true")
            #expect(object?["EphemeralBrowserSessionIsSupported"] as? Bool == true)
            #expect(object?["CallbackURLMatchingIsSupported"] as? Bool == false)

            let invalid = try await desktop.run(webauth, ["browser", "register", "relative/program"])
            #expect(invalid.status == 7)
            #expect(invalid.standardError.contains("must be absolute"))

            let removed = try await desktop.run(webauth, ["browser", "unregister"])
            #expect(removed.status == 0)
            #expect(try await desktop.run(webauth, ["browser", "status"]).status == 1)
        }

        /// A session and a program answering in this process: the session's own rules apply to
        /// what the program does.
        struct InProcessBrowser {
            let desktop: TemporaryDesktop
            let server: AuthenticationBrowserServer
            let begun = Mailbox<AuthenticationBrowserConnection>()
            let cancelled = Mailbox<UUID>()
            let browser: AuthenticationBrowser

            init() throws {
                desktop = try TemporaryDesktop()
                let environment = DesktopEnvironment(variables: desktop.variables)
                let (begun, cancelled) = (begun, cancelled)
                server = try AuthenticationBrowserServer.start(
                    environment: environment,
                    handler: .init(begin: { begun.put($0) }, cancel: { cancelled.put($0.request.uuid) }))
                let registration = try AuthenticationBrowserRegistry(environment: environment).register(
                    name: "In-process", executablePath: "/bin/false", capabilities: AuthenticationBrowserCapabilities())
                browser = AuthenticationBrowser(registration: registration, environment: environment)
            }

            func session() -> WebAuthSession {
                WebAuthSession(
                    url: URL(string: "https://id.example.com/authorize?state=s")!,
                    callback: .customScheme("com.example.app"),
                    environment: SessionEnvironment(browser: browser, receivers: []))
            }

            func remove() {
                server.stop()
                desktop.remove()
            }
        }

        @Test func theSessionsTimeoutReachesTheProgramsCancel() async throws {
            let setup = try InProcessBrowser()
            defer { setup.remove() }
            let session = setup.session()
            session.timeout = .milliseconds(300)
            let result = Task { try await session.authenticate() }
            let connection = try #require(await setup.begun.next())
            let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
            #expect(error?.code == .timedOut)
            #expect(await setup.cancelled.next() == connection.request.uuid)
            #expect(!connection.complete(withCallbackURL: URL(string: "com.example.app:/late")!), "too late")
        }

        @Test func anAnswerTheSessionDoesNotTakeEndsItInsteadOfLeavingItWaiting() async throws {
            let setup = try InProcessBrowser()
            defer { setup.remove() }
            let session = setup.session()
            session.acceptsCallback = { $0.query?.contains("state=s") == true }
            let result = Task { try await session.authenticate() }
            let connection = try #require(await setup.begun.next())
            #expect(connection.complete(withCallbackURL: URL(string: "com.example.app:/done?state=forged")!))
            let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
            #expect(error?.code == .browserLaunchFailed)
            #expect(error?.message.contains("did not accept") == true)
            #expect(error.map { !"\($0)".contains("forged") } == true, "no callback parameter in the error")
        }

        @Test func theProgramsCanceledLoginIsThePersonsCancellation() async throws {
            let setup = try InProcessBrowser()
            defer { setup.remove() }
            let result = Task { try await setup.session().authenticate() }
            let connection = try #require(await setup.begun.next())
            #expect(connection.cancel(code: 1, message: "closed"))
            let error = await #expect(throws: WebAuthenticationSessionError.self) { try await result.value }
            #expect(error?.code == .canceledLogin)
            #expect(error?.cancellationReason == .user)
            #expect(
                await setup.cancelled.next(within: .milliseconds(300)) == nil, "an answered request is not cancelled")
        }

        @Test func aProgramThatCannotStartFailsFast() async throws {
            let desktop = try TemporaryDesktop()
            defer { desktop.remove() }
            let environment = DesktopEnvironment(variables: desktop.variables)
            let registration = try AuthenticationBrowserRegistry(environment: environment).register(
                name: "Gone", executablePath: "/bin/false", capabilities: AuthenticationBrowserCapabilities())
            let browser = AuthenticationBrowser(registration: registration, environment: environment)
            let error = await #expect(throws: WebAuthenticationSessionError.self) {
                _ = try await browser.present(
                    BrowserRequest(url: request.url, callback: .customScheme("com.example.app")))
            }
            #expect(error?.code == .browserLaunchFailed)
            #expect(error?.message.contains("exited before it listened") == true)
        }
    }

    /// Values handed from the server's threads to the test.
    final class Mailbox<Value: Sendable>: Sendable {
        private let stream: AsyncStream<Value>
        private let continuation: AsyncStream<Value>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream(of: Value.self) }

        func put(_ value: Value) { continuation.yield(value) }

        func next(within limit: Duration = .seconds(30)) async -> Value? {
            await firstElement(of: stream, within: limit)
        }
    }
#endif
