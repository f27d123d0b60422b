import ArgumentParser
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

    /// Runs the command with this process's arguments, normalising `--loopback` without a
    /// value first (see ``CommandLineArguments/normalized(_:)``).
    package static func runFromCommandLine() async {
        let arguments = CommandLineArguments.normalized(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(arguments)
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
