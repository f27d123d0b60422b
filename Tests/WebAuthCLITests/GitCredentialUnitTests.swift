// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Testing
import WebAuthCredentialHelpers
import WebAuthFastPath
import WebAuthOAuth
import WebAuthProcess
import WebAuthTokenStore

@testable import WebAuthCLI

/// The pure decisions of `webauth git-credential`: which hosts `setup` accepts, which
/// descriptions get a token, the username convention and the helper line.
@Suite("webauth git-credential decisions")
struct GitCredentialUnitTests {
    @Test(arguments: ["github.com", "git.example.com:8443", "localhost", "127.0.0.1:1", "a-b.c"])
    func plainHostsAreAccepted(_ host: String) {
        #expect(GitCredentialSetup.target(from: host)?.scheme == "https")
        #expect(GitCredentialSetup.target(from: host)?.host == host)
    }

    @Test(arguments: [
        "", "host:", "host:0", "host:65536", "host:1:2", "-host", ".host", "host-", "a..b", "a b", "a/b", "u@h",
        "h?x", "h#x", "https://h", "http://example.com", "[::1]", "héllo.example", "h\nx",
    ])
    func otherHostsAreRefused(_ host: String) {
        #expect(GitCredentialSetup.target(from: host) == nil)
    }

    @Test func plainHTTPOnlyForLoopback() throws {
        let target = try #require(GitCredentialSetup.target(from: "http://127.0.0.1:8080"))
        #expect(target.scheme == "http" && target.host == "127.0.0.1:8080")
        #expect(GitCredentialCommand.mayCarryToken(GitCredential(protocol: "https", host: "example.com")))
        #expect(GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "127.0.0.1:8080")))
        #expect(GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "localhost")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "example.com")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "127.0.0.1.example.com")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(protocol: "ssh", host: "example.com")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(host: "example.com")))
    }

    @Test func theUsernameFollowsTheProvider() {
        #expect(GitCredentialCommand.conventionalUsername(for: .github(clientID: "x")) == "x-access-token")
        #expect(GitCredentialCommand.conventionalUsername(for: .gitlab(clientID: "x")) == "oauth2")
        #expect(GitCredentialCommand.conventionalUsername(for: nil) == "oauth2")
        let enterprise = ClientConfiguration(
            endpoints: .init(token: URL(string: "https://api.github.com/login/oauth/access_token")), clientID: "x")
        #expect(GitCredentialCommand.conventionalUsername(for: enterprise) == "x-access-token")
    }

