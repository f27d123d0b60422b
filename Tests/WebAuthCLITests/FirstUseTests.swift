// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCLI
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

// The C library's `stat` and the like, which this toolchain's Foundation declares through
// CoreFoundation and CDispatch: the modules that member-import visibility asks for.
#if canImport(CDispatch)
    import CDispatch
    import CoreFoundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The README's terminal lines, in order, as a person runs them on a fresh login where webauth
/// was just installed: an empty home, none of the XDG base directories set, no display, and a
/// runtime directory that is empty (as systemd-logind makes it) or missing. Each line is a
/// whole process run by `sh`, against ``EmbeddedProvider``; the agent's lines share one shell,
/// as `eval "$(webauth agent start)"` needs.
@Suite("A fresh login runs the README's terminal lines", TestFixture.git.required)
struct FirstUseTests {
    /// The host `git-credential setup` is run for.
    static let gitHost = "git.example.com"

    @Test(
        "With an empty runtime directory and no XDG base directories, each line works",
        .timeLimit(.minutes(3)))
    func withAnEmptyRuntimeDirectory() async throws {
        let login = try FreshLogin(withRuntimeDirectory: true)
        defer { login.remove() }
        let runtime = try #require(login.runtimeDirectory)
        try await Self.runTheREADME(in: login, agentSocket: runtime + "/webauth/agent.sock")
    }

    @Test(
        "With no runtime directory, each line works and the agent's socket is under TMPDIR",
        .timeLimit(.minutes(3)))
    func withoutARuntimeDirectory() async throws {
        let login = try FreshLogin(withRuntimeDirectory: false)
        defer { login.remove() }
        try await Self.runTheREADME(
            in: login, agentSocket: login.temporaryDirectory + "/webauth-\(geteuid())/agent.sock")
    }

    @Test("A named socket's directory is not made: agent start refuses it, saying why once")
    func aNamedSocketInAMissingDirectory() async throws {
        let login = try FreshLogin(withRuntimeDirectory: true)
        defer { login.remove() }
        let missing = login.root + "/missing"
        let started = try await login.run("WEBAUTH_AGENT_SOCK='\(missing)/agent.sock' webauth agent start")
        started.expectClean(status: ExitStatus.failure)
        #expect(started.stdout.isEmpty, "no export line: \(started)")
        #expect(
            started.stderr
                == "error: the agent cannot start: the directory of WEBAUTH_AGENT_SOCK (\(missing)) does not exist\n",
            "\(started)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// Runs the README's lines in `login`; the agent is expected to listen on `agentSocket`.
    static func runTheREADME(in login: FreshLogin, agentSocket: String) async throws {
        try await EmbeddedProvider.withCLIProvider { provider in
            // The README's line as it is: with no display, login takes the device flow, which
            // the provider approves at once.
            let signedIn = try await login.run((["webauth"] + provider.loginArguments()).joined(separator: " "))
            signedIn.expectClean(status: 0)
            #expect(signedIn.stderr.contains("No display here: signing in with the device flow"), "\(signedIn)")
            let entry = try #require(try login.storedEntry(), "login stored the profile under ~/.local/state")
            signedIn.expectNoSecret(of: entry)

            let token = try await login.run("webauth token")
            token.expectClean(status: 0)
            #expect(token.stdout == entry.tokens.accessToken + "\n", "\(token)")
            #expect(!containsSecret(token.stderr, of: entry), "\(token)")

            // The agent's lines, in one shell. The stored entry is moved away around
            // `webauth token`, so only the agent can answer it.
            let stored = login.entryPath
            let agent = try await login.run([
                #"eval "$(webauth agent start)""#,
                #"printf '%s' "$WEBAUTH_AGENT_SOCK""#,
                "webauth agent add default",
                "mv '\(stored)' '\(stored).aside'",
                "webauth token",
                "mv '\(stored).aside' '\(stored)'",
                "webauth agent status --json",
                "webauth agent stop",
            ])
            if FileManager.default.fileExists(atPath: agentSocket) {
                // A step failed and left the agent running: stop it before the provider goes.
                _ = try? await login.run("WEBAUTH_AGENT_SOCK='\(agentSocket)' webauth agent stop")
            }
            let (start, exported, added, agentToken) = (agent[0], agent[1], agent[2], agent[4])
            let (status, stopped) = (agent[6], agent[7])
            // `eval` exits 0 whatever `agent start` did: that it worked shows in what it said and
            // in the variable it set.
            start.expectClean(status: 0)
            #expect(start.stderr.isEmpty, "\(start)")
            #expect(exported.stdout == agentSocket, "the export line names the default socket: \(exported)")
            #expect(
                login.mode(of: (agentSocket as NSString).deletingLastPathComponent) == 0o700,
                "the agent made its socket's directory, private")
            added.expectClean(status: 0)
            agentToken.expectClean(status: 0)
            #expect(agentToken.stdout == entry.tokens.accessToken + "\n", "the agent answered: \(agentToken)")
            #expect(!containsSecret(agentToken.stderr, of: entry), "\(agentToken)")
            status.expectClean(status: 0)
            #expect(status.stdout.contains(#""name":"default""#), "\(status)")
            #expect(status.stdout.contains(#""source":"store""#), "\(status)")
            stopped.expectClean(status: 0)
            for (index, step) in agent.enumerated() where index != 4 { step.expectNoSecret(of: entry) }
            #expect(
                await eventually(within: .seconds(10)) { !FileManager.default.fileExists(atPath: agentSocket) },
                "the stopped agent removed its socket")

            let setup = try await login.run("webauth git-credential setup \(Self.gitHost)")
            setup.expectClean(status: 0)
            setup.expectNoSecret(of: entry)
            #expect(
                FileManager.default.fileExists(atPath: login.home + "/.gitconfig"), "setup wrote ~/.gitconfig")
            let fill = try await login.run(
                "git credential fill", input: "protocol=https\nhost=\(Self.gitHost)\n\n")
            fill.expectClean(status: 0)
            #expect(fill.stdout.contains("password=\(entry.tokens.accessToken)\n"), "\(fill)")
            #expect(!containsSecret(fill.stderr, of: entry), "\(fill)")
            if let refreshToken = entry.tokens.refreshToken {
                #expect(!fill.stdout.contains(refreshToken), "the refresh token never goes to git")
            }

