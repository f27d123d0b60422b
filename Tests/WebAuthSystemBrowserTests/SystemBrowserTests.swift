// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthPlatform
import WebAuthTestSupport

@testable import WebAuthSystemBrowser

@Suite("$BROWSER commands")
struct BrowserCommandTests {
    @Test func parsesTheColonSeparatedListIntoWords() {
        let commands = BrowserCommand.parseBrowserVariable("firefox --new-window %s::xdg-open")
        #expect(
            commands == [
                BrowserCommand(executable: "firefox", arguments: ["--new-window", "%s"]),
                BrowserCommand(executable: "xdg-open"),
            ])
    }

    @Test func substitutesOrAppendsTheURLAsOneArgument() {
        let url = "https://example.com/a?b=1&c=%20"
        #expect(BrowserCommand(executable: "x").arguments(opening: url) == [url])
        #expect(
            BrowserCommand(executable: "x", arguments: ["--url=%s", "100%%"]).arguments(opening: url) == [
                "--url=\(url)", "100%",
            ])
        #expect(BrowserCommand(executable: "x", arguments: ["%d"]).arguments(opening: url) == ["%d", url])
    }

    @Test func resolvesExecutablesOnThePath() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.writeScript(named: "fake-browser", body: "exit 0")
        #expect(BrowserCommand(executable: "fake-browser").resolvedExecutable(searchPath: directory.path) == script)
        #expect(BrowserCommand(executable: script).resolvedExecutable(searchPath: nil) == script)
        #expect(BrowserCommand(executable: "fake-browser").resolvedExecutable(searchPath: "/nonexistent") == nil)
        let plain = directory.url.appendingPathComponent("not-executable").path
        _ = FileManager.default.createFile(
            atPath: plain, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600])
        #expect(BrowserCommand(executable: plain).resolvedExecutable(searchPath: nil) == nil)
    }
}

@Suite("Display detection")
struct DisplayEnvironmentTests {
    @Test func displayDetection() {
        #if os(Linux)
            #expect(DisplayEnvironment(environment: ["DISPLAY": ":0"]).hasDisplay)
            #expect(DisplayEnvironment(environment: ["WAYLAND_DISPLAY": "wayland-0"]).hasDisplay)
            #expect(!DisplayEnvironment(environment: ["DISPLAY": ""]).hasDisplay)
            #expect(!DisplayEnvironment(environment: ["SSH_CONNECTION": "1 2 3 4"]).hasDisplay)
        #endif
        #expect(DisplayEnvironment(environment: ["SSH_TTY": "/dev/pts/1"]).isRemoteSession)
    }
}

@Suite("Launching the system browser")
struct SystemBrowserLaunchTests {
    private func request(_ url: String) -> BrowserRequest {
        BrowserRequest(url: URL(string: url)!, callback: .loopback())
    }

    /// A browser script that records its arguments, one per line, then exits with `status`.
    private func recordingBrowser(in directory: TemporaryDirectory, status: Int = 0) throws -> (SystemBrowser, URL) {
        let record = directory.url.appendingPathComponent("argv")
        let script = try directory.writeScript(
            named: "recording-browser",
            body: "for argument in \"$@\"; do printf '%s\\n' \"$argument\"; done > '\(record.path)'\nexit \(status)")
        return (SystemBrowser(command: BrowserCommand(executable: script)), record)
    }

    /// The browser's record once it is whole (the script ends it with a newline).
    private func waitForFile(_ url: URL) async throws -> String {
        try await WebAuthTestSupport.waitForFile(url.path, timeout: .seconds(10)) { $0.hasSuffix("\n") }
    }

    @Test func passesTheURLVerbatimAsOneArgumentWithoutAShell() async throws {
        let directory = try TemporaryDirectory()
        let (browser, record) = try recordingBrowser(in: directory)
        let marker = directory.url.appendingPathComponent("pwned").path
        let url = "https://example.com/authorize?x=$(touch%20\(marker))&y=;touch%20\(marker);&z='id'"
        let presentation = try await browser.present(request(url))
        let argv = try await waitForFile(record)
        #expect(argv == URL(string: url)!.absoluteString + "\n")
        #expect(argv.contains("$(touch"))
        #expect(!FileManager.default.fileExists(atPath: marker))
        await presentation.dismiss()
    }

