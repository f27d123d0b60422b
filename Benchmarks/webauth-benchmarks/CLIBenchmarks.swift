// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthOAuth
import WebAuthProcess
import WebAuthTokenFiles
import WebAuthTokenStore

/// Figures for the `webauth` program itself, run as a person or a script runs it: the program
/// built next to this one (`swift build -c release` builds both).
enum CLIBenchmarks {
    /// The `webauth` executable to measure, if it has been built: the one in the directory
    /// `WEBAUTH_BENCHMARK_PROGRAMS` names (the packages' programs, say, which carry the Swift
    /// runtime), else the one beside this benchmark.
    static func webauthExecutable() -> String? {
        let directory =
            ProcessInfo.processInfo.environment["WEBAUTH_BENCHMARK_PROGRAMS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        let path = directory + "/webauth"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// One command run as a process: wall time per call and the median peak resident set size
    /// of a call as GNU time reports it (`nil` without `/usr/bin/time`).
    struct ProcessFigures {
        var wall = Figures()
        var peakKiB: Int?
    }

    /// A command to time: what runs, with which input, and the output that proves it worked.
    struct TimedCommand: Sendable {
        var label: String
        var executable: String
        var arguments: [String]
        var environment: [String: String]
        var input: String?
        var expectedOutput: @Sendable (String) -> Bool
    }

    /// Runs `command` `runs` times (after five warm-up runs) for the wall time, then `memoryRuns`
    /// times under GNU time for the peak memory: a child started by this (large) process would
    /// report this process's peak, not its own.
    static func measure(_ command: TimedCommand, runs: Int = 100, memoryRuns: Int = 10) throws -> ProcessFigures {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let inputPath = home + "/input"
        if let input = command.input {
            guard FileManager.default.createFile(atPath: inputPath, contents: Data(input.utf8)) else {
                throw BenchmarkFailure("cannot write \(inputPath)")
            }
        }
        func run(_ executable: String, _ arguments: [String]) throws -> Subprocess.Completion {
            var descriptor: Int32 = -1
            if command.input != nil {
                descriptor = open(inputPath, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw BenchmarkFailure("cannot open \(inputPath)") }
            }
            defer { if descriptor >= 0 { close(descriptor) } }
            return try Subprocess.runToCompletion(
                executable, arguments, environment: command.environment,
                standardInput: descriptor >= 0 ? .descriptor(descriptor) : .null)
        }

        var figures = ProcessFigures()
        for index in 0..<(runs + 5) {
            let started = ContinuousClock.now
            let completion = try run(command.executable, command.arguments)
            let elapsed = ContinuousClock.now - started
            guard Subprocess.exitCode(of: completion.status) == 0, command.expectedOutput(completion.standardOutput)
            else {
                throw BenchmarkFailure("\(command.label) failed: \(completion.standardError)")
            }
            if index >= 5 { figures.wall.add(elapsed) }  // the first runs warm the page cache
        }
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { return figures }
        var peaks: [Int] = []
        for _ in 0..<memoryRuns {
            let report = home + "/time"
            let completion = try run(time, ["-f", "%M", "-o", report, command.executable] + command.arguments)
            guard Subprocess.exitCode(of: completion.status) == 0,
                let text = try? String(contentsOfFile: report, encoding: .utf8),
                let kib = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw BenchmarkFailure("\(command.label) under GNU time failed: \(completion.standardError)") }
            peaks.append(kib)
        }
        figures.peakKiB = peaks.sorted()[peaks.count / 2]
        return figures
    }

    /// The column heads of a figures table, above its rows' labels.
    static let header = "".padding(toLength: 52, withPad: " ", startingAt: 0) + "   median      p90      p99      max"

    /// Prints `title`, a header, and one row per command (wall-time figures and peak memory, or
    /// "not installed"); returns each measured command's median, by label.
    static func printTable(_ title: String, _ commands: [(label: String, figures: ProcessFigures?)]) -> [String: Double]
    {
        print(title)
        print(header + "  peak MiB")
        for (label, figures) in commands {
            guard let figures else {
                print(label.padding(toLength: 52, withPad: " ", startingAt: 0) + " not installed")
                continue
            }
            let peak = figures.peakKiB.map { String(format: "%9.1f", Double($0) / 1024) } ?? "  (no GNU time)"
            print(figures.wall.line(label) + peak)
        }
        return Dictionary(
            commands.compactMap { entry in entry.figures.map { (entry.label, $0.wall.median) } },
            uniquingKeysWith: { a, _ in a })
    }

    /// The cached-token commands of `webauth`, each with a valid token in a file store: `token`,
    /// `git-credential get` (bare, and as setup's helper line with sign-in options) and
    /// `exec-credential` (answered by the fast path), and `token` again
    /// with the fast path turned off (the full program's figure); then what others take for the
    /// same job — `gh auth token` and Python's google-auth reading an authorized-user file, when
    /// installed — and `cat` of the entry, the floor.
    static func cachedTokenCommands(webauth: String) async throws -> [(label: String, figures: ProcessFigures?)] {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = [
            "XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config", "HOME": home,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "KUBERNETES_EXEC_INFO":
                #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#,
        ]
        // Saved as `webauth login` saves it: the entry, and the index naming the file store; the
        // host recorded as `webauth git-credential setup example.com` records it.
        let stores = TokenStores(selection: .file, environment: environment)
        try await stores.save(benchmarkEntry(), profile: "default")
        try await stores.index.recordGitHost("example.com", for: "default")

        func webauthCommand(
            _ label: String, _ arguments: [String], input: String? = nil, fastPath: Bool = true,
            expecting expected: String
        ) -> TimedCommand {
            var environment = environment
            if !fastPath { environment["WEBAUTH_FAST_PATH"] = "0" }
            return TimedCommand(
                label: label, executable: webauth, arguments: arguments, environment: environment, input: input,
                expectedOutput: { $0.contains(expected) })
        }
        var results: [(String, ProcessFigures?)] = []
        for command in [
            webauthCommand("webauth token", ["token"], expecting: "benchmark-access-token\n"),
            webauthCommand(
                "webauth git-credential get", ["git-credential", "get"], input: "protocol=https\nhost=example.com\n\n",
                expecting: "password=benchmark-access-token\n"),
            webauthCommand("webauth exec-credential", ["exec-credential"], expecting: "benchmark.id.token"),
            webauthCommand(
                "webauth git-credential get, setup's helper line", gitHelperLine,
                input: "protocol=https\nhost=example.com\n\n", expecting: "password=benchmark-access-token\n"),
            webauthCommand(
                "webauth token, fast path off (the full program)", ["token"], fastPath: false,
                expecting: "benchmark-access-token\n"),
        ] {
            results.append((command.label, try measure(command)))
        }

        // gh, with the token in its own configuration file (no keyring, no network).
        let ghLabel = "gh auth token (GitHub CLI)"
        if let gh = executable(named: "gh", in: environment["PATH"]) {
            let ghConfig = home + "/gh"
            try FileManager.default.createDirectory(atPath: ghConfig, withIntermediateDirectories: true)
            try "github.com:\n    oauth_token: gho_benchmarkAccessToken\n    user: bench\n    git_protocol: https\n"
                .write(toFile: ghConfig + "/hosts.yml", atomically: true, encoding: .utf8)
            var ghEnvironment = environment
            ghEnvironment["GH_CONFIG_DIR"] = ghConfig
            ghEnvironment["GH_NO_UPDATE_NOTIFIER"] = "1"
            results.append(
                (
                    ghLabel,
                    try measure(
                        TimedCommand(
                            label: ghLabel, executable: gh, arguments: ["auth", "token"], environment: ghEnvironment,
                            expectedOutput: { $0 == "gho_benchmarkAccessToken\n" }))
                ))
        } else {
            results.append((ghLabel, nil))
        }

        // Python's google-auth, reading an authorized-user file (what gcloud-style tools keep).
        let pythonLabel = "Python google-auth, authorized-user file"
        let python = ProcessInfo.processInfo.environment["WEBAUTH_BENCHMARK_PYTHON"] ?? "python3"
        let pythonPath = python.hasPrefix("/") ? python : executable(named: python, in: environment["PATH"])
        let authorizedUser = home + "/authorized_user.json"
        try
            #"{"type":"authorized_user","client_id":"benchmark","client_secret":"s","refresh_token":"benchmark-refresh-token","token":"benchmark-access-token"}"#
            .write(toFile: authorizedUser, atomically: true, encoding: .utf8)
        let script =
            "import sys; from google.oauth2.credentials import Credentials; "
            + "print(Credentials.from_authorized_user_file(sys.argv[1]).token)"
        if let pythonPath,
            Subprocess.exitCode(
                of: (try? Subprocess.runToCompletion(
                    pythonPath, ["-c", "import google.oauth2.credentials"], environment: environment))?.status ?? 1)
                == 0
        {
            results.append(
                (
                    pythonLabel,
                    try measure(
                        TimedCommand(
                            label: pythonLabel, executable: pythonPath, arguments: ["-c", script, authorizedUser],
                            environment: environment, expectedOutput: { $0 == "benchmark-access-token\n" }))
                ))
        } else {
            results.append((pythonLabel, nil))
        }

        let entry = TokenFileLayout(environment: environment).entryPath(profile: "default")
        results.append(
            (
                "cat of the entry (the floor)",
                try measure(
                    TimedCommand(
                        label: "cat", executable: "/bin/cat", arguments: [entry], environment: environment,
                        expectedOutput: { $0.contains("benchmark-access-token") }))
            ))
        return results
    }

    /// A valid entry, fresh for a day, as `webauth login` saves it.
    static func benchmarkEntry() -> StoredTokens {
        let now = Date()
        let claims = IDTokenClaims(
            issuer: "https://id.example.com", subject: "bench", audience: ["benchmark"],
            expiresAt: now.addingTimeInterval(24 * 3600), issuedAt: now)
        let tokens = TokenSet(
            accessToken: "benchmark-access-token", refreshToken: "benchmark-refresh-token",
            idToken: "benchmark.id.token", idTokenClaims: claims, expiresAt: now.addingTimeInterval(24 * 3600),
            scopes: ["openid", "profile"])
        let configuration = ClientConfiguration(
            issuer: URL(string: "https://id.example.com"), clientID: "benchmark", scopes: ["openid", "profile"])
        return StoredTokens(tokens: tokens, configuration: configuration)
    }

    /// What git runs for a helper line `webauth git-credential setup` wrote with sign-in options.
    static let gitHelperLine = [
        "git-credential", "--profile", "default", "--issuer", "https://id.example.com", "--client-id", "benchmark",
        "--scope", "openid profile", "get",
    ]

    /// The first executable `name` on `searchPath`.
    static func executable(named name: String, in searchPath: String?) -> String? {
        for directory in (searchPath ?? "/usr/bin:/bin").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// `webauth demo --no-browser --json` end to end, split by the steps it reports.
    static func demo(webauth: String, runs: Int = 10) async throws -> (steps: [(String, Figures)], total: Figures) {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = home + "/state"
        environment["XDG_CONFIG_HOME"] = home + "/config"

        var order: [String] = []
        var steps: [String: Figures] = [:]
        var total = Figures()
        for _ in 0..<runs {
            let started = ContinuousClock.now
            let completion = try Subprocess.runToCompletion(
                webauth, ["demo", "--no-browser", "--json"], environment: environment)
            total.add(ContinuousClock.now - started)
            guard Subprocess.exitCode(of: completion.status) == 0,
                let report = try? JSONDecoder().decode(DemoReport.self, from: Data(completion.standardOutput.utf8))
            else {
                throw BenchmarkFailure("webauth demo failed: \(completion.standardError)")
            }
            for step in report.steps {
                if steps[step.step] == nil { order.append(step.step) }
                steps[step.step, default: Figures()].add(.microseconds(Int64(step.milliseconds * 1000)))
            }
        }
        return (order.map { ($0, steps[$0] ?? Figures()) }, total)
    }

    /// What `webauth demo --json` prints (the part read here).
    struct DemoReport: Decodable {
        struct Step: Decodable {
            var step: String
            var milliseconds: Double
        }
        var steps: [Step]
    }

    /// A new private directory under the temporary directory, for one benchmark's files.
    static func temporaryDirectory() throws -> String {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("webauth-bench-XXXXXX")
        var template = Array(temporary.path.utf8CString)
        guard let path = mkdtemp(&template) else { throw BenchmarkFailure("mkdtemp failed") }
        return String(cString: path)
    }
}

/// A benchmark that could not measure what it meant to.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
