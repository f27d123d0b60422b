// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthTestSupport
import WebAuthTesting

@testable import WebAuthCLI

@Suite("webauth command line: parsing and mapping")
struct CLIParsingTests {
    /// A command without a name of its own has the argument parser derive one from its type,
    /// through reflection, each time it looks — about a millisecond of every run — and the
    /// check of mistyped commands reads the same names.
    @Test func everyCommandInTheTreeNamesItself() {
        var unnamed: [String] = []
        func visit(_ command: any ParsableCommand.Type, under path: String) {
            let name = command.configuration.commandName
            if name == nil { unnamed.append(path + " " + String(describing: command)) }
            for subcommand in command.configuration.subcommands {
                visit(subcommand, under: path + " " + (name ?? "?"))
            }
        }
        visit(WebAuthCommand.self, under: "")
        #expect(unnamed.isEmpty, "commands without a commandName: \(unnamed)")
    }

    @Test func aBareLoopbackMeansTheDefaultPath() {
        #expect(
            CommandLineArguments.normalized(["open", "--loopback", "https://x"]) == [
                "open", "--loopback=/callback", "https://x",
            ])
        #expect(CommandLineArguments.normalized(["open", "--loopback=/cb"]) == ["open", "--loopback=/cb"])
        #expect(CommandLineArguments.normalized(["open", "--", "--loopback"]) == ["open", "--", "--loopback"])
    }

    @Test func theRedirectPlaceholderIsPercentEncoded() {
        let expanded = RedirectTemplate.expand(
            "https://a.example/authorize?redirect_uri={redirect_uri}&x=1",
            redirectURI: URL(string: "http://127.0.0.1:5000/callback")!)
        #expect(expanded == "https://a.example/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&x=1")
    }

    @Test func exactlyOneCallbackIsRequired() throws {
        #expect(throws: (any Error).self) { try WebAuthCommand.parseAsRoot(["open", "https://a.example/"]) }
        #expect(throws: (any Error).self) {
            try WebAuthCommand.parseAsRoot(["open", "--loopback=/cb", "--callback-scheme", "x.y", "https://a.example/"])
        }
        let badScheme = try #require(
            try WebAuthCommand.parseAsRoot(["open", "--callback-scheme", "not a scheme", "https://a.example/"])
                as? OpenCommand)
        #expect(throws: (any Error).self) { try badScheme.makeCallback() }
        let wholeURL = try #require(
            try WebAuthCommand.parseAsRoot(["open", "--callback-scheme", "com.example.app:/cb", "https://a.example/"])
                as? OpenCommand)
        #expect(throws: (any Error).self) { try wholeURL.makeCallback() }
        let scheme = try #require(
            try WebAuthCommand.parseAsRoot(["open", "--callback-scheme", "Com.Example.App", "https://a.example/"])
                as? OpenCommand)
        #expect(try scheme.makeCallback() == .customScheme("com.example.app"))
        let command = try #require(
            try WebAuthCommand.parseAsRoot(["open", "--callback-https", "example.com/oauth", "https://a.example/"])
                as? OpenCommand)
        #expect(try command.makeCallback() == .https(host: "example.com", path: "/oauth"))
    }

    @Test func versionIsTheLibrarysVersionAndTheCommitTheBuildNamed() async throws {
        let (status, stdout, stderr) = try await CLIProcess.run(["--version"])
        #expect(status == ExitStatus.success, "\(stderr)")
        #expect(stdout == BuildInformation.versionLine() + "\n")
        #expect(stdout.hasPrefix("webauth \(WebAuthVersion.current) ("))
        #expect(WebAuthVersion.current.split(separator: ".").compactMap { Int($0) }.count == 3)
        // What the build named (scripts/install and scripts/package do), or that it named none.
        let commit = try #require(
            stdout.wholeMatch(of: /webauth [0-9.]+ \((commit [0-9a-f]{7,64}(-dirty)?|unknown commit)\)\n/))
        #expect((BuildInformation.commit == nil) == commit.output.1.hasPrefix("unknown"))
    }

    @Test func theChangelogsTopEntryIsTheVersionThePackageCarries() throws {
        let changelog = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../CHANGELOG.md"), encoding: .utf8)
        let top = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && $0 != "## [Unreleased]" }
        #expect(
            top?.hasPrefix("## [\(WebAuthVersion.current)] - ") == true,
            "CHANGELOG.md's top entry is \(top ?? "missing"), the package carries \(WebAuthVersion.current)")
    }

    @Test func theVersionLineNamesTheCommitOrSaysItIsUnknown() {
        #expect(
            BuildInformation.versionLine(version: "1.2.3", commit: "288b0bf1c2d3")
                == "webauth 1.2.3 (commit 288b0bf1c2d3)")
        #expect(BuildInformation.versionLine(version: "1.2.3", commit: nil) == "webauth 1.2.3 (unknown commit)")
    }

    @Test func helpStartsWithTheUsageAndTheSubcommandsAndLeavesExitStatusesToTheirOwnPage() async throws {
        let (status, stdout, stderr) = try await CLIProcess.run(["--help"])
        #expect(status == ExitStatus.success, "\(stderr)")
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        // The abstract, a blank line, then the usage: nothing in between.
        #expect(
            lines.count > 3 && lines[0].hasPrefix("OVERVIEW: ") && lines[1].isEmpty && lines[2].hasPrefix("USAGE: "))
        #expect(stdout.contains("SUBCOMMANDS:"))
        #expect(stdout.contains("exit-status"))
        #expect(!stdout.contains("Exit status:"), "the table is not in --help")

        let (tableStatus, table, tableError) = try await CLIProcess.run(["help", "exit-status"])
        #expect(tableStatus == ExitStatus.success, "\(tableError)")
        let (printedStatus, printed, _) = try await CLIProcess.run(["exit-status"])
        #expect(printedStatus == ExitStatus.success)
        #expect(printed == ExitStatus.helpText + "\n")
        for code in [0, 1, 7, 8, 12, 13, 20, 22, 64, 130] {
            #expect(table.contains("\n  \(code) "), "webauth help exit-status lacks \(code)")
        }
        for command in ["open", "exec-credential", "git-credential"] {
            let (_, help, _) = try await CLIProcess.run([command, "--help"])
            #expect(help.contains(ExitStatus.pointer), "\(command) --help points to the table")
            #expect(!help.contains("Exit status:"), "\(command) --help does not repeat the table")
        }
    }

    @Test func errorKindsMapToTheirDocumentedStatuses() {
        let cases: [(WebAuthenticationSessionError, Int32)] = [
            (.cancelled(.user), ExitStatus.cancelledByUser),
            (.cancelled(.program), ExitStatus.interrupted),
            (.timedOut(after: .seconds(1)), ExitStatus.timedOut),
            (.noBrowserAvailable("x"), ExitStatus.noBrowser),
            (.browserCannotHonor("x"), ExitStatus.noBrowser),
            (.browserLaunchFailed("x"), ExitStatus.browserLaunchFailed),
            (.listenerFailed(port: 1, "x"), ExitStatus.listenerFailed),
            (.invalidAuthorizationURL("x"), ExitStatus.invalidInput),
            (.callbackMismatch("x"), ExitStatus.invalidInput),
            (.noCallbackReceiver("x"), ExitStatus.invalidInput),
        ]
        for (error, status) in cases { #expect(ExitStatus.status(for: error) == status, "\(error.code)") }
    }
}