    @Test(arguments: ["file:///etc/passwd", "javascript:alert(1)", "http://example.com/", "myapp://cb"])
    func refusesURLsThatMayNotBeOpened(_ url: String) async throws {
        let directory = try TemporaryDirectory()
        let (browser, record) = try recordingBrowser(in: directory)
        let error = await #expect(throws: WebAuthenticationSessionError.self) {
            _ = try await browser.present(request(url))
        }
        #expect(error?.code == .invalidAuthorizationURL)
        // Nothing was started: a browser started for it would still be running now (its command
        // line naming the script), or would have ended, and so have written its record first.
        let script = record.deletingLastPathComponent().appendingPathComponent("recording-browser").path
        #expect(!Self.aProcessIsRunning(withArgument: script))
        #expect(!FileManager.default.fileExists(atPath: record.path))
    }

    /// Whether a live process has `argument` on its command line (zombies have none).
    private static func aProcessIsRunning(withArgument argument: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.contains { pid in
            guard let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return commandLine.split(separator: 0).contains { Array($0) == Array(argument.utf8) }
        }
    }

    @Test func explorerExeExitingWithOneAfterOpeningThePageIsNoFailure() async throws {
        let directory = try TemporaryDirectory()
        let record = directory.url.appendingPathComponent("argv")
        _ = try directory.writeScript(
            named: "explorer.exe",
            body: "for argument in \"$@\"; do printf '%s\\n' \"$argument\"; done > '\(record.path)'\nexit 1")
        let windows = SystemBrowser.windowsDefault(environment: ["PATH": directory.url.path])
        #expect(windows.name == "explorer.exe")
        let browser = SystemBrowser(
            commands: windows.commands, searchPath: directory.url.path, launchCheckInterval: .seconds(5))
        let url = "https://example.com/authorize?a=1&b=2"
        let presentation = try await browser.present(request(url))
        #expect(try await waitForFile(record) == url + "\n", "the URL whole, as one argument")
        var events: [BrowserEvent] = []
        for await event in presentation.events { events.append(event) }
        #expect(events.isEmpty, "no failure reported: \(events)")
    }

    @Test func aLauncherThatFailsQuicklyIsReported() async throws {
        let directory = try TemporaryDirectory()
        let (browser, _) = try recordingBrowser(in: directory, status: 3)
        let presentation = try await browser.present(request("https://example.com/"))
        var events: [BrowserEvent] = []
        for await event in presentation.events { events.append(event) }
        #expect(events.count == 1)
        #expect(events.first?.description.contains("status 3") == true)
    }

    @Test func aLauncherThatSucceedsReportsNothing() async throws {
        let directory = try TemporaryDirectory()
        let (browser, _) = try recordingBrowser(in: directory, status: 0)
        let presentation = try await browser.present(request("https://example.com/"))
        var events: [BrowserEvent] = []
        for await event in presentation.events { events.append(event) }
        #expect(events.isEmpty)
    }

    @Test func noExecutableIsNoBrowser() async {
        let browser = SystemBrowser(
            commands: [BrowserCommand(executable: "no-such-browser-here")], searchPath: "/nonexistent")
        let error = await #expect(throws: WebAuthenticationSessionError.self) {
            _ = try await browser.present(request("https://example.com/"))
        }
        #expect(error?.code == .noBrowserAvailable)
        #expect(error?.message.contains("no-such-browser-here") == true)
    }
}

@Suite("No display: the terminal presenter")
struct TerminalPresenterTests {
    @Test func printsTheURLAndOffersPastedURLs() async throws {
        let pipe = Pipe()
        let printed = Locked<[String]>([])
        let presenter = TerminalPresenter(input: pipe.fileHandleForReading.fileDescriptor) { message in
            printed.withLock { $0.append(message) }
        }
        #expect(presenter.capabilities == [.pastedCallback])
        let url = "https://auth.example.com/authorize?client_id=cli"
        let presentation = try await presenter.present(
            BrowserRequest(
                url: URL(string: url)!, callback: .loopback(),
                redirectURI: URL(string: "http://127.0.0.1:5000/callback")))
        #expect(printed.withLock { $0.first?.contains(url) } == true)
        // Pieces arrive as a terminal delivers them: in chunks, with stray whitespace and junk.
        pipe.fileHandleForWriting.write(Data("not a url\n  http://127.0.0.1:5000/call".utf8))
        pipe.fileHandleForWriting.write(Data("back?code=1  \n".utf8))
        var iterator = presentation.events.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event == .callback(URL(string: "http://127.0.0.1:5000/callback?code=1")!))
        #expect(printed.withLock { $0.contains { $0.contains("That is not a URL") } })
        await presentation.dismiss()
        #expect(await iterator.next() == nil)
    }

    @Test func overSSHALoopbackRedirectComesWithThePortForwardToRun() async throws {
        let printed = Locked<[String]>([])
        let presenter = TerminalPresenter(input: nil, sshDestination: "alice@192.0.2.7") { message in
            printed.withLock { $0.append(message) }
        }
        let cases: [(redirect: String, line: String?)] = [
            ("http://127.0.0.1:49152/callback", "ssh -N -L 49152:127.0.0.1:49152 alice@192.0.2.7"),
            ("http://[::1]:50001/cb", "ssh -N -L 50001:[::1]:50001 alice@192.0.2.7"),
            ("http://localhost:8400/cb", "ssh -N -L 8400:localhost:8400 alice@192.0.2.7"),
            // Nothing to forward: no loopback listener, or no port to name.
            ("https://app.example.com/cb", nil), ("com.example.app:/cb", nil), ("http://127.0.0.1/cb", nil),
        ]
        for (redirect, line) in cases {
            printed.withLock { $0.removeAll() }
            let presentation = try await presenter.present(
                BrowserRequest(
                    url: URL(string: "https://auth.example.com/a")!, callback: .loopback(),
                    redirectURI: URL(string: redirect)))
            await presentation.dismiss()
            let shown = printed.withLock { $0.joined() }
            if let line {
                #expect(shown.contains("\n    \(line)\n"), "\(redirect): \(shown)")
            } else {
                #expect(!shown.contains("ssh -N"), "\(redirect): \(shown)")
            }
        }
        // Not over SSH: no line.
        let local = TerminalPresenter(input: nil) { message in printed.withLock { $0.append(message) } }
        printed.withLock { $0.removeAll() }
        _ = try await local.present(
            BrowserRequest(
                url: URL(string: "https://auth.example.com/a")!, callback: .loopback(),
                redirectURI: URL(string: "http://127.0.0.1:49152/callback")))
        #expect(!printed.withLock { $0.joined() }.contains("ssh -N"))
    }

    @Test func withoutInputItOnlyPrints() async throws {
        let printed = Locked<[String]>([])
        let presenter = TerminalPresenter(input: nil) { message in printed.withLock { $0.append(message) } }
        #expect(presenter.capabilities.isEmpty)
        let presentation = try await presenter.present(
            BrowserRequest(url: URL(string: "https://example.com/a")!, callback: .loopback()))
        #expect(printed.withLock { $0.count } == 1)
        await presentation.dismiss()
    }
}
