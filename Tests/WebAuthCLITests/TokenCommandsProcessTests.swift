// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `webauth login`, `status`, `token` and `logout` run as real processes against a real OpenID
/// provider on loopback (``EmbeddedProvider``, strict as it is: discovery, device flow,
/// rotating refresh tokens that fail when reused, revocation; device authorizations approved
/// at once), each in a private home with no display.
@Suite("webauth login, token, status, logout, run as processes")
struct TokenCommandsProcessTests {
    @Test func loginStatusTokenLogoutEndToEnd() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let issuer = provider.issuer.absoluteString
            let subject = EmbeddedProvider.User.demo.subject
            // No display and no browser named: the provider offers the device flow, so login uses it.
            let login = try await sandbox.run(provider.loginArguments(["--store", "file", "--json"]))
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(login.stderr.contains("No display here: signing in with the device flow"))
            let page = provider.deviceVerificationURL.absoluteString + "?user_code="
            let shown = try #require(
                login.stderr.split(separator: "\n").first { $0.contains(page) }, "the page is shown: \(login.stderr)")
            let userCode = String(try #require(shown.components(separatedBy: page).last)).trimmingCharacters(
                in: .whitespaces)
            #expect(!userCode.isEmpty)
            #expect(login.stderr.contains("shows the code  \(userCode)"), "the user code is shown")
            #expect(login.stderr.contains("Signed in as \(subject) at \(issuer)"))
            let summary = try jsonObject(login.stdout)
            #expect(summary["subject"] as? String == subject)
            #expect(summary["issuer"] as? String == issuer)
            #expect(summary["method"] as? String == "device")
            #expect(summary["store"] as? String == "file")
            #expect(summary["has_refresh_token"] as? Bool == true)
            #expect(summary["scopes"] as? [String] == ["openid", "offline_access"])

            // The entry: 0600, with the tokens and the configuration to refresh with; the index
            // remembers the file store.
            let entry = try #require(try sandbox.storedEntry())
            #expect(sandbox.mode(of: sandbox.entryPath()) == 0o600)
            #expect(entry.configuration?.issuer?.absoluteString == issuer)
            #expect(entry.configuration?.clientID == EmbeddedProvider.cliClientID)
            #expect(entry.tokenEndpoint == provider.url(.token).absoluteString)
            #expect(provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(!containsSecret(login.stdout + login.stderr, of: entry), "login never prints a token")
            #expect(sandbox.mode(of: sandbox.indexPath) == 0o600)
            let index = try String(contentsOfFile: sandbox.indexPath, encoding: .utf8)
            #expect(index.contains(#""default":"file""#))
            #expect(!containsSecret(index, of: entry))

            let status = try await sandbox.run(["status"])
            #expect(status.status == 0, "stderr: \(status.stderr)")
            for expected in [
                "default  (file: \(sandbox.tokenDirectory))", issuer, EmbeddedProvider.cliClientID,
                subject, "openid offline_access", "expires ", "refresh token:  held",
            ] {
                #expect(status.stdout.contains(expected), "status lacks \(expected): \(status.stdout)")
            }
            #expect(!containsSecret(status.stdout + status.stderr, of: entry), "status never shows a token")
            let statusJSON = try await sandbox.run(["status", "--json"])
            let profiles = try #require(try jsonObject(statusJSON.stdout)["profiles"] as? [[String: Any]])
            #expect(profiles.count == 1)
            #expect(profiles.first?["profile"] as? String == "default")
            #expect(profiles.first?["subject"] as? String == subject)
            #expect(profiles.first?["expired"] as? Bool == false)
            #expect(profiles.first?["has_refresh_token"] as? Bool == true)
            #expect(!containsSecret(statusJSON.stdout, of: entry))

            // The cached token, with no request to the provider at all (automatic finds the
            // file store through the index).
            let requestsBefore = provider.requests.count
            let token = try await sandbox.run(["token"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            #expect(token.stdout == entry.tokens.accessToken + "\n")
            #expect(token.stderr.isEmpty)
            let tokenJSON = try jsonObject(try await sandbox.run(["token", "--store", "file", "--json"]).stdout)
            #expect(tokenJSON["access_token"] as? String == entry.tokens.accessToken)
            #expect(tokenJSON["token_type"] as? String == "Bearer")
            #expect((tokenJSON["expires_at"] as? String)?.hasSuffix("Z") == true)
            #expect(provider.requests.count == requestsBefore, "a fresh token needs no network")

            let logout = try await sandbox.run(["logout", "--json"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            let outcome = try jsonObject(logout.stdout)
            #expect(outcome["revocation"] as? String == "revoked")
            #expect(outcome["deleted"] as? Bool == true)
            let revoked = provider.requests(to: .revocation)
            #expect(revoked.map(\.tokenTypeHint) == ["refresh_token", "access_token"], "refresh token first")
            #expect(revoked.map(\.status) == [200, 200])
            #expect(!provider.isActive(refreshToken: try #require(entry.tokens.refreshToken)))
            #expect(!provider.isActive(accessToken: entry.tokens.accessToken))
            #expect(try sandbox.storedEntry() == nil)
            #expect(!(try String(contentsOfFile: sandbox.indexPath, encoding: .utf8)).contains("default"))

            let after = try await sandbox.run(["token"])
            #expect(after.status == ExitStatus.notSignedIn)
            #expect(after.stdout.isEmpty)
        }
    }

    @Test func aVerboseLoginLogsNoSecret() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            // A device code the test knows (the provider does not honour it, so this login
            // fails after polling with it): it stays out of the log.
            let deviceCode = "device-code-\(UUID().uuidString)"
            provider.forgeDeviceAuthorizationMembers(["device_code": .string(deviceCode)])
            let polled = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--verbose"]))
            #expect(polled.status != 0)
            #expect(
                provider.requests(to: .token).map(\.grantType).contains("urn:ietf:params:oauth:grant-type:device_code"),
                "it was polled")
            #expect(polled.stderr.contains("OAuth token answered"), "the debug log is on: \(polled.stderr)")
            #expect(!polled.stderr.contains(deviceCode), "the device code stays out of the log")

            provider.forgeDeviceAuthorizationMembers(nil)
            let login = try await sandbox.run(provider.loginArguments(["--device", "--store", "file", "--verbose"]))
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(login.stderr.contains("OAuth token answered"), "the debug log is on: \(login.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            #expect(!containsSecret(login.stderr, of: entry))
        }
    }

    @Test func statusOfOneProfileIgnoresAKeyringItDoesNotLiveIn() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            _ = try await sandbox.signInWithDevice(provider, profile: "home")
            try await ProfileIndex(environment: sandbox.environment).record(.file, for: "home")
            // Another profile was saved in a keyring that is not there now (no D-Bus session).
            try await ProfileIndex(environment: sandbox.environment).record(.keyring, for: "work")
            let one = try await sandbox.run(["status", "--profile", "home"])
            #expect(one.status == 0, "stderr: \(one.stderr)")
            #expect(one.stdout.contains("home"))
            let all = try await sandbox.run(["status"])
            #expect(all.status == 12, "the keyring profile cannot be read: \(all.stderr)")
        }
    }

    @Test func interruptingTheHiddenSecretPromptLeavesTheTerminalEchoing() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        // A pseudo-terminal as standard input, as a person at a terminal has.
        let pty = try PseudoTerminal()
        defer { pty.closeBoth() }
        let secondary = pty.secondary
        let errorLog = sandbox.root + "/stderr.log"
        var environment = ProcessInfo.processInfo.environment
        environment.merge(sandbox.environment) { $1 }
        let process = try Subprocess(
            executable: CLIProcess.executable.path,
            arguments: [
                "login", "--issuer", "https://issuer.example", "--client-id", "c", "--client-secret", "-", "--store",
                "file",
            ],
            environment: environment, standardInput: .descriptor(secondary), standardError: .file(errorLog))
        var settings = termios()
        _ = await eventually {
            let prompted = (try? String(contentsOfFile: errorLog, encoding: .utf8))?.contains("Client secret") == true
            return prompted && tcgetattr(secondary, &settings) == 0 && settings.c_lflag & tcflag_t(ECHO) == 0
        }
        #expect(settings.c_lflag & tcflag_t(ECHO) == 0, "echo is off while the secret is typed")
        process.send(SIGINT)
        let status = await process.exitStatus()
        #expect(Subprocess.exitCode(of: status) == nil, "ended by the signal")
        #expect(tcgetattr(secondary, &settings) == 0)
        #expect(settings.c_lflag & tcflag_t(ECHO) != 0, "echo is back on after Ctrl-C")
    }

    @Test func tokenRefreshesInsideMinValidityAndKeepsTheRotatedRefreshToken() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let first = try await sandbox.signInWithDevice(provider)
            let firstRefreshToken = try #require(first.tokens.refreshToken)

            // The token lives an hour; asking for two hours of validity forces a refresh.
            let refreshed = try await sandbox.run(["token", "--min-validity", "7200"])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let second = try #require(try sandbox.storedEntry())
            #expect(refreshed.stdout == second.tokens.accessToken + "\n")
            #expect(second.tokens.accessToken != first.tokens.accessToken)
            let secondRefreshToken = try #require(second.tokens.refreshToken)
            #expect(secondRefreshToken != firstRefreshToken, "the rotated refresh token is stored")
            #expect(provider.isActive(refreshToken: secondRefreshToken))
            #expect(!provider.isActive(refreshToken: firstRefreshToken))
            // One refresh, accepted: the provider refuses a refresh token it does not know or
            // that was used before, so the one presented was the live first one.
            #expect(provider.refreshRequests.map(\.error) == [nil])
            #expect(second.tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            #expect(second.configuration == first.configuration)

            // Within the default minimum validity the new token is simply printed.
            let cached = try await sandbox.run(["token", "--store", "file"])
            #expect(cached.stdout == second.tokens.accessToken + "\n")
            #expect(provider.refreshRequests.count == 1)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func concurrentTokenCallsTakeTurnsAndUseEachRefreshTokenOnce() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let first = try await sandbox.signInWithDevice(provider)
            let firstRefreshToken = try #require(first.tokens.refreshToken)
            let callers = 2
            let callsEach = 10

            // Two callers each starting ten processes at once — twenty in flight together —
            // every one forced to refresh.
            let results = try await withThrowingTaskGroup(
                of: [(status: Int32, stdout: String, stderr: String)].self
            ) { callersGroup in
                for _ in 0..<callers {
                    callersGroup.addTask {
                        try await withThrowingTaskGroup(of: (status: Int32, stdout: String, stderr: String).self) {
                            group in
                            for _ in 0..<callsEach {
                                group.addTask {
                                    try await sandbox.run(["token", "--min-validity", "7200"], timeout: .seconds(180))
                                }
                            }
                            return try await group.reduce(into: []) { $0.append($1) }
                        }
                    }
                }
                return try await callersGroup.reduce(into: []) { $0 += $1 }
            }

            #expect(results.count == callers * callsEach)
            for result in results {
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let token = result.stdout.trimmingCharacters(in: .newlines)
                #expect(result.stdout == token + "\n")
                #expect(provider.isActive(accessToken: token), "a token the provider issued")
            }
            let tokens = results.map { $0.stdout.trimmingCharacters(in: .newlines) }
            #expect(Set(tokens).count == tokens.count, "every call refreshed and got its own token")

            // The provider saw a refresh per call, all accepted. It refuses a refresh token
            // presented a second time (and then revokes its whole family), so every one was
            // presented exactly once, starting with the one from the sign-in; the stored one is
            // the last rotation, never presented and still live.
            let presented = provider.refreshRequests
            #expect(presented.count == callers * callsEach)
            let refusedCount = presented.filter { $0.error != nil }.count
            #expect(refusedCount == 0, "no refresh token was refused (none was reused)")
            #expect(!provider.isActive(refreshToken: firstRefreshToken), "the sign-in's one was used")
            let final = try #require(try sandbox.storedEntry())
            let finalRefreshToken = try #require(final.tokens.refreshToken)
            #expect(provider.isActive(refreshToken: finalRefreshToken))
            #expect(tokens.contains(final.tokens.accessToken))
        }
    }

    @Test func anUnknownProfileSaysHowToSignIn() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let plain = try await sandbox.run(["token", "--profile", "work"])
        #expect(plain.status == ExitStatus.notSignedIn)
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr.contains(#"no profile "work" is signed in"#))
        #expect(plain.stderr.contains("webauth login --profile work"))

        let json = try await sandbox.run(["token", "--profile", "work", "--store", "file", "--json"])
        #expect(json.status == ExitStatus.notSignedIn)
        let error = try #require(try jsonObject(json.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "notSignedIn")
        #expect(error["exit_status"] as? Int == Int(ExitStatus.notSignedIn))

        let logout = try await sandbox.run(["logout", "--profile", "work"])
        #expect(logout.status == ExitStatus.notSignedIn)
        let status = try await sandbox.run(["status", "--profile", "work"])
        #expect(status.status == ExitStatus.notSignedIn)
        let everything = try await sandbox.run(["status"])
        #expect(everything.status == 0)
        #expect(everything.stderr.contains("No profile is signed in"))

        let badName = try await sandbox.run(["token", "--profile", "../etc"])
        #expect(badName.status == ExitStatus.usage)
        #expect(badName.stderr.contains("not a valid profile name"))
    }

    @Test func aRefreshTokenRevokedElsewhereIsReportedAsRefused() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider, profile: "work")
            try await provider.revokeFromElsewhere(try #require(entry.tokens.refreshToken))

            let refused = try await sandbox.run(["token", "--profile", "work", "--min-validity", "7200"])
            #expect(refused.status == ExitStatus.providerRefused)
            #expect(refused.stdout.isEmpty)
            #expect(refused.stderr.contains("the provider refused the refresh token (invalid_grant)"))
            #expect(refused.stderr.contains("sign in again with `webauth login --profile work …`"))
            #expect(!containsSecret(refused.stderr, of: entry))
            #expect(try sandbox.storedEntry("work") == entry, "a refused refresh changes nothing stored")

            let json = try await sandbox.run(["token", "--profile", "work", "--min-validity", "7200", "--json"])
            let error = try #require(try jsonObject(json.stdout)["error"] as? [String: Any])
            #expect(error["code"] as? String == "invalid_grant")
            #expect(error["exit_status"] as? Int == Int(ExitStatus.providerRefused))
            #expect(!containsSecret(json.stdout + json.stderr, of: entry))
        }
    }

    @Test func logoutForgetsLocallyWhenRevocationFailsAndSaysSo() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            let entry = try await sandbox.signInWithDevice(provider)
            provider.setFault(.answer(503), for: .revocation)
            let logout = try await sandbox.run(["logout", "--store", "file", "--json"])
            #expect(logout.status == ExitStatus.revocationFailed)
            #expect(logout.stderr.contains("revoking the tokens at the provider failed"))
            #expect(try jsonObject(logout.stdout)["revocation"] as? String == "failed")
            #expect(try sandbox.storedEntry() == nil, "forgotten here anyway")
            #expect(provider.isActive(refreshToken: try #require(entry.tokens.refreshToken)))
            #expect(!containsSecret(logout.stdout + logout.stderr, of: entry))
        }
    }

    @Test func withoutDisplayOrDeviceFlowTheRedirectIsPasted() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            provider.overrideMetadata(.init(removedMembers: ["device_authorization_endpoint"]))
            let process = try sandbox.start(provider.loginArguments(["--profile", "pasted", "--json"]))
            let stderr = try await process.waitForStandardError(containing: "paste it here", timeout: .seconds(60))
            #expect(stderr.contains("the provider has no device flow"))
            let line = try #require(
                stderr.split(separator: "\n").first {
                    $0.trimmingCharacters(in: .whitespaces).hasPrefix(provider.issuer.absoluteString)
                })
            let authorizationURL = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))

            // The person signs in elsewhere; the provider redirects; they paste the address.
            process.type(try await provider.redirectToPaste(from: authorizationURL) + "\n")
            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "stderr: \(process.standardError)")
            #expect(try jsonObject(process.standardOutput)["method"] as? String == "pasted-redirect")
            let entry = try #require(try sandbox.storedEntry("pasted"))
            #expect(entry.tokens.idTokenClaims?.subject == EmbeddedProvider.User.demo.subject)
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))
        }
    }

    @Test func anUnapprovedDeviceTimesOutAndCtrlCInterrupts() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withCLIProvider { provider in
            provider.approveDeviceAuthorizations(as: nil)
            let timedOut = try await sandbox.run(provider.loginArguments(["--device", "--timeout", "2", "--json"]))
            #expect(timedOut.status == ExitStatus.timedOut)
            #expect(timedOut.stderr.contains("the device was not approved within 2 s"))
            let error = try #require(try jsonObject(timedOut.stdout)["error"] as? [String: Any])
            #expect(error["code"] as? String == "timedOut")
            #expect(try sandbox.storedEntry() == nil)

            let waiting = try sandbox.start(provider.loginArguments(["--device"]))
            _ = try await waiting.waitForStandardError(containing: "Ctrl-C cancels", timeout: .seconds(60))
            waiting.send(SIGINT)
            #expect(try await waiting.waitForExit(timeout: .seconds(60)) == ExitStatus.interrupted)
            #expect(waiting.standardError.contains("the sign-in was cancelled (Ctrl-C)"))
            #expect(try sandbox.storedEntry() == nil)
        }
    }

    @Test func aClientSecretIsReadFromStandardInputAndKeptOnlyInTheStore() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let secret = "s3cr3t-\(UUID().uuidString)"
        try await EmbeddedProvider.withCLIProvider(secret: secret) { provider in
            let process = try sandbox.start(
                provider.loginArguments(["--device", "--store", "file", "--client-secret", "-"]))
            process.type(secret + "\n")
            let status = try await process.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "stderr: \(process.standardError)")
            #expect(!process.standardError.contains(secret))
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.configuration?.clientSecret == secret, "kept for refreshing, in the 0600 entry")
            #expect(!entry.description.contains(secret))

            // The stored secret authenticates the refresh, with no option given.
            let token = try await sandbox.run(["token", "--min-validity", "7200"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            // Refreshed with the stored secret (the provider refuses any other), in Basic.
            let refresh = try #require(provider.refreshRequests.last)
            #expect(refresh.error == nil)
            #expect(refresh.clientAuthentication == "client_secret_basic")
            let status2 = try await sandbox.run(["status", "--json"])
            #expect(!status2.stdout.contains(secret))
        }
    }
}
