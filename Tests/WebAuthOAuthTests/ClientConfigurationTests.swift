// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore

@testable import WebAuthOAuth

@Suite("Client configuration")
struct ClientConfigurationTests {
    @Test func decodesTheAppCredentialJSONShape() throws {
        // The shape of the AniList configuration file in the SwiftUI article (numeric id).
        let json = """
            {
                "id": 1,
                "secret": "api_secret",
                "name": "Nae for Anilist",
                "redirectURL": "fairese-nae://anilist-auth"
            }
            """
        let configuration = try JSONDecoder().decode(ClientConfiguration.self, from: Data(json.utf8))
        #expect(configuration.clientID == "1")
        #expect(configuration.clientSecret == "api_secret")
        #expect(configuration.name == "Nae for Anilist")
        #expect(configuration.redirectURI.absoluteString == "fairese-nae://anilist-auth")
        #expect(configuration.responseType == .code)
        #expect(try Callback.configured(configuration.redirectURI) == .customScheme("fairese-nae"))
    }

    @Test func roundTripsTheFullForm() throws {
        var configuration = ClientConfiguration(
            issuer: URL(string: "https://issuer.example"),
            endpoints: .init(revocation: URL(string: "https://issuer.example/revoke")), clientID: "cli",
            scopes: ["openid", "email"], clientAuthentication: .clientSecretPost)
        configuration.clientSecret = "s3cret"
        configuration.additionalAuthorizationParameters = ["prompt": "consent"]
        let data = try JSONEncoder().encode(configuration)
        #expect(try JSONDecoder().decode(ClientConfiguration.self, from: data) == configuration)
    }

    /// OpenID Connect Core §11: a request for offline_access carries prompt=consent, unless the
    /// caller set a prompt (obeyed, none and login included) or turned it off.
    @Test func offlineAccessAsksForConsentUnlessAPromptIsSetOrItIsTurnedOff() async throws {
        func prompt(_ change: (inout ClientConfiguration) -> Void) async throws -> String? {
            var configuration = ClientConfiguration(
                endpoints: .init(
                    authorization: URL(string: "https://as.example/authorize"),
                    token: URL(string: "https://as.example/token")),
                clientID: "cli", scopes: ["openid", "offline_access"])
            change(&configuration)
            let url = try await OAuthClient(configuration: configuration).prepareAuthorization()
                .url(redirectURI: URL(string: "http://127.0.0.1:5/callback")!)
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(items.count { $0.name == "prompt" } <= 1)
            return items.first { $0.name == "prompt" }?.value
        }
        #expect(try await prompt { _ in } == "consent")
        #expect(try await prompt { $0.additionalAuthorizationParameters["prompt"] = "none" } == "none")
        #expect(try await prompt { $0.additionalAuthorizationParameters["prompt"] = "login" } == "login")
        #expect(try await prompt { $0.promptsConsentForOfflineAccess = false } == nil)
        #expect(try await prompt { $0.scopes = ["openid"] } == nil)
        #expect(!ClientConfiguration.microsoft(clientID: "m", tenant: "common").promptsConsentForOfflineAccess)

        var off = ClientConfiguration(issuer: URL(string: "https://as.example"), clientID: "cli")
        let on = String(decoding: try JSONEncoder().encode(off), as: UTF8.self)
        #expect(!on.contains("promptsConsentForOfflineAccess"), "the default is not written")
        off.promptsConsentForOfflineAccess = false
        #expect(try JSONDecoder().decode(ClientConfiguration.self, from: JSONEncoder().encode(off)) == off)
    }

    @Test func acceptsScopesAsOneString() throws {
        let json = #"{"clientID":"c","issuer":"https://issuer.example","scopes":"openid profile"}"#
        let configuration = try JSONDecoder().decode(ClientConfiguration.self, from: Data(json.utf8))
        #expect(configuration.scopes == ["openid", "profile"])
    }

