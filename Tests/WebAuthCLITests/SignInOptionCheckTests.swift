// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Testing
import WebAuth
import WebAuthFastPath
import WebAuthOAuth

@testable import WebAuthCLI

@Suite("Sign-in options: one check for the fast path and the full parser")
struct SignInOptionCheckTests {
    /// Whether the full program's parser takes `options` (`LoginOptions.validate` runs as it
    /// parses).
    private func fullParserTakes(_ options: [String]) -> Bool {
        (try? LoginOptions.parse(options)) != nil
    }

    /// Whether the fast path takes `options` on a helper's command line.
    private func fastPathTakes(_ options: [String]) -> Bool {
        FastPathCommand(arguments: ["exec-credential"] + options) != nil
            && FastPathCommand(arguments: ["git-credential"] + options + ["get"]) != nil
    }

    @Test(
        "An issuer or a redirect URI with a character URIs do not allow is refused by both",
        arguments: [
            ["--issuer", "https://a b", "--client-id", "c"], ["--issuer", "https://a|b", "--client-id", "c"],
            ["--issuer", "https://a.example/x y", "--client-id", "c"],
            ["--issuer", "https://a.example/\"q\"", "--client-id", "c"],
            ["--issuer", "https://a.example/%zz", "--client-id", "c"],
            ["--issuer", "https://a.example/\u{1B}[2J", "--client-id", "c"],
            ["--issuer", "https://ex\u{E4}mple.com", "--client-id", "c"],
            ["--redirect-uri", "http://127.0.0.1/a b"], ["--redirect-uri", "http://127.0.0.1/a|b"],
            ["--redirect-uri", "com.example:/cb<x>"],
        ])
    func refusedByBoth(options: [String]) {
        #expect(!fastPathTakes(options))
        #expect(!fullParserTakes(options))
        let value = options[1]
        for reading in [LoginOptions.urlReading, SignInOptionSyntax.plainURLReading] {
            #expect(
                !(options[0] == "--issuer"
                    ? SignInOptionSyntax.isIssuer(value, reading: reading)
                    : SignInOptionSyntax.isRedirectURI(value, reading: reading)))
        }
    }

    @Test(
        "Issuers and redirect URIs both take",
        arguments: [
            ["--issuer", "https://id.example.com", "--client-id", "c"],
            ["--issuer", "https://id.example.com:8443/realms/a/", "--client-id", "c"],
            ["--issuer", "http://127.0.0.1:9000/o/tenant_1~x", "--client-id", "c"],
            ["--issuer", "http://[::1]:9000/", "--client-id", "c"],
            ["--redirect-uri", "http://127.0.0.1:8400/cb"], ["--redirect-uri", "https://app.example/cb?x=1&y=(2)"],
        ])
    func takenByBoth(options: [String]) {
        #expect(fastPathTakes(options))
        #expect(fullParserTakes(options))
    }

    /// The fast path reads URLs in `PlainURL`'s form only (its program carries no Foundation
    /// `URL`): it leaves the rest to the full program, which takes them.
    @Test(
        "URLs in other forms are the full program's to take",
        arguments: [
            ["--issuer", "https://id.example.com:8443/realms/a%20b/", "--client-id", "c"],
            ["--redirect-uri", "com.example.app:/oauth2redirect"],
        ])
    func leftToTheFullProgram(options: [String]) {
        #expect(!fastPathTakes(options))
        #expect(fullParserTakes(options))
    }
}

@Suite("Sign-in options: the full parser refuses with the fast path's check")
struct SignInOptionRefusalTests {
    @Test(
        "Each refusal of the check is the full parser's usage error, and the fast path skips none of them",
        arguments: [
            (["--issuer", "https://a.example", "--preset", "google", "--client-id", "c"], .severalProviders),
            (["--issuer", "https://a.example"], .noClientID),
            (["--issuer", "a.example", "--client-id", "c"], .issuer),
            (["--redirect-uri", "no-scheme"], .redirectURI),
            (["--timeout", "0"], .timeout),
            (["--timeout", "99999999999"], .timeout),
            (["--browser", "lynx"], .browser),
            (["--device", "--ephemeral"], .deviceWithBrowser),
            (["--no-browser", "--browser", "firefox"], .noBrowserWithBrowser),
            (["--prompt", "none login"], .prompt),
            (["--prompt", "consent;x"], .prompt),
        ] as [([String], SignInOptionSyntax.Refusal)])
    func sameRefusal(options: [String], refusal: SignInOptionSyntax.Refusal) {
        let message = LoginOptions.message(for: refusalError(options))
        #expect(message.contains(refusal.message), "\(message)")
        #expect(FastPathCommand(arguments: ["exec-credential"] + options) == nil)
    }

    /// The error the full parser throws for `options`.
    private func refusalError(_ options: [String]) -> any Error {
        do {
            _ = try LoginOptions.parse(options)
            return CancellationError()
        } catch {
            return error
        }
    }

    @Test("Every --browser name the check takes is one the session understands")
    func browserNames() {
        for name in SignInOptionSyntax.browserNames {
            #expect(BrowserChoice(name) != nil, "\(name)")
            #expect(BrowserChoice(name.uppercased()) != nil && SignInOptionSyntax.isBrowser(name.uppercased()))
        }
        #expect(SignInOptionSyntax.isBrowser("/usr/bin/firefox") && BrowserChoice("/usr/bin/firefox") != nil)
        #expect(!SignInOptionSyntax.isBrowser("lynx") && BrowserChoice("lynx") == nil)
    }

    @Test("Every --par value the check takes is one the full parser reads, and no other")
    func pushedAuthorizationValues() throws {
        for value in SignInOptionSyntax.pushedAuthorizationValues {
            #expect(try LoginOptions.parse(["--par", value]).par?.rawValue == value)
        }
        #expect(Set(PushedAuthorizationUse.allCases.map(\.rawValue)) == SignInOptionSyntax.pushedAuthorizationValues)
        #expect(throws: (any Error).self) { try LoginOptions.parse(["--par", "sometimes"]) }
        #expect(
            SignInOptionSyntax.refusal(.init(par: "sometimes"), reading: LoginOptions.urlReading)
                == .pushedAuthorization)
    }
}