@Suite("webauth open, run as a process", .serialized)
struct OpenCommandProcessTests {
    @Test(TestFixture.chromium.required)
    func signsInThroughHeadlessChromiumAndPrintsOnlyTheCallbackURL() async throws {
        try await BrowserTurns.withTurn {
            let launcher = try TestBrowsers.makeChromiumLauncherScript()
            defer { launcher.terminate() }
            try await AuthorizationPageServer.withServer { server in
                let template = server.authorizeURL.absoluteString + "?redirect_uri={redirect_uri}&state=cli-state"
                let (status, stdout, stderr) = try await CLIProcess.run(
                    ["open", "--loopback", "--timeout", "45", "--verbose", template],
                    environment: ["BROWSER": launcher.scriptPath])
                #expect(status == 0, "stderr: \(stderr)")
                let lines = stdout.split(separator: "\n")
                #expect(lines.count == 1)
                let callbackURL = try #require(URL(string: String(lines[0])))
                #expect(callbackURL.path == "/callback")
                #expect(callbackURL.query?.contains("state=cli-state") == true)
                #expect(stderr.contains("Ctrl-C cancels"))
                #expect(stderr.contains("session finished"), "the debug log is on")
                #expect(!stderr.contains("code="), "the code is not echoed to the terminal, nor logged")
            }
        }
    }

