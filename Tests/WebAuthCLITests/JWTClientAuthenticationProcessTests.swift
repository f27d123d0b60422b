// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth login --client-auth private_key_jwt --client-key FILE`, and the commands after it,
/// as real processes against the embedded provider: the profile keeps the key file's path,
/// never the key, and renews and revokes with fresh assertions; a key file others can read is
/// refused before any request.
@Suite("webauth --client-auth private_key_jwt, run as processes")
struct JWTClientAuthenticationProcessTests {
    /// A P-256 test key, made for these tests only.
    static let pem = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/+GGZY0gt4AdhXnH
        d/Cp3rG++FLgCUTZYF8PSr+PeOWhRANCAATTNKUZFNG7WOvKgPQfVnb8behIPd2G
        CTqJXfGc5AZuaqH/RIdBSuzE1BVSFchMzYck+qS1/Ucb1gG+EwuEdFBq
        -----END PRIVATE KEY-----

        """

    static func configuration() throws -> EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        var machine = EmbeddedProvider.Client(id: "ci-job", redirectURIs: [], allowedScopes: ["deploy"])
        machine.publicJWKs = [try ClientAssertionKey(pem: pem).publicJWK]
        machine.tokenEndpointAuthMethod = "private_key_jwt"
        machine.allowsClientCredentials = true
        configuration.clients.append(machine)
        return configuration
    }

    static func writeKey(in sandbox: ProfileSandbox, mode: Int) throws -> String {
        let path = sandbox.root + "/client-key.pem"
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test func aMachineSignsInWithItsKeyRenewsAndRevokes() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyFile = try Self.writeKey(in: sandbox, mode: 0o600)
        try await EmbeddedProvider.withProvider(try Self.configuration()) { provider in
            let login = try await sandbox.run([
                "login", "--client-credentials", "--issuer", provider.issuer.absoluteString, "--client-id", "ci-job",
                "--client-auth", "private_key_jwt", "--client-key", keyFile, "--scope", "deploy", "--store", "file",
            ])
            #expect(login.status == 0, "stderr: \(login.stderr)")
            let entry = try #require(try sandbox.storedEntry())
            #expect(entry.configuration?.clientAuthentication == .privateKeyJWT)
            #expect(entry.configuration?.clientKeyFile?.path == keyFile)
            // The stored profile names the key file and holds no key.
            let stored = String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: sandbox.entryPath())), as: UTF8.self)
            #expect(!stored.contains("PRIVATE KEY") && !stored.contains("MIGHAgEA"))
            #expect(!(login.stdout + login.stderr).contains("MIGHAgEA"))

            // Renewal and sign-out read the key from its file again.
            let renewed = try await sandbox.run(["token", "--min-validity", "7200"])
            #expect(renewed.status == 0, "stderr: \(renewed.stderr)")
            let logout = try await sandbox.run(["logout"])
            #expect(logout.status == 0, "stderr: \(logout.stderr)")
            #expect(provider.requests(to: .token).map(\.status) == [200, 200])
            #expect(!provider.requests(to: .revocation).isEmpty)
            #expect(provider.requests(to: .revocation).allSatisfy { $0.status == 200 })
        }
    }

    @Test func aKeyFileOthersCanReadIsRefusedBeforeAnyRequest() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let keyFile = try Self.writeKey(in: sandbox, mode: 0o644)
        try await EmbeddedProvider.withProvider(try Self.configuration()) { provider in
            let run = try await sandbox.run([
                "login", "--client-credentials", "--issuer", provider.issuer.absoluteString, "--client-id", "ci-job",
                "--client-key", keyFile, "--scope", "deploy",
            ])
            #expect(run.status != 0)
            #expect(run.stderr.contains("chmod 600"), "stderr: \(run.stderr)")
            #expect(!run.stderr.contains("MIGHAgEA"))
            #expect(provider.requests(to: .token).isEmpty)
        }
    }

    @Test func anUnknownMethodOrAudienceIsRefused() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let method = try await sandbox.run([
            "login", "--issuer", "https://id.example", "--client-id", "c", "--client-auth", "tls_client_auth",
        ])
        #expect(method.status != 0)
        #expect(method.stderr.contains("--client-auth"), "stderr: \(method.stderr)")
        let audience = try await sandbox.run([
            "login", "--issuer", "https://id.example", "--client-id", "c", "--client-assertion-audience", "nowhere",
        ])
        #expect(audience.status != 0)
        #expect(audience.stderr.contains("--client-assertion-audience"), "stderr: \(audience.stderr)")
    }
}
