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

@Suite("webauth with the desktop keyring, run as processes", TestFixture.keyring.required)
struct KeyringProfileTests {
    @Test(.timeLimit(.minutes(3)))
    func aProfileLivesInTheKeyringAndLaterCommandsFindIt() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyring = try await PrivateKeyring.start(in: sandbox.root)
        sandbox.extraEnvironment = keyring.busEnvironment
        do {
            try await signInAndOut(sandbox)
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }

    @Test(.timeLimit(.minutes(3)))
    func entriesTooLargeForTheKeyringGoToFilesInstead() async throws {
        var sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyring = try await PrivateKeyring.start(in: sandbox.root)
        sandbox.extraEnvironment = keyring.busEnvironment
        do {
            try await EmbeddedProvider.withCLIProvider { provider in
                // A configuration with a long name: the entry that keeps it is over 8 KiB.
                let configuration = sandbox.root + "/client.json"
                let json: [String: Any] = [
                    "issuer": provider.issuer.absoluteString, "clientID": EmbeddedProvider.cliClientID,
                    "scopes": ["openid", "offline_access"], "name": String(repeating: "n", count: 9000),
                ]
                try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: configuration))
                let login = try await sandbox.run(["login", "--config", configuration, "--device", "--json"])
                #expect(login.status == 0, "stderr: \(login.stderr)")
                #expect(try jsonObject(login.stdout)["store"] as? String == "file")
                #expect(login.stderr.contains("it is in files instead"))
                let stored = try #require(try sandbox.storedEntry())
                #expect(ProfileIndex(environment: sandbox.environment).kind(of: "default") == .file)
                #expect(
                    try await SecretServiceTokenStore(environment: sandbox.environment).load(profile: "default") == nil)

                let token = try await sandbox.run(["token"])
                #expect(token.status == 0, "stderr: \(token.stderr)")
                #expect(token.stdout == stored.tokens.accessToken + "\n")

                // A profile in the keyring whose refreshed tokens outgrow it: the rotated refresh
                // token is kept, in files.
                let small = try await sandbox.run(
                    provider.loginArguments(["--device", "--profile", "grows", "--json"]))
                #expect(try jsonObject(small.stdout)["store"] as? String == "keyring", "stderr: \(small.stderr)")
                provider.overrideIDTokenClaims(.init(additionalClaims: ["groups": String(repeating: "g", count: 9000)]))
                let refresh = try await sandbox.run(["token", "--profile", "grows", "--min-validity", "7200"])
                #expect(refresh.status == 0, "stderr: \(refresh.stderr)")
                #expect(refresh.stderr.contains("they are in files now"))
                let grown = try #require(try sandbox.storedEntry("grows"))
                #expect(refresh.stdout == grown.tokens.accessToken + "\n")
                #expect(provider.isActive(refreshToken: try #require(grown.tokens.refreshToken)))
                #expect(ProfileIndex(environment: sandbox.environment).kind(of: "grows") == .file)
                #expect(
                    try await SecretServiceTokenStore(environment: sandbox.environment).load(profile: "grows") == nil)
            }
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }

    private func signInAndOut(_ sandbox: ProfileSandbox) async throws {
        try await EmbeddedProvider.withCLIProvider { provider in
            // automatic: the keyring answers, so the tokens go there and the index says so.
            let login = try await sandbox.run(provider.loginArguments(["--device", "--profile", "work", "--json"]))
            #expect(login.status == 0, "stderr: \(login.stderr)")
            #expect(try jsonObject(login.stdout)["store"] as? String == "keyring")
            #expect(try sandbox.storedEntry("work") == nil, "no token file")
            #expect(ProfileIndex(environment: sandbox.environment).kind(of: "work") == .keyring)

            let store = try SecretServiceTokenStore(environment: sandbox.environment)
            let entry = try #require(try await store.load(profile: "work"))
            #expect(entry.configuration?.issuer?.absoluteString == provider.issuer.absoluteString)

            let token = try await sandbox.run(["token", "--profile", "work"])
            #expect(token.status == 0, "stderr: \(token.stderr)")
            #expect(token.stdout == entry.tokens.accessToken + "\n")

            let refreshed = try await sandbox.run([
                "token", "--profile", "work", "--store", "keyring", "--min-validity", "7200",
            ])
            #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
            let rotated = try #require(try await store.load(profile: "work"))
            #expect(refreshed.stdout == rotated.tokens.accessToken + "\n")
            #expect(rotated.tokens.refreshToken != entry.tokens.refreshToken)
            #expect(provider.isActive(refreshToken: try #require(rotated.tokens.refreshToken)))

            let status = try await sandbox.run(["status"])
            #expect(status.stdout.contains("work  (keyring: Secret Service (service=webauth))"))
            #expect(!containsSecret(status.stdout + status.stderr, of: rotated))

            let logout = try await sandbox.run(["logout", "--profile", "work"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(try await store.load(profile: "work") == nil)
        }
    }
}
