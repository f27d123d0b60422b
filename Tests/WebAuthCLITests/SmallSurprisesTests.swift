// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Testing
import WebAuthTestSupport

@testable import WebAuthCLI

/// Small things a newcomer trips over: a second logout, setting git up for a profile that
/// cannot answer, and help text that wraps badly.
@Suite("Small surprises for a newcomer")
struct SmallSurprisesTests {
    @Test func aSecondLogoutSaysItIsAlreadySignedOut() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let result = try await sandbox.run(["logout"])
        #expect(result.status == ExitStatus.notSignedIn, "the status is the one for a profile not signed in")
        #expect(result.stderr.contains("profile \"default\" is already signed out: nothing is stored for it"))
        #expect(!result.stderr.contains("webauth login"), "\(result.stderr)")
    }

    @Test func gitSetupForAProfileThatCannotAnswerWarns() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let file = sandbox.root + "/gitconfig"
        let result = try await sandbox.run(
            ["git-credential", "setup", "git.example.com", "--profile", "work", "--file", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "profile \"work\" is not signed in, and no sign-in options were given: git gets nothing from webauth "
                    + "until you run `webauth login --profile work …`"), "\(result.stderr)")
        let withOptions = try await sandbox.run(
            [
                "git-credential", "setup", "git.example.com", "--profile", "work", "--file", file,
                "--issuer", "https://id.example.com", "--client-id", "git",
            ])
        #expect(withOptions.status == 0, "\(withOptions.stderr)")
        #expect(!withOptions.stderr.contains("not signed in"), "it signs in when git asks")
    }

    @Test(arguments: WebAuthCommand.configuration.subcommands.map { String(describing: $0) })
    func helpTextsWrapIntoFullLines(_ name: String) throws {
        let command = try #require(WebAuthCommand.configuration.subcommands.first { String(describing: $0) == name })
        let help = WebAuthCommand.helpMessage(for: command, columns: 80)
        let prose = help.components(separatedBy: "USAGE:")[0].components(separatedBy: "\n")
        for (line, next) in zip(prose, prose.dropFirst()) where !line.isEmpty && !next.isEmpty {
            // A line of prose the wrapping cut short: the text had a hard line break of its own.
            // An indented line is an example, which is never rewrapped.
            #expect(
                line.count > 40 || line.hasPrefix(" ") || next.hasPrefix(" "),
                "\(name): '\(line)' is followed by '\(next)'")
        }
    }
}

/// What the documentation tells a newcomer holds as written, on a fresh login.
@Suite("The documentation, as written")
struct DocumentationAsWrittenTests {
    /// The repository's directory.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The repository's file at `path`.
    static func document(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theVersionLineSaysWhenItNamesTheCommit() async throws {
        let readme = try Self.document("README.md")
        #expect(readme.contains("a plain `swift build` says \"unknown commit\""))
        // This build is a plain one (the tests' own).
        let version = try await CLIProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(
            version.stdout.hasSuffix("(unknown commit)\n")
                || version.stdout.range(of: "[0-9a-f]{7,}", options: .regularExpression) != nil, "\(version.stdout)")
    }
}
