// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Argument rewriting the parser cannot express.
package enum CommandLineArguments {
    /// The default loopback callback path, used by a bare `--loopback`.
    package static let defaultLoopbackPath = "/callback"

    /// Rewrites a bare `--loopback` (an option whose value is optional) to
    /// `--loopback=/callback`, leaving `--loopback=PATH` and everything after `--` alone.
    package static func normalized(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var passThrough = false
        for argument in arguments {
            if passThrough {
                result.append(argument)
                continue
            }
            if argument == "--" { passThrough = true }
            result.append(argument == "--loopback" ? "--loopback=\(defaultLoopbackPath)" : argument)
        }
        return result
    }
}