    @Test func jsonOutputAndPastedRedirectWithNoBrowser() async throws {
        try await AuthorizationPageServer.withServer { server in
            let template = server.authorizeURL.absoluteString + "?redirect_uri={redirect_uri}&state=paste"
            let path = uniqueCallbackPath("/cb")
            let process = try CLIProcess(
                ["open", "--loopback=\(path)", "--no-browser", "--json", template], keepStandardInputOpen: true)
            let stderr = try await process.waitForStandardError(containing: "paste it here")
            let port = try listeningPort(in: stderr)
            // The person's browser elsewhere ended on the redirect; they paste its address.
            let pasted = "http://127.0.0.1:\(port)\(path)?code=pasted-code&state=paste"
            process.type("https://wrong.example/cb\n")
            _ = try await process.waitForStandardError(containing: "not the callback")
            process.type(pasted + "\n")
            let status = try await process.waitForExit()
            #expect(status == 0, "stderr: \(process.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(process.standardOutput.utf8)) as? [String: String]
            #expect(object?["callback_url"] == pasted)
            #expect(object?["redirect_uri"] == "http://127.0.0.1:\(port)\(path)")
            #expect(await loopbackListenerIsGone(port: port, path: path))
        }
    }

    @Test func ctrlCCancelsReleasesThePortAndExits130() async throws {
        let path = uniqueCallbackPath()
        let process = try CLIProcess([
            "open", "--loopback=\(path)", "--no-browser", "https://auth.example.com/authorize",
        ])
        let stderr = try await process.waitForStandardError(containing: "Ctrl-C cancels")
        let port = try listeningPort(in: stderr)
        #expect(RawHTTPClient.isListening(port: port), "it listens until interrupted")
        process.send(SIGINT)
        let status = try await process.waitForExit()
        #expect(status == ExitStatus.interrupted)
        #expect(await loopbackListenerIsGone(port: port, path: path))
    }

    @Test func timesOutWithItsOwnStatusAndJSONError() async throws {
        let (status, stdout, _) = try await CLIProcess.run(
            ["open", "--loopback", "--no-browser", "--timeout", "0.3", "--json", "https://auth.example.com/a"])
        #expect(status == ExitStatus.timedOut)
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        let error = try #require(object?["error"] as? [String: Any])
        #expect(error["code"] as? String == "timedOut")
        #expect(error["cancellation_reason"] as? String == "timeout")
        #expect(error["exit_status"] as? Int == Int(ExitStatus.timedOut))
    }

    @Test func aBusyPortIsNamed() async throws {
        let holder = try CLIProcess(["open", "--loopback", "--no-browser", "https://auth.example.com/a"])
        let port = try listeningPort(in: try await holder.waitForStandardError(containing: "Ctrl-C cancels"))
        defer { holder.send(SIGTERM) }
        let (status, _, stderr) = try await CLIProcess.run(
            ["open", "--loopback", "--loopback-port", "\(port)", "--no-browser", "https://auth.example.com/a"])
        #expect(status == ExitStatus.listenerFailed)
        #expect(stderr.contains("port \(port)"))
        holder.send(SIGTERM)
        #expect(try await holder.waitForExit() == ExitStatus.terminated)
    }

    @Test func refusesURLsThatMayNotBeOpenedAndBadUsage() async throws {
        let refused = try await CLIProcess.run(["open", "--loopback", "--no-browser", "file:///etc/passwd"])
        #expect(refused.status == ExitStatus.invalidInput)
        #expect(refused.stderr.contains("only https URLs"))
        let usage = try await CLIProcess.run(["open", "https://auth.example.com/a"])
        #expect(usage.status == ExitStatus.usage)
        let customScheme = try await CLIProcess.run(
            ["open", "--callback-scheme", "com.example.app", "--timeout", "1", "https://auth.example.com/a"],
            environment: ["BROWSER": "/bin/true"])
        #expect(customScheme.status == ExitStatus.invalidInput)
        #expect(customScheme.stderr.contains("register the scheme"))
    }

    @Test func theDemoSignsInAndOutWithTheScriptedBrowser() async throws {
        let (status, stdout, stderr) = try await CLIProcess.run(["demo", "--no-browser"])
        #expect(status == 0, "stderr: \(stderr)")
        #expect(stdout == "Signed in as demo-user and signed out again; every check passed.\n")
        for step in [
            "Started an OpenID Connect provider", "Read its discovery document", "PKCE verifier",
            "filled in the login form as demo", "approved on the consent page", "came back to the loopback listener",
            "state is ours and its iss names this provider", "validated the ID token: RS256 signature",
            "UserInfo: Demo User", "Stored the tokens in", "mode 0600", "rotated the refresh token",
            "the provider no longer accepts them",
            "Opening the sign-in page in the built-in scripted browser, which signs in as demo",
        ] {
            #expect(stderr.contains(step), "missing step: \(step)")
        }
        #expect(!stderr.contains("with scripted"), "the scripted browser is named as a browser")
        // Nothing secret on the terminal: no query values, no token-looking strings.
        #expect(stderr.range(of: "code=[^…]", options: .regularExpression) == nil)
        #expect(stderr.range(of: "eyJ[A-Za-z0-9_-]{10,}", options: .regularExpression) == nil, "no JWT is shown")
    }

