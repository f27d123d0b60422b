// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthPlatform
import WebAuthProcess

/// A whole sign-in's CPU, as the person signing in pays for it: `webauth login` from an empty
/// home, beside google-auth-oauthlib's `InstalledAppFlow.run_local_server` (what a Python
/// command-line tool writes for the same job). Both sign in to the embedded provider on
/// loopback, as one confidential client with the same scopes, and both open the browser
/// through `$BROWSER`: a two-line script that hands the address to this process, where the
/// scripted person signs in and follows the redirect to the program's loopback listener. The
/// figure is the program's CPU (user and system, from `wait4`, with the browser script it
/// waits for); the provider and the person run here and are not counted. The runs alternate,
/// so that the machine's load falls on both alike.
enum LoginBenchmarks {
    static let clientID = "benchmark-cli"
    /// The confidential client's secret: google-auth-oauthlib sends one; `webauth login` reads
    /// it from `WEBAUTH_CLIENT_SECRET`. A throwaway for a provider that lives for one run.
    static let clientSecret = "benchmark-client-secret"
    static let scopes = ["openid", "profile", "email", "offline_access"]
    static let webauthLabel = "webauth login"
    static let pythonLabel = "google-auth-oauthlib run_local_server"

    /// The Python program: one sign-in with google-auth-oauthlib's installed-app flow, which
    /// opens `$BROWSER` through Python's `webbrowser` and waits for the redirect on
    /// `127.0.0.1`. It prints `signed in` when it holds an access and a refresh token.
    static let pythonSignIn = """
        import sys
        from google_auth_oauthlib.flow import InstalledAppFlow
        authorize, token, client_id, scopes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
        secret = sys.stdin.readline().strip()
        flow = InstalledAppFlow.from_client_config(
            {"installed": {"client_id": client_id, "client_secret": secret, "auth_uri": authorize, "token_uri": token}},
            scopes=scopes)
        credentials = flow.run_local_server(
            host="127.0.0.1", port=0, open_browser=True, authorization_prompt_message="", success_message="Signed in.")
        print("signed in" if credentials.token and credentials.refresh_token else "no tokens")
        """

    /// Prints each program's CPU and wall time per sign-in, and the ratio of the CPU medians
    /// against the target (at most a tenth of google-auth-oauthlib's).
    static func printFigures(webauth: String, runs: Int = 15) async throws {
        let directory = try CLIBenchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let browser = directory + "/browser"
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" > \"$WEBAUTH_BENCHMARK_ADDRESSES\"\n"
            .write(toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o700)
        let python = ProcessInfo.processInfo.environment["WEBAUTH_BENCHMARK_PYTHON"] ?? "python3"
        let pythonPath = python.hasPrefix("/") ? python : CLIBenchmarks.executable(named: python, in: searchPath)
        let hasOAuthlib =
            try pythonPath.map {
                Subprocess.exitCode(
                    of: try Subprocess.runToCompletion($0, ["-c", "import google_auth_oauthlib"], environment: [:])
                        .status)
                    == 0
            } ?? false

        let client = EmbeddedProvider.Client(
            id: clientID, secret: clientSecret, name: "benchmark",
            redirectURIs: [URL(string: "http://127.0.0.1/callback")!, URL(string: "http://127.0.0.1/")!])
        try await EmbeddedProvider.withProvider(EmbeddedProvider.Configuration(clients: [client])) { provider in
            var programs = [(webauthLabel, webauthCommand(webauth, provider: provider, browser: browser))]
            if hasOAuthlib, let pythonPath {
                programs.append((pythonLabel, pythonCommand(pythonPath, provider: provider, browser: browser)))
            }
            var cpu = Array(repeating: Figures(), count: programs.count)
            var wall = Array(repeating: Figures(), count: programs.count)
            for round in -2..<runs {  // two rounds to warm the provider and the page cache
                for offset in programs.indices {
                    let index = (max(round, 0) + offset) % programs.count
                    let home = directory + "/home-\(round + 2)-\(index)"
                    let (elapsed, used) = try await signIn(programs[index].1, home: home)
                    if round >= 0 {
                        wall[index].add(elapsed)
                        cpu[index].add(used)
                    }
                }
            }
            print("a whole sign-in, one process from start to exit (milliseconds; CPU: user + system, from wait4)")
            print("".padding(toLength: 52, withPad: " ", startingAt: 0) + "   median      p90      p99      max")
            for index in programs.indices {
                print(cpu[index].line("\(programs[index].0), CPU"))
                print(wall[index].line("\(programs[index].0), wall"))
            }
            if programs.count > 1 {
                let ratio = cpu[0].median / cpu[1].median
                let met = ratio <= 0.1
                print(
                    String(format: "webauth login ÷ google-auth-oauthlib, CPU: %.3f× (target ≤ 0.10×)", ratio)
                        + (met ? "" : String(format: ", MISSED by %.0f%%", (ratio / 0.1 - 1) * 100)))
            } else {
                print(
                    "\(pythonLabel): not installed (WEBAUTH_BENCHMARK_PYTHON names a Python with google-auth-oauthlib)")
            }
            print("")
        }
    }

