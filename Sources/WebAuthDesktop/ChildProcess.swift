// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

/// Runs a short-lived program directly (never through a shell) and collects its output.
enum ChildProcess {
    struct Result: Sendable {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs `executable` with `arguments` and exactly `environment`, with standard input from
    /// `/dev/null`, and waits for it. Blocks the calling thread; meant for quick tools such as
    /// `xdg-mime`. The program inherits no descriptor of ours (see `Subprocess`).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Result {
        let completion = try Subprocess.runToCompletion(executable, arguments, environment: environment)
        return Result(
            status: Subprocess.exitCode(of: completion.status) ?? -1, standardOutput: completion.standardOutput,
            standardError: completion.standardError)
    }
}
