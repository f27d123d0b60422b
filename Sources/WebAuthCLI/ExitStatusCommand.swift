// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `webauth exit-status`: the table of exit statuses, which `webauth help exit-status` and the
/// manual page show too. It lives here rather than in `webauth --help`, which starts with the
/// usage and the subcommands.
struct ExitStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-status",
        abstract: "Print what each exit status of webauth means.",
        discussion: ExitStatus.helpText
    )

    func run() throws {
        CommandOutput(json: false).result(ExitStatus.helpText)
    }
}