    static var searchPath: String { ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin" }

    /// `webauth login` as the README has a person run it, with the secret from the environment.
    static func webauthCommand(_ webauth: String, provider: EmbeddedProvider, browser: String)
        -> CLIBenchmarks.TimedCommand
    {
        CLIBenchmarks.TimedCommand(
            label: webauthLabel, executable: webauth,
            arguments: ["login", "--issuer", provider.issuer.absoluteString, "--client-id", clientID]
                + scopes.flatMap { ["--scope", $0] },
            environment: ["PATH": searchPath, "BROWSER": browser, "WEBAUTH_CLIENT_SECRET": clientSecret],
            input: nil, expectedOutput: { _ in true })
    }

    /// The Python program, given the provider's endpoints (it reads no discovery document), the
    /// secret on standard input.
    static func pythonCommand(_ python: String, provider: EmbeddedProvider, browser: String)
        -> CLIBenchmarks.TimedCommand
    {
        CLIBenchmarks.TimedCommand(
            label: pythonLabel, executable: python,
            arguments: [
                "-c", pythonSignIn, provider.url(.authorization).absoluteString, provider.url(.token).absoluteString,
                clientID, scopes.joined(separator: " "),
            ],
            // oauthlib refuses plain HTTP unless told that this is a test on loopback.
            environment: ["PATH": searchPath, "BROWSER": browser, "OAUTHLIB_INSECURE_TRANSPORT": "1"],
            input: clientSecret + "\n", expectedOutput: { $0 == "signed in\n" })
    }

    /// One sign-in by `command` from the empty home `home`: the program started, the address it
    /// opens read from the pipe its browser writes to, the person's part played here, and the
    /// program waited for. Its wall and CPU time.
    static func signIn(_ command: CLIBenchmarks.TimedCommand, home: String) async throws -> (Duration, Duration) {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let addresses = home + "/addresses"
        guard mkfifo(addresses, 0o600) == 0 else { throw BenchmarkFailure("mkfifo \(addresses) failed") }
        var command = command
        command.environment["HOME"] = home
        command.environment["WEBAUTH_BENCHMARK_ADDRESSES"] = addresses
        let input = home + "/input"
        try (command.input ?? "").write(toFile: input, atomically: true, encoding: .utf8)
        let output = open(home + "/output", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw BenchmarkFailure("cannot open an output file in \(home)") }
        defer { close(output) }
        let child = try FloorBenchmarks.start(
            command, output: output, errorPath: home + "/standard-error", input: input)
        let started = command
        return try await withThrowingTaskGroup(of: (Duration, Duration)?.self) { group in
            group.addTask {
                guard let line = await firstLine(of: addresses), let address = URL(string: line) else { return nil }
                let redirect = try await ScriptedUserAgent().redirectAddress(from: address)
                guard let port = redirect.port else { throw BenchmarkFailure("the redirect has no port") }
                let target = redirect.path + (redirect.query.map { "?" + $0 } ?? "")
                let back = try await RawHTTPClient.get(port: port, target: target)
                guard back.status == 200 else {
                    throw BenchmarkFailure("\(started.label): the loopback listener answered \(back.status)")
                }
                return nil
            }
            group.addTask {
                do {
                    return try await onThread { try FloorBenchmarks.finish(child, started) }
                } catch {
                    let errors = (try? String(contentsOfFile: home + "/standard-error", encoding: .utf8)) ?? ""
                    throw BenchmarkFailure("\(error)\n\(errors)")
                }
            }
            var figures: (Duration, Duration)?
            while let result = try await group.next() {
                if let result {
                    figures = result
                    group.cancelAll()  // the pipe's reader, if the program never opened a browser
                }
            }
            guard let figures else { throw BenchmarkFailure("\(started.label) did not finish") }
            return figures
        }
    }

    /// The first line written to the pipe at `path`, read on a thread of its own; `nil` when
    /// the task is cancelled first (an empty line is written to wake the reader).
    static func firstLine(of path: String) async -> String? {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)  // read-write: never blocks, never sees EOF
        guard descriptor >= 0 else { return nil }
        return await withTaskCancellationHandler {
            let line: String = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var bytes: [UInt8] = []
                    var byte: UInt8 = 0
                    while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
                    close(descriptor)
                    continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
                }
            }
            return line.isEmpty ? nil : line
        } onCancel: {
            let writer = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if writer >= 0 {
                _ = write(writer, "\n", 1)
                close(writer)
            }
        }
    }

    /// `work`'s result, run on a thread of its own (a blocking `wait4` keeps no task's thread).
    static func onThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}
