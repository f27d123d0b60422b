// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import Logging
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthPlatform
import WebAuthProcess
import WebAuthTokenStore

/// `webauth agent`: one process that holds sign-ins in memory, refreshes them ahead of expiry,
/// and serves tokens to every program of this user over a Unix socket.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Hold sign-ins in one process that refreshes ahead of time and serves tokens over a socket.",
        discussion: """
            The agent listens on $WEBAUTH_AGENT_SOCK, else $XDG_RUNTIME_DIR/webauth/agent.sock; \
            only this user (and root) is served. `webauth token`, `git-credential get`, \
            `exec-credential` and `request` ask it first, and fall back to the store when it \
            does not hold the profile:

              eval "$(webauth agent start)"
              webauth agent add work
              webauth token --profile work

            `webauth token --audience` and `--resource` ask it too: the agent exchanges the \
            profile's token at the provider and keeps the result in its memory.

            Beside its socket the agent serves a forwarding socket ($WEBAUTH_AGENT_FORWARD_SOCK, \
            the socket's path with .forward appended) that gives tokens of the profiles added \
            with --forward and nothing else: no add, remove, status or stop. Forward that one \
            over ssh, and name it on the far side, where no store is needed:

              webauth agent add work --forward
              ssh -R /tmp/webauth-agent.sock:$WEBAUTH_AGENT_FORWARD_SOCK host
              WEBAUTH_AGENT_SOCK=/tmp/webauth-agent.sock webauth token --profile work

            \(ExitStatus.helpText)
            """,
        subcommands: [
            AgentRunCommand.self, AgentStartCommand.self, AgentStopCommand.self, AgentStatusCommand.self,
            AgentAddCommand.self, AgentRemoveCommand.self,
        ]
    )
}

/// The agent's own options: `--lifetime`, `--idle`, `--confirm`.
struct AgentPolicyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Forget each profile this long after it is added (such as 90s, 30m, 8h, 1d).", valueName: "DURATION"))
    var lifetime: String?

    @Option(help: ArgumentHelp("Forget profiles no token was asked of for this long.", valueName: "DURATION"))
    var idle: String?

    @Flag(
        help:
            "Ask before each token is handed out and each profile is added, with the program in WEBAUTH_ASKPASS (or SSH_ASKPASS); a refusal gives the asker exit 9. A forwarded request is allowed only by a typed yes."
    )
    var confirm = false

    @Flag(help: "Log what the agent does on standard error (never a token).")
    var verbose = false

    func validate() throws {
        if let lifetime, AgentDuration.parse(lifetime) == nil {
            throw ValidationError("--lifetime takes a duration such as 90s, 30m, 8h or 1d, not '\(lifetime)'.")
        }
        if let idle, AgentDuration.parse(idle) == nil {
            throw ValidationError("--idle takes a duration such as 90s, 30m, 8h or 1d, not '\(idle)'.")
        }
        if confirm, AgentConfirmation.program(environment: ProcessInfo.processInfo.environment) == nil {
            throw ValidationError("--confirm needs WEBAUTH_ASKPASS (or SSH_ASKPASS) to name the program that asks.")
        }
    }

    /// The options as `agent run` takes them (for `agent start`).
    var arguments: [String] {
        var arguments: [String] = []
        if let lifetime { arguments += ["--lifetime", lifetime] }
        if let idle { arguments += ["--idle", idle] }
        if confirm { arguments.append("--confirm") }
        if verbose { arguments.append("--verbose") }
        return arguments
    }
}

/// Durations such as `90`, `90s`, `30m`, `8h`, `1d`.
enum AgentDuration {
    /// The duration `text` names; `nil` when it names none (or none above zero, or over a year).
    static func parse(_ text: String) -> Duration? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let factor = units[last] {
            number = number.dropLast()
            unit = factor
        }
        guard let value = Double(number), value.isFinite, value > 0, value * unit <= 366 * 86400 else { return nil }
        return .milliseconds(Int64(value * unit * 1000))
    }
}