    @Test func theHelperLineQuotesThePathForTheShell() {
        let setup = GitCredentialSetup(
            scheme: "https", host: "example.com", profile: "work", store: .file, configurationFile: nil)
        #expect(setup.key == "credential.https://example.com.helper")
        #expect(
            setup.helperValue(executable: "/opt/it's here/webauth")
                == "!'/opt/it'\\''s here/webauth' git-credential --profile work --store file")
    }

    // MARK: Login options on the helper line

    /// Every login option, given: what `setup` must carry into the helper line.
    static let everyLoginOption = [
        "--issuer", "https://id.example/tenant one", "--preset", "github", "--config", "relative/client.json",
        "--client-id", "it's-me", "--scope", "openid offline_access", "--scope", "email", "--redirect-uri",
        "http://127.0.0.1/callback", "--tenant", "t", "--tenant", "u", "--prompt", "login", "--browser",
        "/opt/my browser", "--ephemeral",
        "--device",
        "--no-browser", "--par", "always", "--dpop", "--client-credentials",
        "--client-auth", "private_key_jwt", "--client-key", "relative/key.pem", "--client-assertion-audience",
        "token-endpoint", "--timeout", "90.5",
    ]

    @Test func loginOptionsBecomeArgumentsThatParseBackToThem() throws {
        // Parsed without validation: the combination need not make sense, every option must
        // survive the trip.
        var options = try LoginOptions.parse([])
        options.issuer = "https://id.example/tenant one"
        options.preset = "github"
        options.configFile = "relative/client.json"
        options.clientID = "it's-me"
        options.scopes = ["openid offline_access", "email"]
        options.redirectURI = "http://127.0.0.1/callback"
        options.tenants = ["t", "u"]
        options.prompt = "login"
        options.browser = "/opt/my browser"
        options.ephemeral = true
        options.device = true
        options.noBrowser = true
        options.timeout = 90.5
        options.par = .always
        options.dpop = true
        options.clientCredentials = true
        options.clientAuthentication = "private_key_jwt"
        options.clientKeyFile = "relative/key.pem"
        options.clientAssertionAudience = "token-endpoint"
        options.clientSecret = "never-written"
        let arguments = options.arguments
        #expect(!arguments.contains("--client-secret") && !arguments.contains("never-written"))
        let absolute = FileManager.default.currentDirectoryPath + "/relative/client.json"
        let absoluteKey = FileManager.default.currentDirectoryPath + "/relative/key.pem"
        #expect(
            arguments
                == Self.everyLoginOption.map {
                    $0 == "relative/client.json" ? absolute : $0 == "relative/key.pem" ? absoluteKey : $0
                })

        // Every option LoginOptions declares is carried (but the secret): an option added later
        // without being written to the helper line fails here.
        let help = LoginOptions.helpMessage()
        let declared = Set(help.matches(of: try Regex("--[a-z][a-z-]*")).map { String(help[$0.range]) })
        #expect(declared.count >= 13, "\(declared)")
        // `--register`, its token file and its method are `login`'s alone: the helpers refuse them.
        let loginOnly: Set = [
            "--client-secret", "--help", "--register", "--initial-access-token-file", "--register-auth",
        ]
        #expect(declared.subtracting(arguments).subtracting(loginOnly).isEmpty)

        // The fast path skips exactly these options on a cached read, with the same arity.
        let skipped = SignInOptionSyntax.options.map(\.name)
        #expect(Set(skipped) == declared.subtracting(loginOnly))
        #expect(Set(skipped).count == skipped.count, "each option once")
        for (name, arity) in SignInOptionSyntax.options {
            #expect(help.contains("\(name) <") == (arity != .flag), "\(name)")
            #expect(SignInOptionSyntax.arity(of: name) == arity)
        }
        #expect(SignInOptionSyntax.arity(of: "--client-secret") == nil)

        // Defaults are left out: a helper line says only what was chosen.
        #expect(try LoginOptions.parse([]).arguments.isEmpty)
        #expect(try LoginOptions.parse(["--timeout", "600"]).arguments.isEmpty)
    }

    @Test func theHelperLineCarriesTheLoginOptionsQuotedForTheShell() throws {
        let options = try LoginOptions.parse([
            "--issuer", "https://id.example", "--client-id", "it's-me", "--scope", "openid offline_access",
        ])
        let setup = GitCredentialSetup(
            scheme: "https", host: "example.com", profile: "work", store: .automatic, configurationFile: nil,
            loginArguments: options.arguments)
        let value = setup.helperValue(executable: "/usr/bin/webauth")
        #expect(
            value
                == "!'/usr/bin/webauth' git-credential --profile work --issuer https://id.example --client-id "
                + "'it'\\''s-me' --scope 'openid offline_access'")
        #expect(GitCredentialSetup.shellWord("") == "''")
        #expect(GitCredentialSetup.shellWord("~root") == "'~root'")
        #expect(GitCredentialSetup.shellWord("$HOME") == "'$HOME'")
        #expect(GitCredentialSetup.shellWord("a;b") == "'a;b'")
        #expect(GitCredentialSetup.shellWord("https://h:1/p=q@x%20,y+z") == "https://h:1/p=q@x%20,y+z")

        // What the shell makes of the line is what was given, word for word.
        let words = try Subprocess.runToCompletion(
            "/bin/sh",
            ["-c", String(value.dropFirst()).replacingOccurrences(of: "'/usr/bin/webauth'", with: "printf '%s\\n'")],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(
            words.standardOutput.split(separator: "\n").map(String.init)
                == ["git-credential", "--profile", "work"] + options.arguments)
    }
}
