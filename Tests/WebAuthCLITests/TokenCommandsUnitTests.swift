// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import HTTPTypes
import Logging
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite("webauth token commands: decisions, parsing and statuses")
struct TokenCommandsUnitTests {
    // MARK: Output

    @Test func jsonOutputEscapesWhatCouldSteerATerminalAndKeepsTheValue() throws {
        let hostile = "sub\u{1B}]0;t\u{07}\u{7F}\u{9B}2J\u{202E}\u{2028}\u{200B}\u{E0001}ok José"
        let data = try JSONSerialization.data(withJSONObject: ["subject": hostile], options: [.sortedKeys])
        let safe = CommandOutput.terminalSafe(json: String(decoding: data, as: UTF8.self))
        let steering = safe.unicodeScalars.filter {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
                || [0x200B, 0x202E, 0x2028, 0xE0001].contains($0.value)
        }
        #expect(steering.isEmpty, "raw: \(steering.map { String($0.value, radix: 16) })")
        #expect(safe.contains(#"\u202e"#) && safe.contains(#"\udb40\udc01"#))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(safe.utf8)) as? [String: String])
        #expect(parsed["subject"] == hostile, "the value is exactly the provider's")
    }

    /// Every line `TerminalOutput` writes — lines, notes, successes, errors and their fixes, a
    /// status line, an emphasized code — goes through UntrustedText; only its own styles remain.
    @Test func terminalOutputShowsOutsideTextClean() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let hostile = "N\u{1B}]52;c;aGk=\u{07}\u{202E}\u{2028}\u{9B}"
        let terminal = TerminalOutput(descriptor: ends[1], environment: ["TERM": "xterm"])
        terminal.line("name " + hostile)
        terminal.line("code ", emphasizing: hostile)
        terminal.note("email " + hostile)
        terminal.success("Signed in as " + hostile)
        terminal.error("refused " + hostile, fix: "fix " + hostile)
        terminal.startStatus("waiting " + hostile).stop()
        close(ends[1])
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = read(ends[0], &bytes, bytes.count)
        let written = String(decoding: bytes[..<max(count, 0)], as: UTF8.self)
        #expect(written.split(separator: "\n").count == 7, "\(written)")
        #expect(written.components(separatedBy: "N?]52;c;aGk=????").count == 8, "\(written)")
        #expect(
            !written.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value >= 0x7F && $0.value <= 0x9F }
        )
        #expect(!written.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{2028}" })
    }

    @Test func logLinesCannotSteerTheTerminal() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0, descriptor: ends[1]) })
        logger.logLevel = .debug
        logger.debug("answered \u{1B}]0;t\u{07}", metadata: ["value": "x\u{202E}y\u{2028}z"])
        close(ends[1])
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(ends[0], &bytes, bytes.count)
        let line = String(decoding: bytes[..<max(count, 0)], as: UTF8.self)
        #expect(line.hasSuffix(" debug webauth : value=x?y?z answered ?]0;t?\n"), "\(line)")
        #expect(!line.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" || $0 == "\u{2028}" })
    }

    @Test func anExpiryNoDateCanTrap() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(EntryDescription.expiry(Date(timeIntervalSince1970: 1e300), now: now).hasPrefix("expires "))
        #expect(EntryDescription.expiry(Date(timeIntervalSince1970: -1e300), now: now).hasPrefix("expired"))
        #expect(EntryDescription.expiry(Date(timeIntervalSince1970: .nan), now: now) == "no expiry given")
        #expect(EntryDescription.expiry(now.addingTimeInterval(90.4), now: now).contains("(in 1 min)"))
    }

    // MARK: How login signs in

    @Test func flagsDecideFirstThenTheBrowserSelectionThenTheProvider() {
        typealias Situation = SignInPlan.Situation
        #expect(SignInPlan.choose(Situation(deviceRequested: true, opensBrowser: true)).method == .device)
        #expect(SignInPlan.choose(Situation(noBrowserRequested: true, opensBrowser: false)).method == .pastedRedirect)
        #expect(SignInPlan.choose(Situation(opensBrowser: true)) == SignInPlan(method: .browser))

        let headless = Situation(opensBrowser: false)
        #expect(SignInPlan.needsProviderMetadata(headless))
        #expect(!SignInPlan.needsProviderMetadata(Situation(opensBrowser: true)))
        #expect(!SignInPlan.needsProviderMetadata(Situation(deviceRequested: true, opensBrowser: false)))
        var offered = headless
        offered.providerOffersDevice = true
        let device = SignInPlan.choose(offered)
        #expect(device.method == .device)
        #expect(device.reason?.contains("device flow") == true)
        offered.providerOffersDevice = false
        let pasted = SignInPlan.choose(offered)
        #expect(pasted.method == .pastedRedirect)
        #expect(pasted.reason?.contains("no device flow") == true)
    }

    @Test func aClientSigningInAsItselfNeedsNoBrowserAndNoProviderLookup() {
        let machine = SignInPlan.Situation(clientCredentials: true, opensBrowser: false)
        #expect(SignInPlan.choose(machine) == SignInPlan(method: .clientCredentials))
        #expect(!SignInPlan.needsProviderMetadata(machine))
    }

    // MARK: When token cannot refresh

    @Test func storeErrorsAboutTheProfileReadAsTheCommandsOwnFailures() {
        let notSignedIn = CommandFailure.from(
            TokenStoreError(code: .notSignedIn, message: "x"), profile: "work", action: "refresh")
        #expect(notSignedIn.status == ExitStatus.notSignedIn)
        #expect(notSignedIn.code == "notSignedIn")
        for code in [TokenStoreError.Code.noRefreshToken, .noConfiguration] {
            let failure = CommandFailure.from(TokenStoreError(code: code, message: "x"), profile: "work", action: "")
            #expect(failure.status == ExitStatus.notSignedIn, "\(code)")
            #expect(failure.code == code.rawValue)
            #expect(failure.description.contains("webauth login --profile work"), "\(failure)")
        }
        let lock = CommandFailure.from(TokenStoreError(code: .lockTimeout, message: "x"), profile: "work", action: "")
        #expect(lock.status == ExitStatus.tokenStoreFailed)
    }

    @Test func onlyARefusalSaysRefusedAndItsStatusIsTheTablesNine() {
        let codes: [OAuthServerError.Code] = [
            .invalidGrant, .accessDenied, .invalidClient, .invalidScope, .invalidTarget, .serverError,
            .temporarilyUnavailable, .invalidRequest, .unsupportedGrantType,
        ]
        for code in codes {
            let error = OAuthError(
                code: .server, message: "x", serverError: OAuthServerError(code: code, endpoint: .token))
            let failure = CommandFailure.from(error, profile: "default", action: "token exchange")
            #expect(
                failure.message.contains("refused") == (failure.status == ExitStatus.providerRefused),
                "\(code): \(failure.message) with status \(failure.status)")
        }
        let unsupported = CommandFailure.from(
            OAuthError(
                code: .server, message: "x",
                serverError: OAuthServerError(code: .unsupportedGrantType, endpoint: .token)),
            profile: "default", action: "token exchange")
        #expect(unsupported.status == ExitStatus.providerError)
        #expect(unsupported.message == "the provider does not offer the token exchange (unsupported_grant_type)")
    }

    @Test(arguments: [
        OAuthServerError.Code.accessDenied, .consentRequired, .interactionRequired, .loginRequired,
    ])
    func aRefusalInTheBrowserIsThePersonsAndShowsTheProvidersCode(_ code: OAuthServerError.Code) {
        let error = OAuthError(
            code: .server, message: "x",
            serverError: OAuthServerError(code: code, rawDescription: "the person said no", endpoint: .authorization))
        let failure = CommandFailure.from(error, profile: "default", action: "sign-in")
        #expect(failure.status == ExitStatus.cancelledByUser, "\(code)")
        #expect(failure.code == code.rawValue)
        #expect(failure.message == "the sign-in was refused in the browser (\(code.rawValue)): the person said no")
        // The same code from the token endpoint is the provider's refusal.
        let atToken = OAuthError(
            code: .server, message: "x", serverError: OAuthServerError(code: code, endpoint: .token))
        #expect(ExitStatus.status(for: atToken) == ExitStatus.providerRefused)
    }

    @Test func invalidClientUnderPrivateKeyJWTPointsAtTheKeyNotASecret() {
        let error = OAuthError(
            code: .server, message: "x", serverError: OAuthServerError(code: .invalidClient, endpoint: .token))
        let keyed = CommandFailure.from(
            error, profile: "default", action: "sign-in", clientAuthentication: .privateKeyJWT)
        #expect(keyed.fix?.contains("check the client key") == true, "\(keyed.fix ?? "")")
        #expect(keyed.fix?.contains("private_key_jwt") == true)
        #expect(keyed.fix?.contains("secret") == false)
        let secret = CommandFailure.from(error, profile: "default", action: "sign-in")
        #expect(secret.fix?.hasPrefix("check the client ID and secret") == true)
    }

    @Test func aRegisteredSecretWhoseMethodIsLeftOpenGoesByPostWhereTheProviderListsIt() {
        #expect(
            LoginRegistration.secretMethod(supported: ["client_secret_basic", "client_secret_post"])
                == .clientSecretPost)
        #expect(LoginRegistration.secretMethod(supported: ["client_secret_post"]) == .clientSecretPost)
        #expect(LoginRegistration.secretMethod(supported: ["client_secret_basic"]) == nil)
        #expect(LoginRegistration.secretMethod(supported: nil) == nil)
    }

    @Test func anUnverifiedInvalidScopePointsAtTheScopeAndKeepsTheRefusalsStatus() {
        let error = OAuthError(
            code: .issuerMissing, message: "no iss; the provider answered invalid_scope (not confirmed)",
            serverError: OAuthServerError(code: .invalidScope, endpoint: .authorization))
        let failure = CommandFailure.from(error, profile: "default", action: "sign-in")
        #expect(failure.status == ExitStatus.invalidInput)
        #expect(failure.message == error.message)
        #expect(failure.fix?.hasPrefix("check the --scope values: this provider may not allow one of them") == true)
        let bare = CommandFailure.from(
            OAuthError(code: .issuerMissing, message: "no iss"), profile: "default", action: "sign-in")
        #expect(bare.fix == nil)
    }

    // MARK: Exit statuses

    @Test func oauthErrorsMapToStableStatuses() {
        func server(_ code: OAuthServerError.Code) -> OAuthError {
            OAuthError(code: .server, message: "x", serverError: OAuthServerError(code: code, endpoint: .token))
        }
        let cases: [(OAuthError, Int32)] = [
            (server(.invalidGrant), ExitStatus.providerRefused),
            (server(.accessDenied), ExitStatus.providerRefused),
            (server(.invalidClient), ExitStatus.providerRefused),
            (server(.serverError), ExitStatus.providerError),
            (OAuthError(code: .transportFailed, message: "x"), ExitStatus.networkFailed),
            (OAuthError(code: .timedOut, message: "x"), ExitStatus.networkFailed),
            (OAuthError(code: .invalidMetadata, message: "x"), ExitStatus.providerError),
            (OAuthError(code: .invalidIDToken, message: "x"), ExitStatus.providerError),
            (OAuthError(code: .stateMismatch, message: "x"), ExitStatus.invalidInput),
            (OAuthError(code: .invalidConfiguration, message: "x"), ExitStatus.usage),
            (OAuthError(code: .noRefreshToken, message: "x"), ExitStatus.notSignedIn),
            (OAuthError(code: .deviceCodeExpired, message: "x"), ExitStatus.timedOut),
            (
                OAuthError(code: .session, message: "x", sessionError: .cancelled(.user)),
                ExitStatus.cancelledByUser
            ),
        ]
        for (error, status) in cases { #expect(ExitStatus.status(for: error) == status, "\(error.code)") }
        #expect(
            ExitStatus.status(for: TokenStoreError(code: .lockTimeout, message: "x")) == ExitStatus.tokenStoreFailed)
        #expect(ExitStatus.status(for: TokenStoreError(code: .invalidProfileName, message: "x")) == ExitStatus.usage)

        let refused = CommandFailure.from(server(.invalidGrant), profile: "default", action: "refresh")
        #expect(refused.message == "the provider refused the refresh token (invalid_grant)")
        #expect(refused.fix == "sign in again with `webauth login …`")
    }

    @Test func theHelpTableAndTheCommandLineGuideListTheSameStatuses() throws {
        let statuses: [Int32] = [
            ExitStatus.success, ExitStatus.failure, ExitStatus.cancelledByUser, ExitStatus.timedOut,
            ExitStatus.noBrowser, ExitStatus.browserLaunchFailed, ExitStatus.listenerFailed, ExitStatus.invalidInput,
            ExitStatus.notSignedIn, ExitStatus.providerRefused, ExitStatus.providerError, ExitStatus.networkFailed,
            ExitStatus.tokenStoreFailed, ExitStatus.revocationFailed, ExitStatus.endSessionFailed,
            ExitStatus.httpRedirection,
            ExitStatus.httpClientError, ExitStatus.httpServerError, ExitStatus.usage,
        ]
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../Sources/WebAuth/WebAuth.docc/CommandLineGuide.md"), encoding: .utf8)
        for status in statuses {
            #expect(ExitStatus.helpText.contains("\n  \(status) "), "help lacks \(status)")
            #expect(guide.contains("\n| \(status) |"), "the command-line guide lacks \(status)")
        }
        #expect(Set(statuses).count == statuses.count, "each status is distinct")
        #expect(guide.contains("\n| 130 / 143 |"))
    }

    @Test func theHTTPStatusClassGivesRequestsExitStatus() {
        #expect([200, 204, 299].map(ExitStatus.status(forHTTPStatus:)) == [0, 0, 0])
        #expect(
            [100, 301, 304, 399].map(ExitStatus.status(forHTTPStatus:)).allSatisfy { $0 == ExitStatus.httpRedirection })
        #expect(
            [400, 401, 404, 499].map(ExitStatus.status(forHTTPStatus:)).allSatisfy { $0 == ExitStatus.httpClientError })
        #expect([500, 503, 599].map(ExitStatus.status(forHTTPStatus:)).allSatisfy { $0 == ExitStatus.httpServerError })
        #expect(ExitStatus.status(for: OAuthError(code: .redirectRefused, message: "x")) == ExitStatus.invalidInput)
    }

    @Test func requestParsesCurlsOptions() throws {
        let parsed = try WebAuthCommand.parseAsRoot([
            "request", "-X", "put", "-H", "Accept: text/plain", "-H", "X-Two:  2 ", "-d", "-", "-i",
            "https://api.example/items",
        ])
        let request = try #require(parsed as? RequestCommand)
        #expect(request.method == "put")
        #expect(request.data == "-")
        #expect(request.include)
        #expect(try request.headerFields().map { "\($0.name)=\($0.value)" } == ["Accept=text/plain", "X-Two=2"])
        for bad in [["-H", "no colon"], ["-H", ": empty name"], ["-H", "Bad Name: x"], ["-X", "GE T"]] {
            #expect(throws: (any Error).self, "\(bad)") {
                try WebAuthCommand.parseAsRoot(["request"] + bad + ["https://api.example/"])
            }
        }
        #expect(throws: (any Error).self) { try WebAuthCommand.parseAsRoot(["request", "http://api.example/"]) }
        #expect(throws: (any Error).self) { try WebAuthCommand.parseAsRoot(["request", "/relative"]) }
    }

    // MARK: Parsing

    @Test func loginNeedsOneProviderAndAClient() throws {
        #expect(throws: (any Error).self) { try WebAuthCommand.parseAsRoot(["login", "--client-id", "x"]) }
        #expect(throws: (any Error).self) {
            try WebAuthCommand.parseAsRoot([
                "login", "--issuer", "https://a.example", "--preset", "github", "--client-id", "x",
            ])
        }
        #expect(throws: (any Error).self) {
            try WebAuthCommand.parseAsRoot(["login", "--issuer", "https://a.example"])
        }
        #expect(throws: (any Error).self) {
            try WebAuthCommand.parseAsRoot([
                "login", "--issuer", "https://a.example", "--client-id", "x", "--device", "--no-browser",
            ])
        }
        #expect(throws: (any Error).self) {
            try WebAuthCommand.parseAsRoot([
                "login", "--issuer", "https://a.example", "--client-id", "x", "--store", "cloud",
            ])
        }
        #expect(throws: (any Error).self) {
            try WebAuthCommand.parseAsRoot([
                "login", "--issuer", "https://a.example", "--client-id", "x", "--profile", ".x",
            ])
        }
        let login = try #require(
            try WebAuthCommand.parseAsRoot([
                "login", "--issuer", "https://a.example", "--client-id", "cli", "--scope", "openid email",
                "--scope", "offline_access",
            ]) as? LoginCommand)
        let configuration = try login.options.clientConfiguration(secret: "shh")
        #expect(configuration.issuer?.absoluteString == "https://a.example")
        #expect(configuration.scopes == ["openid", "email", "offline_access"])
        #expect(configuration.clientSecret == "shh")
        #expect(configuration.effectiveClientAuthentication == .clientSecretBasic)

        let preset = try #require(
            try WebAuthCommand.parseAsRoot(["login", "--preset", "github", "--client-id", "gh"]) as? LoginCommand)
        #expect(try preset.options.clientConfiguration(secret: nil).endpoints.deviceAuthorization != nil)
        let insecure = try #require(
            try WebAuthCommand.parseAsRoot(["login", "--issuer", "http://a.example", "--client-id", "x"])
                as? LoginCommand)
        #expect {
            _ = try insecure.options.clientConfiguration(secret: nil)
        } throws: { ($0 as? OAuthError)?.code == .insecureEndpoint }
    }

    @Test func aConfigFileSuppliesTheClientAndOptionsOverrideIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-login-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            #"{"issuer": "https://id.example", "clientID": "from-file", "scopes": ["openid", "profile"]}"#.utf8
        ).write(to: file)
        let fromFile = try #require(try WebAuthCommand.parseAsRoot(["login", "--config", file.path]) as? LoginCommand)
        let configuration = try fromFile.options.clientConfiguration(secret: nil)
        #expect(configuration.clientID == "from-file")
        #expect(configuration.scopes == ["openid", "profile"])
        let overridden = try #require(
            try WebAuthCommand.parseAsRoot(["login", "--config", file.path, "--client-id", "other", "--scope", "email"])
                as? LoginCommand)
        let changed = try overridden.options.clientConfiguration(secret: nil)
        #expect(changed.clientID == "other")
        #expect(changed.scopes == ["email"])
    }

    @Test func tokenOptionsAreChecked() throws {
        // Each command line parses with a sensible number of seconds, and fails with a wrong one.
        let commands: [(arguments: [String], option: String)] = [
            (["token"], "--min-validity"),
            (["login", "--issuer", "https://issuer.example", "--client-id", "c"], "--timeout"),
            (["open", "--loopback=/callback", "https://issuer.example/authorize"], "--timeout"),
            (["demo"], "--timeout"),
        ]
        for (arguments, option) in commands {
            _ = try WebAuthCommand.parseAsRoot(arguments + [option, "90"])
            for wrong in ["-1", "1e300", "nan", "inf"] {
                #expect(throws: (any Error).self, "\(option) \(wrong)") {
                    try WebAuthCommand.parseAsRoot(arguments + [option, wrong])
                }
            }
        }
        #expect(SecondsOption.duration(0.5) == .milliseconds(500))
        let token = try #require(try WebAuthCommand.parseAsRoot(["token"]) as? TokenCommand)
        #expect(token.profile == "default")
        #expect(token.minimumValidity == 60)
        #expect(token.storeOption.selection == .automatic)
    }

    // MARK: Terminal output

    @Test func colorsOnlyOnATerminalAndNeverWithNoColor() {
        #expect(TerminalOutput.colorAllowed(isTerminal: true, environment: [:]))
        #expect(!TerminalOutput.colorAllowed(isTerminal: false, environment: [:]))
        #expect(!TerminalOutput.colorAllowed(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(TerminalOutput.colorAllowed(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!TerminalOutput.colorAllowed(isTerminal: true, environment: ["TERM": "dumb"]))
    }

    /// What `TerminalOutput` wrote to `descriptor`'s other end, read until nothing more comes.
    private func drain(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var state = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&state, 1, 200) > 0 else { break }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What `descriptor` has to read right now (a redrawing status line never lets ``drain(_:)``
    /// see a quiet moment).
    private func readAvailable(_ descriptor: Int32) -> [UInt8] {
        var state = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&state, 1, 0) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        return count > 0 ? Array(buffer[..<count]) : []
    }

    @Test func onATerminalTheStatusLineSpinsAndIsClearedAfterwards() async throws {
        let pty = try PseudoTerminal()
        defer { pty.closeBoth() }
        let (primary, secondary) = (pty.primary, pty.secondary)
        let terminal = TerminalOutput(descriptor: secondary, environment: [:])
        #expect(terminal.isInteractive)
        #expect(terminal.usesColor)
        let status = terminal.startStatus("Waiting for approval")
        // The spinner turns by itself: wait until it has drawn two different frames.
        var bytes: [UInt8] = []
        var written: String { String(decoding: bytes, as: UTF8.self) }
        _ = await eventually(within: .seconds(30)) {
            bytes += readAvailable(primary)
            return TerminalOutput.frames.filter { written.contains($0) }.count >= 2
        }
        #expect(TerminalOutput.frames.filter { written.contains($0) }.count >= 2, "the spinner turned")
        #expect(written.range(of: #"Waiting for approval \([0-9]+ s\)"#, options: .regularExpression) != nil)
        terminal.line("a message while waiting")
        status.stop()
        bytes += Array(drain(primary).utf8)
        #expect(written.contains("\r\u{1B}[2Ka message while waiting"), "lines go above the status line")
        #expect(written.hasSuffix("\r\u{1B}[2K"), "stopping clears the line")

        let dumb = TerminalOutput(descriptor: secondary, environment: ["TERM": "dumb"])
        #expect(!dumb.isInteractive && !dumb.usesColor, "a dumb terminal gets plain lines")
    }

    @Test func offATerminalTheStatusIsOnePlainLine() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        let terminal = TerminalOutput(descriptor: ends[1], environment: [:])
        #expect(!terminal.isInteractive)
        #expect(!terminal.usesColor)
        let status = terminal.startStatus("Waiting for approval")
        terminal.success("done")
        status.stop()
        #expect(drain(ends[0]) == "Waiting for approval\n✔ done\n")
    }

    @Test func statusFormatsExpiryWithoutTokens() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(EntryDescription.expiry(nil, now: now) == "no expiry given")
        #expect(EntryDescription.expiry(now.addingTimeInterval(-1), now: now).hasPrefix("expired"))
        #expect(EntryDescription.expiry(now.addingTimeInterval(3599), now: now).hasSuffix("(in 59 min)"))
        #expect(EntryDescription.duration(45) == "45 s")
        #expect(EntryDescription.duration(3 * 3600 + 300) == "3 h 5 min")
        #expect(EntryDescription.duration(2 * 86400 + 4 * 3600) == "2 d 4 h")
    }
}
