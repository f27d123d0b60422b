// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import ArgumentParser
import Foundation
import WebAuth

/// The `webauth` command: sign in to web services from a terminal.
package struct WebAuthCommand: AsyncParsableCommand {
    /// The command's name, abstract, version (`--version`: the version and the commit it was
    /// built from) and subcommands. `--help` shows the usage and the subcommands at once; the
    /// exit statuses are `webauth help exit-status` (and in the manual page).
    package static let configuration = CommandConfiguration(
        commandName: "webauth",
        abstract: "Sign in to web services through a real browser, from a terminal.",
        version: BuildInformation.versionLine(),
        subcommands: [
            LoginCommand.self, TokenCommand.self, StatusCommand.self, LogoutCommand.self, OpenCommand.self,
            ExecCredentialCommand.self, RequestCommand.self, ExchangeCommand.self,
            SchemeCommand.self, BrowserCommand.self, DemoCommand.self,
            GitCredentialCommand.self, AgentCommand.self, ExitStatusCommand.self,
        ]
    )

    /// Creates the command (argument parsing does this).
    package init() {}

    /// Prints `mistake` and `usage` as the parser prints its errors, and exits with status 64.
    private static func reportMistake(_ mistake: String, usage: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(mistake)\n\(usage)\n".utf8))
        Foundation.exit(ExitStatus.usage)
    }

    /// Runs the command with this process's arguments, normalising `--loopback` without a
    /// value first (see ``CommandLineArguments/normalized(_:)``).
    package static func runFromCommandLine() async {
        await runFromCommandLine(arguments: Array(CommandLine.arguments.dropFirst()))
    }

    /// Runs the command with `arguments` (the program name left out), as
    /// ``runFromCommandLine()`` does with this process's.
    static func runFromCommandLine(arguments: [String]) async {
        // `--version` alone, as the parser would answer it, before the parser's first use: its
        // type and conformance lookups cost more than the rest of the answer.
        if arguments == ["--version"] {
            print(BuildInformation.versionLine())
            return
        }
        let arguments = CommandLineArguments.normalized(arguments)
        if arguments.first == "help", let mistake = CommandLineMistakes.unknownCommand(in: arguments) {
            reportMistake(mistake, usage: "  See 'webauth --help' for more information.")
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            // The parser checks the rules of a command's known options before it looks for
            // unknown ones, and names a misspelt command only as an unexpected argument.
            let message = message(for: error)
            if exitCode(for: error) != .success, !message.hasPrefix("Unknown option"),
                let mistake = CommandLineMistakes.unknownCommand(in: arguments)
                    ?? CommandLineMistakes.knownOptions(for: arguments).flatMap({
                        CommandLineMistakes.unknownOption(in: arguments, known: $0)
                    })
            {
                let usage = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
                reportMistake(mistake, usage: usage.joined(separator: "\n"))
            }
            exit(withError: error)
        }
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