    /// As ssh with a key: a file that carries a client secret is refused when group or others
    /// may read or write it, with the `chmod` that fixes it; without a secret any mode will do.
    @Test(arguments: [
        (0o600, true, true), (0o400, true, true), (0o644, true, false), (0o640, true, false), (0o620, true, false),
        (0o604, true, false), (0o666, true, false), (0o644, false, true), (0o666, false, true),
    ])
    func aFileWithASecretMustBePrivate(_ mode: Int, _ hasSecret: Bool, _ accepted: Bool) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-config-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let secret = hasSecret ? #","clientSecret":"very-secret-value""# : ""
        try Data(#"{"issuer":"https://as.example","clientID":"cli"\#(secret)}"#.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        do {
            let configuration = try ClientConfiguration.load(from: file)
            #expect(accepted, "mode \(String(mode, radix: 8)) with a secret was accepted")
            #expect(configuration.clientSecret == (hasSecret ? "very-secret-value" : nil))
        } catch {
            #expect(!accepted, "mode \(String(mode, radix: 8)) was refused: \(error)")
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("chmod 600 '\(file.path)'"), "\(error.message)")
            #expect(error.message.contains("0\(String(mode, radix: 8))"))
            #expect(!error.message.contains("very-secret-value"))
        }
    }

    @Test func loadingABrokenFileNamesTheKeyButNotTheSecret() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauth-config-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"secret":"very-secret-value","name":"x"}"#.utf8).write(to: file)
        do {
            _ = try ClientConfiguration.load(from: file)
            Issue.record("loaded a configuration without a client ID")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains("clientID"))
            #expect(!error.message.contains("very-secret-value"))
        }
    }

    @Test(arguments: [
        ("http://issuer.example", OAuthError.Code.insecureEndpoint),
        ("ftp://issuer.example", OAuthError.Code.insecureEndpoint),
        ("http://127.attacker.example", OAuthError.Code.insecureEndpoint),
        ("http://127.0.0.1.attacker.example", OAuthError.Code.insecureEndpoint),
        ("http://localhost.attacker.example", OAuthError.Code.insecureEndpoint),
    ])
    func rejectsIssuersThatAreNotHTTPS(_ issuer: String, _ code: OAuthError.Code) {
        let configuration = ClientConfiguration(issuer: URL(string: issuer), clientID: "c")
        #expect(throws: OAuthError.self) { try configuration.validated() }
        do { _ = try configuration.validated() } catch { #expect(error.code == code) }
    }

    @Test func anHTTPRedirectURIMustBeLoopbackToTheLetter() {
        for uri in ["http://127.attacker.example/cb", "http://127.0.0.1.nip.example/cb"] {
            #expect(throws: OAuthError.self, "\(uri)") { try Callback.configured(URL(string: uri)!) }
        }
    }

    @Test func unsupportedResponseTypesAndClientAuthenticationAreRefusedUpFront() {
        let issuer = URL(string: "https://issuer.example")
        let unsupported = [
            ClientConfiguration(issuer: issuer, clientID: "c", responseType: ResponseType(rawValue: "code id_token")),
            ClientConfiguration(
                issuer: issuer, clientID: "c", clientSecret: "s",
                clientAuthentication: ClientAuthenticationMethod(rawValue: "tls_client_auth")),
        ]
        for configuration in unsupported {
            #expect(throws: OAuthError.self) { try configuration.validated() }
        }
    }

    @Test func allowsPlainHTTPOnlyToLoopback() throws {
        _ = try ClientConfiguration(issuer: URL(string: "http://127.0.0.1:8080/o"), clientID: "c").validated()
        _ = try ClientConfiguration(issuer: URL(string: "http://[::1]:8080"), clientID: "c").validated()
    }

    @Test func mapsRedirectURIsToCallbacks() throws {
        #expect(try Callback.configured(URL(string: "http://127.0.0.1/callback")!) == .loopback(path: "/callback"))
        #expect(
            try Callback.configured(URL(string: "http://127.0.0.1:8765/cb")!) == .loopback(path: "/cb", port: 8765))
        #expect(
            try Callback.configured(URL(string: "http://[::1]/cb")!) == .loopback(path: "/cb", host: .ipv6))
        #expect(
            try Callback.configured(URL(string: "https://app.example.com/oauth")!)
                == .https(host: "app.example.com", path: "/oauth"))
        #expect(try Callback.configured(URL(string: "com.example.app:/oauth")!) == .customScheme("com.example.app"))
        #expect(throws: OAuthError.self) { try Callback.configured(URL(string: "http://example.com/cb")!) }
        #expect(throws: OAuthError.self) { try Callback.configured(URL(string: "http://127.0.0.1/cb?x=1")!) }
    }

    @Test func aSecretMethodNeedsASecret() {
        let configuration = ClientConfiguration(
            issuer: URL(string: "https://issuer.example"), clientID: "c", clientAuthentication: .clientSecretBasic)
        #expect(throws: OAuthError.self) { try configuration.validated() }
    }

    @Test func presetsAreValidAndCarryTheirQuirks() throws {
        for name in ClientConfiguration.presetNames {
            let preset = try ClientConfiguration.preset(
                named: name, clientID: "id", tenant: "00000000-0000-0000-0000-000000000000",
                redirectURI: URL(string: "com.example.app:/cb"))
            _ = try preset.validated()
        }
        #expect(
            ClientConfiguration.anilist(clientID: "1", redirectURI: URL(string: "x-app:/cb")!).responseType == .token)
        #expect(ClientConfiguration.google(clientID: "g").additionalAuthorizationParameters["access_type"] == "offline")
        #expect(
            ClientConfiguration.github(clientID: "g", clientSecret: "s").effectiveClientAuthentication
                == .clientSecretPost)
        #expect(throws: OAuthError.self) { try ClientConfiguration.preset(named: "nope", clientID: "x") }
        #expect(throws: OAuthError.self) { try ClientConfiguration.preset(named: "microsoft", clientID: "x") }
    }

    @Test func findsMetadataAtTheOpenIDAndRFC8414Locations() {
        let urls = Discovery.documentURLs(for: URL(string: "https://issuer.example/tenant")!).map(\.absoluteString)
        #expect(
            urls == [
                "https://issuer.example/tenant/.well-known/openid-configuration",
                "https://issuer.example/.well-known/oauth-authorization-server/tenant",
                "https://issuer.example/.well-known/openid-configuration/tenant",
            ])
        #expect(
            Discovery.documentURLs(for: URL(string: "https://issuer.example")!).map(\.absoluteString) == [
                "https://issuer.example/.well-known/openid-configuration",
                "https://issuer.example/.well-known/oauth-authorization-server",
            ])
    }
}
