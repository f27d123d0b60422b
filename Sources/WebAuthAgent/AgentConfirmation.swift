import Foundation
import WebAuthProcess

/// Asks the person before a token is handed out, with the program `WEBAUTH_ASKPASS` (or
/// `SSH_ASKPASS`) names: run with the question as its one argument and
/// `SSH_ASKPASS_PROMPT=confirm`, it allows the token by exiting 0; any other ending, or no
/// answer within a minute, refuses it.
package enum AgentConfirmation {
    /// The program `environment` names; `nil` when neither variable is set.
    package static func program(environment: [String: String]) -> String? {
        for name in ["WEBAUTH_ASKPASS", "SSH_ASKPASS"] {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }

    /// How long the person has to answer.
    static let timeout: Duration = .seconds(60)

    /// A confirmation that runs `program` (an absolute path, or a name looked up in `PATH`).
    package static func asking(program: String, environment: [String: String]) -> AgentService.Confirmation {
        { question in
            guard let executable = resolve(program, path: environment["PATH"]) else { return false }
            var childEnvironment = environment
            childEnvironment["SSH_ASKPASS_PROMPT"] = "confirm"
            guard
                let process = try? Subprocess(
                    executable: executable, arguments: [question], environment: childEnvironment)
            else { return false }
            let answered = await withTaskGroup(of: Int32?.self) { group in
                group.addTask { Subprocess.exitCode(of: await process.exitStatus()) }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if answered == nil { await process.terminate(grace: .seconds(1)) }
            return answered == 0
        }
    }

    static func resolve(_ program: String, path: String?) -> String? {
        if program.hasPrefix("/") { return program }
        guard !program.contains("/") else { return nil }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
