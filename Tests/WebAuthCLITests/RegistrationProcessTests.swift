// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenFiles
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth login --register` and `webauth logout --unregister` against the embedded provider,
/// run as processes.
@Suite("webauth login --register and logout --unregister, run as processes")
struct RegistrationProcessTests {
    private static func configuration(
        _ registration: EmbeddedProvider.Registration? = .open
    ) -> EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        configuration.devicePollingInterval = .seconds(1)
        configuration.registration = registration
        return configuration
    }

    @Test func aRegisteredClientSignsInIsStoredWithTheProfileAndIsDeletedOnUnregister() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration()) { provider in
            let process = try sandbox.start([
                "login", "--register", "--device", "--issuer", provider.issuer.absoluteString, "--scope", "openid",
                "--scope", "offline_access", "--store", "file", "--profile", "registered",
            ])
            let stderr = try await process.waitForStandardError(containing: "user_code=", timeout: .seconds(60))
            let line = try #require(stderr.split(separator: "\n").first { $0.contains("/device?user_code=") })
            let verificationURI = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
            try await ScriptedUserAgent().approveDevice(verificationURI: verificationURI, userCode: nil)
            let status = try await process.waitForExit(timeout: .seconds(90))
            #expect(status == 0, "stderr: \(process.standardError)")

            let entry = try #require(try sandbox.storedEntry("registered"))
            let registration = try #require(entry.registration)
            #expect(entry.configuration?.clientID == registration.clientID)
            #expect(entry.clientID == registration.clientID)
            #expect(registration.isManageable)
            #expect(process.standardError.contains("registered client \(registration.clientID)"))
            let output = process.standardOutput + process.standardError
            #expect(!containsSecret(output, of: entry))
            #expect(!output.contains(try #require(registration.registrationAccessToken)))

            let token = try await sandbox.run(["token", "--profile", "registered"])
            #expect(token.stdout == entry.tokens.accessToken + "\n")

            let logout = try await sandbox.run(["logout", "--profile", "registered", "--unregister", "--json"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(try jsonObject(logout.stdout)["unregistration"] as? String == "deleted")
            #expect(!logout.stdout.contains(try #require(registration.registrationAccessToken)))
            #expect(try sandbox.storedEntry("registered") == nil)
            let gone = await #expect(throws: OAuthError.self) {
                try await ClientRegistrar(issuer: provider.issuer).read(registration)
            }
            #expect(gone?.code == .registrationUnknown)
        }
    }

    @Test func aProviderWithoutRegistrationIsNamedPlainly() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration(nil)) { provider in
            let result = try await sandbox.run([
                "login", "--register", "--device", "--issuer", provider.issuer.absoluteString, "--store", "file",
            ])
            #expect(result.status == ExitStatus.invalidInput, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("offers no dynamic client registration"))
            #expect(try sandbox.storedEntry() == nil)
        }
    }

    @Test func aProviderThatWantsAnInitialAccessTokenSaysSoAndTakesOneFromAPrivateFile() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let token = "handed-out-by-the-administrator"
        try await EmbeddedProvider.withProvider(Self.configuration(.init(initialAccessTokens: [token]))) { provider in
            let arguments = ["login", "--register", "--device", "--issuer", provider.issuer.absoluteString]
            let missing = try await sandbox.run(arguments + ["--store", "file"])
            #expect(missing.status == ExitStatus.providerRefused, "stderr: \(missing.stderr)")
            #expect(missing.stderr.contains("only with an initial access token"))
            #expect(missing.stderr.contains("--initial-access-token-file"))

            let file = sandbox.root + "/initial-access-token"
            try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: file))
            chmod(file, 0o644)
            let readable = try await sandbox.run(arguments + ["--initial-access-token-file", file, "--store", "file"])
            #expect(readable.status == ExitStatus.usage, "stderr: \(readable.stderr)")
            #expect(readable.stderr.contains("chmod 600"))
            #expect(!readable.stderr.contains(token))
            #expect(provider.requests(to: .registration).count == 1, "the readable file's token was not sent")

            let wrong = sandbox.root + "/wrong-token"
            try Data("not-the-one\n".utf8).write(to: URL(fileURLWithPath: wrong))
            chmod(wrong, 0o600)
            let refused = try await sandbox.run(arguments + ["--initial-access-token-file", wrong, "--store", "file"])
            #expect(refused.status == ExitStatus.providerRefused, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("refused the initial access token"))
        }
    }

    @Test func unregisterOnAProfileThatRegisteredNothingSignsOutAndSaysSo() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration()) { provider in
            let configuration = ClientConfiguration(
                issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id, scopes: ["openid"])
            let tokens = try await OAuthClient(configuration: configuration).signIn(
                environment: .standard(browser: ScriptedUserAgent()))
            let store = try FileTokenStore(directory: sandbox.tokenDirectory)
            try await store.save(StoredTokens(tokens: tokens, configuration: configuration), profile: "default")

            let logout = try await sandbox.run(["logout", "--unregister", "--json", "--store", "file"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(try jsonObject(logout.stdout)["unregistration"] as? String == "not_registered")
            #expect(logout.stderr.contains("registered no client"))
            #expect(try sandbox.storedEntry() == nil)
            #expect(!provider.isActive(accessToken: tokens.accessToken))
        }
    }

    @Test func theFastPathHandsOutTheTokenOfAProfileWithARegistration() throws {
        var entry = fullEntry()
        entry.registration = ClientRegistration(
            clientID: "registered", registrationAccessToken: "registration-access-token",
            registrationClientURI: URL(string: "https://id.example.com/register/registered"))
        let data = try entry.encoded()
        #expect(String(decoding: data, as: UTF8.self).contains("\"registration\""))
        #expect(CachedEntry(decoding: data)?.tokens.accessToken == entry.tokens.accessToken)
        let decoded = try StoredTokens.decode(data, profile: "registered", location: "test")
        #expect(decoded.registration == entry.registration)
    }

    // MARK: Providers as they are

    @Test func aRegistrationAnswerWithAStringIssuedAtIsNotedAndTheSignInGoesOn() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var registration = EmbeddedProvider.Registration.open
        registration.answersIssuedAtAsString = true
        try await EmbeddedProvider.withProvider(Self.configuration(registration)) { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            let result = try await sandbox.run([
                "login", "--register", "--device", "--issuer", provider.issuer.absoluteString, "--store", "file",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(
                result.stderr.contains("registration answer: its client_id_issued_at is a string, not a number"),
                "\(result.stderr)")
            #expect(try sandbox.storedEntry()?.registration?.clientIDIssuedAt != nil)
        }
    }

    @Test func aPublicClientTheProviderKeepsAsConfidentialFailsAtOnceNamingIt() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var registration = EmbeddedProvider.Registration.open
        registration.keepsPublicClientsConfidential = true
        var configuration = Self.configuration(registration)
        configuration.requiresPushedAuthorizationRequests = true
        try await EmbeddedProvider.withProvider(configuration) { provider in
            let started = ContinuousClock.now
            let result = try await sandbox.run([
                "login", "--register", "--no-browser", "--issuer", provider.issuer.absoluteString, "--store", "file",
                "--timeout", "60",
            ])
            // At once: before any page is shown, not at the timeout (the time itself is noisy here).
            print("login --register with a client kept confidential failed after \(ContinuousClock.now - started)")
            #expect(ContinuousClock.now - started < .seconds(30), "it fails at once, not at the timeout")
            #expect(!result.stderr.contains("paste it here"), "\(result.stderr)")
            #expect(result.status == ExitStatus.providerRefused, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("as a public client (token_endpoint_auth_method none, no secret)"))
            #expect(result.stderr.contains("refused it (invalid_client)"), "\(result.stderr)")
            #expect(result.stderr.contains("the client was deleted at the provider"))
            #expect(result.stderr.contains("--register-auth client_secret_basic"))
            #expect(provider.requests(to: .registration).map(\.method) == ["POST", "DELETE"])
            #expect(try sandbox.storedEntry() == nil)
        }
    }

    @Test func anotherMethodThanAskedIsFollowedWithItsSecret() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var registration = EmbeddedProvider.Registration.open
        registration.registeredAuthenticationMethod = "client_secret_post"
        try await EmbeddedProvider.withProvider(Self.configuration(registration)) { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            let result = try await sandbox.run([
                "login", "--register", "--register-auth", "client_secret_basic", "--device", "--issuer",
                provider.issuer.absoluteString, "--store", "file",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("client_secret_post, not client_secret_basic as asked"), "\(result.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.configuration?.effectiveClientAuthentication == .clientSecretPost)
            #expect(provider.requests(to: .token).allSatisfy { $0.clientAuthentication == "client_secret_post" })
            #expect(!containsSecret(result.stdout + result.stderr, of: entry))
        }
    }

    @Test func aClientRegisteredForPrivateKeyJWTSignsWithItsKey() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let key = try JWTClientAuthenticationProcessTests.writeKey(in: sandbox, mode: 0o600)
        try await EmbeddedProvider.withProvider(Self.configuration()) { provider in
            provider.approveDeviceAuthorizations(as: .demo)
            let missing = try await sandbox.run([
                "login", "--register", "--register-auth", "private_key_jwt", "--issuer", provider.issuer.absoluteString,
            ])
            #expect(missing.status == ExitStatus.usage)
            #expect(missing.stderr.contains("needs --client-key"))
            let result = try await sandbox.run([
                "login", "--register", "--register-auth", "private_key_jwt", "--client-key", key, "--device",
                "--issuer", provider.issuer.absoluteString, "--store", "file",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.registration?.tokenEndpointAuthMethod == .privateKeyJWT)
            #expect(entry.configuration?.effectiveClientAuthentication == .privateKeyJWT)
            // The provider keeps the client to its registered method: every answer was a token.
            let tokenRequests = provider.requests(to: .token)
            #expect(!tokenRequests.isEmpty && tokenRequests.allSatisfy { $0.status == 200 })
        }
    }

    @Test func anExactMatchingProviderGetsTheBoundPortRegisteredAndALaterSignInNamesATakenPort() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        var registration = EmbeddedProvider.Registration.open
        registration.registersExactRedirectURIs = true
        try await EmbeddedProvider.withProvider(Self.configuration(registration)) { provider in
            let signIn = try await PromptProcessTests.pastedSignIn(
                sandbox, ["login", "--register", "--issuer", provider.issuer.absoluteString, "--store", "file"])
            #expect(signIn.status == 0, "stderr: \(signIn.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            let redirect = try #require(entry.configuration?.redirectURI)
            let port = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.port)
            #expect(redirect.absoluteString == "http://127.0.0.1:\(port)/callback")
            #expect(
                entry.registration?.redirectURIs.map(\.absoluteString)
                    == ["http://127.0.0.1/callback", "http://127.0.0.1:\(port)/callback"])
            let sent = URLComponents(url: signIn.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "redirect_uri" }?.value
            #expect(sent == redirect.absoluteString)

            // The registered port, taken by another program: said plainly.
            let holder = try CLIProcess([
                "open", "--loopback", "--loopback-port", "\(port)", "--no-browser", "https://auth.example.com/a",
            ])
            defer { holder.send(SIGTERM) }
            _ = try await holder.waitForStandardError(containing: "Ctrl-C cancels")
            let clientID = try #require(entry.registration?.clientID)
            let again = try await sandbox.run([
                "login", "--issuer", provider.issuer.absoluteString, "--client-id", clientID, "--redirect-uri",
                redirect.absoluteString, "--no-browser", "--store", "file", "--profile", "again",
            ])
            #expect(again.status == ExitStatus.listenerFailed, "stderr: \(again.stderr)")
            #expect(again.stderr.contains("port \(port) on the loopback address is taken"), "\(again.stderr)")
            #expect(again.stderr.contains("ss -ltnp"))
        }
    }

    @Test func registerRefusesAClientOfItsOwn() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await sandbox.run([
            "login", "--register", "--issuer", "https://id.example.com", "--client-id", "mine",
        ])
        #expect(result.status == ExitStatus.usage)
        #expect(result.stderr.contains("--register makes a new client"))
    }
}

/// `webauth login --register` at glewlwyd (Debian's, see ``GlewlwydProvider/withRegistration(_:_:)``):
/// it matches redirect URIs exactly and keeps a client registered with `none` as a confidential
/// one without a secret.
@Suite("webauth login --register at glewlwyd, run as processes", .serialized, TestFixture.glewlwyd.required)
struct GlewlwydLoginRegistrationTests {
    @Test func aPublicClientFailsWithinSecondsNamingWhatGlewlwydDid() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await GlewlwydProvider.withRegistration(.open) { provider in
            let started = ContinuousClock.now
            let result = try await sandbox.run([
                "login", "--register", "--no-browser", "--dpop", "--issuer", provider.issuer.absoluteString,
                "--scope", "openid", "--store", "file", "--timeout", "60",
            ])
            // At once: before any page is shown, not at the timeout (the time itself is noisy here).
            print("login --register at glewlwyd failed after \(ContinuousClock.now - started)")
            #expect(ContinuousClock.now - started < .seconds(30), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("paste it here"), "\(result.stderr)")
            #expect(result.status == ExitStatus.providerRefused, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("as a public client (token_endpoint_auth_method none, no secret)"))
            #expect(result.stderr.contains("--register-auth client_secret_basic"))
            #expect(result.stderr.contains("the client was deleted at the provider"), "\(result.stderr)")
        }
    }

    @Test(TestFixture.chromium.required)
    func aConfidentialClientSignsInOnTheRegisteredPort() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await GlewlwydProvider.withRegistration(.open) { provider in
            let process = try sandbox.start([
                "login", "--register", "--register-auth", "client_secret_basic", "--no-browser", "--dpop",
                "--issuer", provider.issuer.absoluteString, "--scope", "openid", "--store", "file", "--timeout", "90",
            ])
            let shown = try await process.waitForStandardError(containing: "paste it here", timeout: .seconds(30))
            let line = try #require(shown.split(whereSeparator: \.isNewline).first { $0.contains("request_uri=") })
            let url = try #require(URL(string: line.trimmingCharacters(in: .whitespaces)))
            // The person's browser: glewlwyd's login page, then back to the listener itself.
            try await BrowserTurns.withTurn {
                let driver = try ChromiumPageDriver()
                defer { driver.tearDown() }
                let session = driver.browsingSession(to: url, loopbackReceiver: LoopbackReceiver())
                let browsing = Task { try? await session.authenticate() }
                defer { session.cancel() }
                try await provider.logIn(on: try await driver.page())
                let status = try await process.waitForExit(timeout: .seconds(60))
                session.cancel()
                _ = await browsing.value
                #expect(status == 0, "stderr: \(process.standardError)")
            }
            let entry = try #require(try sandbox.storedEntry())
            let registration = try #require(entry.registration)
            let redirect = try #require(entry.configuration?.redirectURI)
            #expect(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.port != nil)
            #expect(registration.redirectURIs.contains(redirect))
            #expect(entry.configuration?.effectiveClientAuthentication == .clientSecretBasic)
            #expect(!containsSecret(process.standardOutput + process.standardError, of: entry))
            let logout = try await sandbox.run(["logout", "--unregister", "--store", "file", "--json"])
            #expect(try jsonObject(logout.stdout)["unregistration"] as? String == "deleted", "\(logout.stderr)")
        }
    }
}