/// `webauth agent run`: the agent in the foreground.
struct AgentRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the agent in the foreground (for systemd, and for tests) until SIGTERM, SIGINT or `agent stop`.",
        discussion: """
            Under systemd socket activation (LISTEN_FDS, LISTEN_PID) it serves the socket passed \
            as descriptor 3; see contrib/systemd/webauth-agent.socket.
            """)

    @OptionGroup var policy: AgentPolicyOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var logger = Logger(label: "webauth.agent", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = policy.verbose ? .info : .warning
        // Tokens in this process are for no one else: no core dump, no reading through /proc.
        SecretMemory.forbidDumps()
        let socket = AgentSocketPath(environment: environment)
        var storeLogger = Logger(label: "webauth.tokenstore", factory: { _ in NoteLogHandler() })
        storeLogger.logLevel = .warning
        let stores = TokenStores(environment: environment, lockTimeout: .seconds(120), logger: storeLogger)
        let confirmation =
            policy.confirm
            ? AgentConfirmation.program(environment: environment).map {
                AgentConfirmation.asking(program: $0, environment: environment)
            } : nil
        let service = AgentService(
            policy: AgentHolder.Policy(
                lifetime: policy.lifetime.flatMap(AgentDuration.parse), idle: policy.idle.flatMap(AgentDuration.parse)),
            stores: stores, confirmation: confirmation, socketPath: socket.path, logger: logger)
        let server: AgentServer
        do {
            server = try await AgentServer.start(
                service: service, socket: socket, environment: environment, logger: logger)
        } catch {
            TerminalOutput().error("the agent cannot start: \(error)")
            throw ExitCode(ExitStatus.failure)
        }
        logger.info("listening on \(server.path)")
        let trap = InterruptTrap()
        await trap.whileTrapping(onSignal: { server.requestStop() }, { await server.run() })
    }
}

/// `webauth agent start`: the agent in the background.
struct AgentStartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract:
            "Start the agent in the background and print `export WEBAUTH_AGENT_SOCK=PATH` (and its forwarding socket's) for eval.",
        discussion: """
              eval "$(webauth agent start)"
            """)

    @OptionGroup var policy: AgentPolicyOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let socket = AgentSocketPath(environment: environment)
        let terminal = TerminalOutput()
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            terminal.error("cannot find this program to start the agent")
            throw ExitCode(ExitStatus.failure)
        }
        // The child works out the same default path, and makes its directory as `agent run`
        // does; only a socket the person named (whose directory must exist) is passed on.
        var childEnvironment = environment
        childEnvironment[AgentSocketPath.variable] = socket.isNamed ? socket.path : nil
        let logPipe = try Pipe.make()
        let process: Subprocess
        do {
            defer { Descriptor.close(logPipe.write) }
            process = try Subprocess(
                executable: executable, arguments: ["agent", "run"] + policy.arguments, environment: childEnvironment,
                standardError: .descriptor(logPipe.write))
        } catch {
            Descriptor.close(logPipe.read)
            terminal.error("cannot start the agent: \(error)")
            throw ExitCode(ExitStatus.failure)
        }
        // Wait until it answers, or says why it cannot start (its standard error, until it
        // listens), or ends.
        let client = AgentClient(socketPath: socket.path)
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if (try? await client.status()) != nil {
                Descriptor.close(logPipe.read)
                let full = GitCredentialSetup.shellQuoted(socket.path)
                let forwarding = GitCredentialSetup.shellQuoted(socket.forwardingPath)
                CommandOutput(json: false).exact(
                    """
                    export \(AgentSocketPath.variable)=\(full)
                    export \(AgentSocketPath.forwardingVariable)=\(forwarding)

                    """.utf8)
                return
            }
            if await Self.hasEnded(process) { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        Descriptor.close(logPipe.write)
        var message: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        Descriptor.setNonBlocking(logPipe.read)
        while let count = try? Descriptor.read(logPipe.read, into: &buffer), count > 0, message.count < 8192 {
            message += buffer[..<count]
        }
        Descriptor.close(logPipe.read)
        var said = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // The child's message is already an error line; say it once.
        if said.hasPrefix("error: ") { said.removeFirst("error: ".count) }
        terminal.error(said.isEmpty ? "the agent did not start" : said)
        throw ExitCode(ExitStatus.failure)
    }

    private static func hasEnded(_ process: Subprocess) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = await process.waitForExit()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(1))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

/// The options of the commands that talk to a running agent.
struct AgentClientOptions: ParsableArguments {
    @Flag(help: "Print the result as JSON on standard output.")
    var json = false

    var client: AgentClient { AgentClient(environment: ProcessInfo.processInfo.environment) }

