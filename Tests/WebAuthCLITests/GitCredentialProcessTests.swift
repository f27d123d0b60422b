// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCredentialHelpers
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// `webauth git-credential` run by Debian's git (and directly, for what git never sends), each
/// test in a private home with its own global git configuration, so the machine's is untouched.
@Suite("webauth git-credential, run by git", TestFixture.git.required)
struct GitCredentialProcessTests {
    /// Runs `webauth` with `arguments` and `input` on standard input.
    private func helper(_ sandbox: ProfileSandbox, _ arguments: [String], input: [UInt8]) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = try CLIProcess(arguments, environment: sandbox.environment, keepStandardInputOpen: true)
        process.finishInput(input)
        let status = try await process.waitForExit(timeout: .seconds(60))
        return (status, process.standardOutput, process.standardError)
    }

    /// Saves a profile with made-up tokens valid for an hour, refreshable at `issuer`.
    @discardableResult
    private func saveProfile(
        _ sandbox: ProfileSandbox, _ profile: String, configuration: ClientConfiguration? = nil,
        expiresIn: TimeInterval = 3600
    ) async throws -> StoredTokens {
        let configuration =
            configuration ?? ClientConfiguration(issuer: URL(string: "http://127.0.0.1:9")!, clientID: "git-tests")
        let tokens = TokenSet(
            accessToken: "access-\(UUID().uuidString)", tokenType: "Bearer",
            refreshToken: "refresh-\(UUID().uuidString)",
            expiresAt: Date().addingTimeInterval(expiresIn))
        let entry = StoredTokens(tokens: tokens, clientID: configuration.clientID, configuration: configuration)
        try await TokenStores(selection: .file, environment: sandbox.environment).save(entry, profile: profile)
        return try #require(try sandbox.storedEntry(profile))
    }

    private func answer(_ stdout: String) throws -> GitCredential {
        try GitCredential(reading: Array(stdout.utf8))
    }

    // MARK: - The protocol, through git

    @Test func setupThenGitCredentialFillAnswersWithTheStoredToken() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let entry = try await saveProfile(sandbox, "work")

        let setup = try await sandbox.run(["git-credential", "setup", "git.example.com", "--profile", "work"])
        #expect(setup.status == 0, "stderr: \(setup.stderr)")
        #expect(setup.stdout.contains("credential.https://git.example.com.helper = !'"))
        let helpers = try await sandbox.git([
            "config", "--global", "--get-all", "credential.https://git.example.com.helper",
        ])
        let lines = helpers.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "", "an empty helper first resets the helpers for this host")
        let webauth = CLIProcess.executable.resolvingSymlinksInPath().path
        #expect(lines.dropFirst().first == "!'\(webauth)' git-credential --profile work")

        let fill = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=git.example.com\n\n")
        #expect(fill.status == 0, "stderr: \(fill.stderr)")
        let filled = try answer(fill.stdout)
        #expect(filled.username == "oauth2")
        #expect(filled.password == entry.tokens.accessToken)
        // git 2.41 and later pass password_expiry_utc on (Debian's 2.39 drops it): the helper's own answer has it.
        let direct = try await helper(
            sandbox, ["git-credential", "--profile", "work", "get"],
            input: Array("protocol=https\nhost=git.example.com\n\n".utf8))
        let expiry = try #require(try answer(direct.stdout).passwordExpiry)
        #expect(abs(expiry.timeIntervalSince(try #require(entry.tokens.expiresAt))) < 1)
        #expect(!fill.stdout.contains(entry.tokens.refreshToken!), "the refresh token never goes to git")
        #expect(!containsSecret(fill.stderr, of: entry))

        // Another host has no helper: git asks nobody (and may not prompt), so it fails.
        let other = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=elsewhere.example\n\n")
        #expect(other.status != 0)
        #expect(!other.stdout.contains(entry.tokens.accessToken))
    }

    @Test func setupRefusesWhatIsNotAPlainHostAndWritesToAGivenFile() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        for bad in [
            "evil.example/path", "a b", "host:99999", "user@host", "https://host", "http://example.com", "exa_mple.com",
            "",
        ] {
            let refused = try await sandbox.run(["git-credential", "setup", bad, "--profile", "work"])
            #expect(refused.status == ExitStatus.usage, "\(bad)")
            #expect(refused.stderr.contains("is not a plain host") || bad.isEmpty, "\(bad): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/gitconfig"), "nothing written")

        let file = sandbox.root + "/other.gitconfig"
        let setup = try await sandbox.run([
            "git-credential", "setup", "http://127.0.0.1:8080", "--profile", "work", "--store", "file", "--file", file,
        ])
        #expect(setup.status == 0, "stderr: \(setup.stderr)")
        let written = try await sandbox.git([
            "config", "--file", file, "--get-all", "credential.http://127.0.0.1:8080.helper",
        ])
        #expect(written.stdout.hasSuffix("git-credential --profile work --store file\n"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/gitconfig"), "the global file is untouched")
    }

    @Test func oneHelperLineServesSeveralHostsAndNoOthers() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let first = try await saveProfile(sandbox, "first")
        let second = try await saveProfile(sandbox, "second")
        let webauth = CLIProcess.executable.path
        let configured = try await sandbox.git([
            "config", "--global", "credential.helper",
            "!'\(webauth)' git-credential --profile-for one.example=first --profile-for two.example:8443=second",
        ])
        try #require(configured.status == 0)

        let one = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=one.example\n\n")
        #expect(try answer(one.stdout).password == first.tokens.accessToken)
        let two = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=two.example:8443\n\n")
        #expect(try answer(two.stdout).password == second.tokens.accessToken)
        let other = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=three.example\n\n")
        #expect(other.status != 0, "no answer for a host not named, and git may not prompt")
        #expect(!other.stdout.contains(first.tokens.accessToken) && !other.stdout.contains(second.tokens.accessToken))

        // erase follows the same mapping.
        let erase = try await sandbox.git(
            ["credential", "reject"],
            input: "protocol=https\nhost=two.example:8443\nusername=oauth2\npassword=\(second.tokens.accessToken)\n\n")
        #expect(erase.status == 0, "\(erase.stderr)")
        #expect(try sandbox.storedEntry("second")?.tokens.expiresAt.map { $0 <= Date() } == true)
        #expect(try sandbox.storedEntry("first") == first)

        let bad = try await sandbox.run(["git-credential", "--profile-for", "a/b=first", "get"])
        #expect(bad.status == ExitStatus.usage)
        #expect(bad.stderr.contains("--profile-for takes HOST or HOST=NAME"))
    }

    // MARK: - Which hosts a profile answers

    @Test(
        "A helper line for every host answers only the hosts its profile is bound to, fast or full",
        arguments: [true, false])
    func aHelperForEveryHostAnswersOnlyBoundHosts(fastPath: Bool) async throws {
        var sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        if !fastPath { sandbox.extraEnvironment[FastPath.switchVariable] = "0" }
        let entry = try await saveProfile(sandbox, "work")
        // setup records git.example.com with the profile (its configuration goes elsewhere here,
        // so that the hand-written line below is the only helper git asks).
        let setup = try await sandbox.run([
            "git-credential", "setup", "Git.Example.com", "--profile", "work", "--file", sandbox.root + "/unused",
        ])
        #expect(setup.status == 0, "stderr: \(setup.stderr)")
        #expect(setup.stdout.hasSuffix("Recorded: profile \"work\" answers git for git.example.com\n"))
        let webauth = CLIProcess.executable.path
        func configure(_ line: String) async throws {
            let configured = try await sandbox.git(["config", "--global", "credential.helper", "!'\(webauth)' \(line)"])
            try #require(configured.status == 0)
        }
        try await configure("git-credential --profile work")

        let allowed = try await sandbox.git(
            ["credential", "fill"], input: "protocol=https\nhost=git.example.com\npath=org/repo.git\n\n")
        #expect(allowed.status == 0, "stderr: \(allowed.stderr)")
        #expect(try answer(allowed.stdout).password == entry.tokens.accessToken)

        // A submodule's host: git hears nothing, and the person one line saying how to allow it.
        let instruction =
            "note: git gets no credential from webauth for evil.example: profile \"work\" is not set up for it; "
            + "to allow it, run `webauth git-credential setup evil.example --profile work` "
            + "or add --profile-for evil.example to the helper line\n"
        let other = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=evil.example\n\n")
        #expect(other.status != 0)
        #expect(!other.stdout.contains(entry.tokens.accessToken))
        #expect(other.stderr.hasPrefix(instruction), "\(other.stderr)")
        let direct = try await helper(
            sandbox, ["git-credential", "--profile", "work", "get"],
            input: Array("protocol=https\nhost=evil.example\n\n".utf8))
        #expect(direct.status == 0 && direct.stdout.isEmpty)
        #expect(direct.stderr == instruction, "one line: \(direct.stderr)")
        // The port is part of the host.
        let port = try await helper(
            sandbox, ["git-credential", "--profile", "work", "get"],
            input: Array("protocol=https\nhost=git.example.com:8443\n\n".utf8))
        #expect(port.stdout.isEmpty)
        #expect(port.stderr.contains("setup git.example.com:8443 --profile work"), "\(port.stderr)")
        // erase for a host the profile is not bound to changes nothing.
        let erase = try await helper(
            sandbox, ["git-credential", "--profile", "work", "erase"],
            input: Array("protocol=https\nhost=evil.example\npassword=\(entry.tokens.accessToken)\n\n".utf8))
        #expect(erase.status == 0 && erase.stderr.isEmpty)
        #expect(try sandbox.storedEntry("work") == entry)

        // --profile-for on the helper line allows a host.
        try await configure("git-credential --profile work --profile-for EVIL.example")
        let named = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=evil.example\n\n")
        #expect(named.status == 0, "stderr: \(named.stderr)")
        #expect(try answer(named.stdout).password == entry.tokens.accessToken)
    }

    @Test func aProfileWithNoRecordedHostsAnswersNoneUntilSetUpOrNamed() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        // Signed in, and a helper line from before hosts were recorded.
        let entry = try await saveProfile(sandbox, "work")
        let input = Array("protocol=https\nhost=git.example.com\n\n".utf8)
        let before = try await helper(sandbox, ["git-credential", "--profile", "work", "get"], input: input)
        #expect(before.status == 0 && before.stdout.isEmpty)
        #expect(before.stderr.contains("run `webauth git-credential setup git.example.com --profile work`"))
        let named = try await helper(
            sandbox, ["git-credential", "--profile", "work", "--profile-for", "git.example.com", "get"], input: input)
        #expect(try answer(named.stdout).password == entry.tokens.accessToken)
        let setup = try await sandbox.run(["git-credential", "setup", "git.example.com", "--profile", "work"])
        #expect(setup.status == 0, "stderr: \(setup.stderr)")
        let after = try await helper(sandbox, ["git-credential", "--profile", "work", "get"], input: input)
        #expect(try answer(after.stdout).password == entry.tokens.accessToken)
        // Another profile's hosts are not this one's, and signing out keeps the record.
        let other = try await helper(sandbox, ["git-credential", "--profile", "home", "get"], input: input)
        #expect(other.stdout.isEmpty && other.stderr.contains("profile \"home\" is not set up"))
        // (Revoking fails here: nothing listens at the stored issuer. The tokens are forgotten all the same.)
        _ = try await sandbox.run(["logout", "--profile", "work"])
        #expect(try sandbox.storedEntry("work") == nil)
        #expect(TokenStores(environment: sandbox.environment).index.gitHosts(of: "work") == ["git.example.com"])
    }

    // MARK: - Operations and conventions

    @Test func usernamesFollowTheProviderOrTheOption() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        try await saveProfile(sandbox, "hub", configuration: .github(clientID: "gh"))
        try await saveProfile(sandbox, "lab", configuration: .gitlab(clientID: "gl"))
        let input = Array("protocol=https\nhost=example.com\n\n".utf8)
        let github = try await helper(
            sandbox, ["git-credential", "--profile", "hub", "--profile-for", "example.com", "get"], input: input)
        #expect(try answer(github.stdout).username == "x-access-token")
        let gitlab = try await helper(
            sandbox, ["git-credential", "--profile", "lab", "--profile-for", "example.com", "get"], input: input)
        #expect(try answer(gitlab.stdout).username == "oauth2")
        let chosen = try await helper(
            sandbox, ["git-credential", "--profile", "hub", "--profile-for", "example.com", "--username", "me", "get"],
            input: input)
        #expect(try answer(chosen.stdout).username == "me")
    }

    @Test func storeKeepsNothingUnknownOperationsAreIgnoredAndPlainHTTPGetsNoToken() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let entry = try await saveProfile(sandbox, "work")
        let offered = Array("protocol=https\nhost=example.com\nusername=x\npassword=offered-secret\n\n".utf8)
        for operation in ["store", "capability", "frobnicate"] {
            let result = try await helper(sandbox, ["git-credential", "--profile", "work", operation], input: offered)
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(operation): \(result)")
        }
        #expect(try sandbox.storedEntry("work") == entry)
        #expect(!(try String(contentsOfFile: sandbox.entryPath("work"), encoding: .utf8)).contains("offered-secret"))

        let plain = try await helper(
            sandbox, ["git-credential", "--profile", "work", "get"],
            input: Array("protocol=http\nhost=example.com\n\n".utf8))
        #expect(plain.status == 0)
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr.contains("webauth sends no token for http://example.com"))
    }

    @Test func eraseExpiresOnlyTheTokenGitNamesAndKeepsTheSignIn() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let entry = try await saveProfile(sandbox, "work")

        let older = try await helper(
            sandbox, ["git-credential", "--profile", "work", "--profile-for", "example.com", "erase"],
            input: Array("protocol=https\nhost=example.com\nusername=oauth2\npassword=an-older-token\n\n".utf8))
        #expect(older.status == 0)
        #expect(try sandbox.storedEntry("work") == entry, "an erase for another token changes nothing")

        let erase = try await helper(
            sandbox, ["git-credential", "--profile", "work", "--profile-for", "example.com", "erase"],
            input: Array(
                "protocol=https\nhost=example.com\nusername=oauth2\npassword=\(entry.tokens.accessToken)\n\n".utf8))
        #expect(erase.status == 0, "stderr: \(erase.stderr)")
        let after = try #require(try sandbox.storedEntry("work"))
        #expect(after.tokens.expiresAt.map { $0 <= Date() } == true, "marked expired")
        #expect(after.tokens.accessToken == entry.tokens.accessToken)
        #expect(after.tokens.refreshToken == entry.tokens.refreshToken, "not a sign-out")
        #expect(after.configuration == entry.configuration)

        // The next get must refresh; the provider here is down, so it says so and loses nothing.
        let down = try await helper(
            sandbox, ["git-credential", "--profile", "work", "--profile-for", "example.com", "get"],
            input: Array("protocol=https\nhost=example.com\n\n".utf8))
        #expect(down.status == ExitStatus.networkFailed, "stderr: \(down.stderr)")
        #expect(down.stdout.isEmpty)
        #expect(down.stderr.contains("cannot reach the provider"))
        #expect(!containsSecret(down.stderr, of: entry))
        #expect(try sandbox.storedEntry("work") == after)
    }

    // MARK: - Bad input and no sign-in

    @Test func badInputIsRefusedWithStatusSevenAndLosesNothing() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let entry = try await saveProfile(sandbox, "work")
        let cases: [(String, [UInt8], String)] = [
            ("malformed", Array("protocol=https\nhost example.com\n\n".utf8), "line 2 is not key=value"),
            ("NUL", Array("protocol=https\nhost=exa\u{0}mple.com\n\n".utf8), "line 2 holds a NUL byte"),
            (
                "over-long", Array(("protocol=https\npath=" + String(repeating: "a", count: 70_000) + "\n\n").utf8),
                "line 2 is longer than 64 KiB"
            ),
        ]
        for (name, input, said) in cases {
            for operation in ["get", "erase"] {
                let result = try await helper(
                    sandbox, ["git-credential", "--profile", "work", operation], input: input)
                #expect(result.status == ExitStatus.invalidInput, "\(name) \(operation)")
                #expect(result.stdout.isEmpty, "\(name) \(operation)")
                #expect(result.stderr.contains("git's input was not acceptable: \(said)"), "\(name): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
                #expect(!containsSecret(result.stderr, of: entry))
            }
        }
        #expect(try sandbox.storedEntry("work") == entry)
    }

    @Test func withoutASignInGitHearsNothingAndIsToldWhatToRun() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        let result = try await helper(
            sandbox, ["git-credential", "--profile", "nobody", "--profile-for", "example.com", "get"],
            input: Array("protocol=https\nhost=example.com\n\n".utf8))
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("git gets no credential from webauth: no profile \"nobody\" is signed in"))
        #expect(result.stderr.contains("webauth login --profile nobody"))
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")

        // Through git: with no helper answer and no prompting allowed, git fails cleanly.
        _ = try await sandbox.run(["git-credential", "setup", "example.com", "--profile", "nobody"])
        let fill = try await sandbox.git(["credential", "fill"], input: "protocol=https\nhost=example.com\n\n")
        #expect(fill.status != 0)
        #expect(fill.stderr.contains("no profile \"nobody\" is signed in"))
    }
}
