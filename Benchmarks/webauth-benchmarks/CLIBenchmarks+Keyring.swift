// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthTestSupport
import WebAuthTokenStore

extension CLIBenchmarks {
    /// The cached-token commands with the entry in a desktop keyring — a private session bus with
    /// an unlocked gnome-keyring-daemon, the profile index naming the keyring, as `webauth login`
    /// leaves it — and `secret-tool lookup` of the item alone, which the keyring store runs.
    /// `nil` when dbus, gnome-keyring or secret-tool is not installed.
    static func keyringTokenCommands(webauth: String) async throws -> [(label: String, figures: ProcessFigures)]? {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let secretTool = executable(named: "secret-tool", in: searchPath),
            executable(named: "gnome-keyring-daemon", in: searchPath) != nil,
            executable(named: "dbus-run-session", in: searchPath) != nil
        else { return nil }
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let keyring = try await PrivateKeyring.start(in: home)
        var results: [(String, ProcessFigures)] = []
        do {
            var environment = keyring.environment
            environment["PATH"] = searchPath
            let stores = TokenStores(selection: .keyring, environment: environment)
            try await stores.save(benchmarkEntry(), profile: "default")
            try await stores.index.recordGitHost("example.com", for: "default")
            func webauthCommand(_ label: String, _ arguments: [String], input: String? = nil, fastPath: Bool = true)
                -> TimedCommand
            {
                var environment = environment
                if !fastPath { environment["WEBAUTH_FAST_PATH"] = "0" }
                return TimedCommand(
                    label: label, executable: webauth, arguments: arguments, environment: environment, input: input,
                    expectedOutput: { $0.contains("benchmark-access-token") })
            }
            for command in [
                webauthCommand("webauth token, keyring (index)", ["token"]),
                webauthCommand(
                    "webauth git-credential get, keyring (index)", ["git-credential", "get"],
                    input: "protocol=https\nhost=example.com\n\n"),
                webauthCommand("webauth token, keyring, fast path off", ["token"], fastPath: false),
                TimedCommand(
                    label: "secret-tool lookup alone (what the store runs)", executable: secretTool,
                    arguments: ["lookup", "service", "webauth", "profile", "default"], environment: environment,
                    expectedOutput: { $0.contains("benchmark-access-token") }),
            ] {
                results.append((command.label, try measure(command, runs: 50)))
            }
        } catch {
            // The daemon's own words, before its home goes.
            let failure = BenchmarkFailure("\(error)\n\(keyring.logs)")
            await keyring.stop()
            throw failure
        }
        await keyring.stop()
        return results
    }
}