    @Test func theDemoReportsItsStepsAsJSON() async throws {
        let (status, stdout, stderr) = try await CLIProcess.run(["demo", "--no-browser", "--json"])
        #expect(status == 0, "stderr: \(stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        #expect(object["signed_in"] as? Bool == true)
        #expect(object["subject"] as? String == "demo-user")
        #expect(object["browser"] as? String == "scripted")
        let steps = try #require(object["steps"] as? [[String: Any]])
        #expect(
            steps.compactMap { $0["step"] as? String } == [
                "provider", "discovery", "request", "browser", "callback", "token exchange", "userinfo", "storage",
                "refresh", "revocation",
            ])
        #expect(steps.allSatisfy { ($0["milliseconds"] as? Double).map { $0 >= 0 } == true })
    }

    @Test func theSignInProgramCarriesNoProviderCodeAndTheDemoProgramDoes() async throws {
        let directory = CLIProcess.executable.deletingLastPathComponent()
        // Swift symbols name their module, mangled as its length and name.
        let provider = "23WebAuthEmbeddedProvider"
        let full = try await Self.symbols(of: directory.appendingPathComponent("webauth-full").path)
        let demo = try await Self.symbols(of: directory.appendingPathComponent("webauth-demo").path)
        #expect(!full.isEmpty && !demo.isEmpty)
        #expect(full.filter { $0.contains(provider) }.isEmpty, "webauth-full links the embedded provider")
        #expect(demo.contains { $0.contains(provider) }, "the check would not see the provider's symbols")
    }

    @Test func theDemoWithoutItsProgramSaysWhereItIsMissing() async throws {
        // Only the sign-in program, as a hand-made installation might have it.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let full = directory.appendingPathComponent("webauth-full").path
        try FileManager.default.copyItem(
            atPath: CLIProcess.executable.deletingLastPathComponent().appendingPathComponent("webauth-full").path,
            toPath: full)
        let process = try CLIProcess(["demo", "--no-browser"], executable: full)
        let status = try await process.waitForExit()
        #expect(status == ExitStatus.failure)
        #expect(
            process.standardError
                == "error: the demo runs in webauth-demo, which is not in \(directory.path): `swift build` builds it, "
                + "and the packages install it beside webauth\n")
    }

    @Test func theDemoRunsInItsProgramWithoutStartingTheFullOne() async throws {
        // `webauth` and `webauth-demo` alone, linked (not copied, not symbolic links: the
        // programs find each other beside the path they were run from).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let built = CLIProcess.executable.deletingLastPathComponent()
        for name in ["webauth", "webauth-demo"] {
            try FileManager.default.linkItem(
                at: built.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let process = try CLIProcess(
            ["demo", "--no-browser", "--json"], executable: directory.appendingPathComponent("webauth").path)
        let status = try await process.waitForExit()
        #expect(status == 0, "stderr: \(process.standardError)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(process.standardOutput.utf8)) as? [String: Any])
        #expect(object["subject"] as? String == "demo-user")
    }

    /// The symbols `nm` lists in `executable`, one per line.
    private static func symbols(of executable: String) async throws -> [Substring] {
        let nm = try CLIProcess([executable], executable: "/usr/bin/nm")
        let status = try await nm.waitForExit()
        try #require(status == 0, "nm: \(nm.standardError)")
        return nm.standardOutput.split(separator: "\n")
    }

    @Test(TestFixture.chromium.required)
    func theDemoOpensThePersonsBrowserAndCtrlCEndsIt() async throws {
        try await BrowserTurns.withTurn {
            // A real (headless) Chromium as the person's browser shows the login page; nobody fills it
            // in here, so the test interrupts, as a person would, and checks the demo ends cleanly.
            let launcher = try TestBrowsers.makeChromiumLauncherScript()
            defer { launcher.terminate() }
            let process = try CLIProcess(["demo", "--timeout", "120"], environment: ["BROWSER": launcher.scriptPath])
            let stderr = try await process.waitForStandardError(containing: "Ctrl-C cancels", timeout: .seconds(60))
            #expect(stderr.contains("sign in as demo, password demo-password, then approve"))
            #expect(stderr.contains("Opening the sign-in page with chromium-headless"))
            let port = try listeningPort(in: stderr)
            process.send(SIGINT)
            let status = try await process.waitForExit()
            #expect(status == ExitStatus.interrupted, "stderr: \(process.standardError)")
            #expect(await loopbackListenerIsGone(port: port, path: "/callback"))
        }
    }
}