    /// Runs `body`, reporting an agent failure as the command's.
    func reporting(profile: String = ProfileOptions.defaultProfile, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as AgentClient.Failure {
            let reported = CommandFailure.from(failure, profile: profile)
            CommandOutput(json: json).failure(reported, terminal: TerminalOutput())
            throw ExitCode(reported.status)
        }
    }
}

/// `webauth agent stop`.
struct AgentStopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop the running agent.")

    @OptionGroup var options: AgentClientOptions

    func run() async throws {
        try await options.reporting { try await options.client.stop() }
        if options.json { CommandOutput(json: true).emit(["stopped": true]) }
    }
}

/// `webauth agent status`.
struct AgentStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say what the agent holds: profiles, expiries, where each came from. Never a token.")

    @OptionGroup var options: AgentClientOptions

    func run() async throws {
        let client = options.client
        try await options.reporting {
            let status = try await client.status()
            let output = CommandOutput(json: options.json)
            if options.json {
                output.emit([
                    "socket": client.socketPath, "pid": Int(status.processID), "confirm": status.confirms,
                    "forwarding_socket": status.forwardingSocket ?? NSNull(),
                    "profiles": status.profiles.map { profile -> [String: Any] in
                        [
                            "name": profile.name, "source": profile.source, "refused": profile.refused,
                            "forwarded": profile.forwarded,
                            "expires_at": profile.expiresAt.map(JSONDate.string) ?? NSNull(),
                            "forget_at": profile.forgetAt.map(JSONDate.string) ?? NSNull(),
                            "last_used_at": profile.lastUsedAt.map(JSONDate.string) ?? NSNull(),
                        ]
                    },
                ])
                return
            }
            var lines = [
                "agent \(status.processID) on \(client.socketPath)" + (status.confirms ? " (confirms each token)" : "")
            ]
            if let forwarding = status.forwardingSocket {
                lines.append("forwarding socket \(forwarding): tokens of forwarded profiles only")
            }
            if status.profiles.isEmpty { lines.append("  no profiles") }
            let now = Date()
            for profile in status.profiles {
                var line =
                    "  \(profile.name) (\(profile.source)): access token "
                    + EntryDescription.expiry(profile.expiresAt, now: now)
                if profile.forwarded { line += ", forwarded" }
                if profile.refused { line += ", refresh refused: sign in again" }
                if let forgetAt = profile.forgetAt { line += ", forgotten at \(JSONDate.string(forgetAt))" }
                lines.append(line)
            }
            output.result(lines.joined(separator: "\n"))
        }
    }
}

/// `webauth agent add PROFILE`.
struct AgentAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Load a stored profile into the agent, which then refreshes it ahead of time (and writes it back).",
        discussion: """
            With --forward the agent also serves the profile's tokens on its forwarding socket, \
            the one to give to ssh -R or a container; a profile added without it is not seen there.
            """)

    @Argument(help: "The profile.", completion: ProfileOptions.completion)
    var profile: String

    @Option(
        help: ArgumentHelp(
            "Forget it after this long (such as 8h); default: the agent's --lifetime.", valueName: "DURATION"))
    var lifetime: String?

    @Flag(help: "Serve its tokens on the agent's forwarding socket too (for ssh -R and containers).")
    var forward = false

    @OptionGroup var storeOption: StoreOption
    @OptionGroup var options: AgentClientOptions

    func validate() throws {
        try ProfileOptions.validate(profile)
        if let lifetime, AgentDuration.parse(lifetime) == nil {
            throw ValidationError("--lifetime takes a duration such as 90s, 30m, 8h or 1d, not '\(lifetime)'.")
        }
    }

    func run() async throws {
        try await options.reporting(profile: profile) {
            try await options.client.add(
                profile: profile, store: storeOption.store, lifetime: lifetime.flatMap(AgentDuration.parse),
                forward: forward)
        }
        if options.json { CommandOutput(json: true).emit(["profile": profile, "added": true, "forwarded": forward]) }
    }
}

/// `webauth agent remove PROFILE`.
struct AgentRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Make the agent forget a profile (the store keeps it).")

    @Argument(help: "The profile.", completion: ProfileOptions.completion)
    var profile: String

    @OptionGroup var options: AgentClientOptions

    func validate() throws { try ProfileOptions.validate(profile) }

    func run() async throws {
        try await options.reporting(profile: profile) { try await options.client.remove(profile: profile) }
        if options.json { CommandOutput(json: true).emit(["profile": profile, "removed": true]) }
    }
}