            let execInfo = ExecCredentialProcessTests.execInfo(ExecCredentialProcessTests.v1)
            let credential = try await login.run("KUBERNETES_EXEC_INFO='\(execInfo)' webauth exec-credential")
            credential.expectClean(status: 0)
            let object = try jsonObject(credential.stdout)
            #expect(object["kind"] as? String == "ExecCredential")
            let credentialStatus = try #require(object["status"] as? [String: Any], "\(credential)")
            #expect(credentialStatus["token"] as? String == entry.tokens.idToken, "the ID token, by default")
            #expect(!containsSecret(credential.stderr, of: entry), "\(credential)")

            let logout = try await login.run("webauth logout")
            logout.expectClean(status: 0)
            logout.expectNoSecret(of: entry)
            #expect(try login.storedEntry() == nil, "logout removed the stored profile")
            let after = try await login.run("webauth token")
            after.expectClean(status: ExitStatus.notSignedIn)
            after.expectNoSecret(of: entry)
        }
    }
}

/// A fresh login with webauth installed: an empty `HOME`, no display, `PATH` the built programs'
/// directory and `/usr/bin:/bin`, the XDG base directories not set (or set to empty
/// directories), and a runtime directory that is empty and 0700 (as systemd-logind makes it) or
/// not set at all. `TMPDIR` is a private directory of its own, so that no other test's sockets
/// meet this one's. Removed by ``remove()``.
struct FreshLogin {
    /// The directory holding all of it.
    let root: String
    /// `HOME`: an empty directory.
    let home: String
    /// `XDG_RUNTIME_DIR`, when set.
    let runtimeDirectory: String?
    /// `TMPDIR`.
    let temporaryDirectory: String
    /// `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME` and `XDG_CACHE_HOME`, when set.
    let baseDirectories: [String: String]
    /// More variables, set over the ones above (a `PATH` with more directories, say).
    var extraEnvironment: [String: String] = [:]

