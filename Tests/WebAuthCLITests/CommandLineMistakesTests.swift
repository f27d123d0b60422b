// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTestSupport

@testable import WebAuthCLI

/// Mistakes a newcomer makes on the command line, each named as what it is, with the right
/// spelling, before any rule about what was typed right.
@Suite("Command-line mistakes")
struct CommandLineMistakesTests {
    @Test func anUnknownOptionIsNamedBeforeTheRulesAboutKnownOnes() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await CLIProcess.run(
            ["login", "--isuer", "https://id.example.com", "--client-id", "ID"], environment: sandbox.environment)
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("Error: Unknown option '--isuer'. Did you mean '--issuer'?\n"), "\(result.stderr)")
        #expect(result.stderr.contains("See 'webauth login --help'"))
        #expect(!result.stderr.contains("Give exactly one"))
    }

    @Test func aMisspeltCommandGetsTheRightOne() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await CLIProcess.run(["lgoin"], environment: sandbox.environment)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown command 'lgoin'. Did you mean 'login'?\n"), "\(result.stderr)")
        let nested = try await CLIProcess.run(["agent", "strat"], environment: sandbox.environment)
        #expect(nested.status == 64)
        #expect(nested.stderr.hasPrefix("Error: Unknown command 'strat'. Did you mean 'start'?\n"), "\(nested.stderr)")
    }

    @Test func helpForACommandThatDoesNotExistFails() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await CLIProcess.run(["help", "nosuch"], environment: sandbox.environment)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown command 'nosuch'.\n"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let known = try await CLIProcess.run(["help", "login"], environment: sandbox.environment)
        #expect(known.status == 0)
        #expect(known.stdout.contains("USAGE: webauth login"))
    }

    @Test func clientCredentialsWithoutASecretSayHowToGiveOne() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await CLIProcess.run(
            ["login", "--issuer", "https://id.example.com", "--client-id", "machine", "--client-credentials"],
            environment: sandbox.environment)
        #expect(result.status == 64)
        #expect(
            result.stderr.contains(
                "give the secret in WEBAUTH_CLIENT_SECRET, on standard input with --client-secret -, or in a --config file"
            ),
            "\(result.stderr)")
    }

    @Test func suggestionsComeOnlyForNearMisses() {
        #expect(CommandLineMistakes.suggestion(for: "lgoin", among: ["login", "logout"]) == " Did you mean 'login'?")
        #expect(CommandLineMistakes.suggestion(for: "nosuch", among: ["login", "logout", "token"]) == "")
        #expect(
            CommandLineMistakes.unknownOption(
                in: ["--scope", "x", "--isuer=a", "--", "--other"], known: ["scope", "issuer"])
                == "Unknown option '--isuer'. Did you mean '--issuer'?")
        #expect(CommandLineMistakes.unknownOption(in: ["--scope", "x", "--", "--other"], known: ["scope"]) == nil)
    }
}