    /// A fresh login; with `withBaseDirectories`, the XDG base directories are set, each to an
    /// empty directory of its own.
    init(withRuntimeDirectory: Bool, withBaseDirectories: Bool = false) throws {
        var template = Array("/tmp/webauth-first-use-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CLITestError("mkdtemp failed") }
        root = String(cString: made)
        home = root + "/home"
        temporaryDirectory = root + "/tmp"
        runtimeDirectory = withRuntimeDirectory ? root + "/run" : nil
        let root = self.root
        baseDirectories =
            withBaseDirectories
            ? Dictionary(
                uniqueKeysWithValues: ["config", "data", "state", "cache"].map {
                    ("XDG_\($0.uppercased())_HOME", root + "/" + $0)
                }) : [:]
        let directories = [home, temporaryDirectory] + (runtimeDirectory.map { [$0] } ?? []) + baseDirectories.values
        for directory in directories {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            guard chmod(directory, 0o700) == 0 else { throw CLITestError("cannot make \(directory) private") }
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// The whole environment: nothing of the test process's is passed on. git's system
    /// configuration is left out, so its global one is `~/.gitconfig` alone.
    var environment: [String: String] {
        var environment = [
            "HOME": home, "TMPDIR": temporaryDirectory,
            "PATH": CLIProcess.executable.deletingLastPathComponent().path + ":/usr/bin:/bin",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
        ]
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        return environment.merging(baseDirectories) { $1 }.merging(extraEnvironment) { $1 }
    }

    /// Runs `lines` one after another in one `shell` (`sh` unless given), in ``environment``
    /// alone, `input` on its standard input; what each line wrote and its exit status are kept
    /// apart.
    func run(_ lines: [String], input: String? = nil, shell: String = "/bin/sh") async throws -> [ShellStep] {
        let steps = root + "/steps-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: steps, withIntermediateDirectories: false)
        let script = lines.indices.map { index in
            "{ \(lines[index])\n} >'\(steps)/\(index).out' 2>'\(steps)/\(index).err'; echo $? >'\(steps)/\(index).status'"
        }.joined(separator: "\n")
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let process = try CLIProcess(
            ["-i"] + assignments + [shell, "-c", script], keepStandardInputOpen: input != nil,
            executable: "/usr/bin/env")
        if let input { process.finishInput(Array(input.utf8)) }
        let status = try await process.waitForExit(timeout: .seconds(120))
        guard status == 0 else {
            throw CLITestError("\(shell) exited \(status): \(process.standardOutput) \(process.standardError)")
        }
        return try lines.indices.map { index in
            func read(_ name: String) throws -> String {
                try String(contentsOfFile: "\(steps)/\(index).\(name)", encoding: .utf8)
            }
            let code = try read("status").trimmingCharacters(in: .whitespacesAndNewlines)
            guard let code = Int32(code) else { throw CLITestError("no exit status for `\(lines[index])`") }
            return ShellStep(line: lines[index], status: code, stdout: try read("out"), stderr: try read("err"))
        }
    }

    /// Runs the one line `line` in `shell`, as the lines above are run.
    func run(_ line: String, input: String? = nil, shell: String = "/bin/sh") async throws -> ShellStep {
        try await run([line], input: input, shell: shell)[0]
    }

    /// The file the file store keeps the default profile in, with no XDG_STATE_HOME.
    var entryPath: String { home + "/.local/state/webauth/tokens/default.json" }

    /// The default profile's entry, read straight from its file.
    func storedEntry() throws -> StoredTokens? {
        guard let data = FileManager.default.contents(atPath: entryPath) else { return nil }
        return try StoredTokens.decode(data, profile: "default", location: entryPath)
    }

    /// The permission bits of `path`.
    func mode(of path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}

/// One line run in a ``FreshLogin``'s shell: how it ended and what it wrote.
struct ShellStep: CustomStringConvertible {
    let line: String
    let status: Int32
    let stdout: String
    let stderr: String

    var description: String { "`\(line)` exited \(status); stdout: \(stdout); stderr: \(stderr)" }

    /// Expects the line to have exited with `status`, saying no error twice.
    func expectClean(status expected: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == expected, "\(self)", sourceLocation: sourceLocation)
        #expect(!(stdout + stderr).contains("error: error:"), "\(self)", sourceLocation: sourceLocation)
    }

    /// Expects none of `entry`'s secrets in anything the line wrote.
    func expectNoSecret(of entry: StoredTokens, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            !containsSecret(stdout + stderr, of: entry), "`\(line)` printed a token", sourceLocation: sourceLocation)
    }
}
