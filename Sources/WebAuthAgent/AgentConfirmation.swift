// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

/// Asks the person before a token is handed out, with the program `WEBAUTH_ASKPASS` (or
/// `SSH_ASKPASS`) names, run with the question as its one argument.
///
/// - A question about a request from this machine (the agent's own socket) is asked as
///   OpenSSH's agent asks: with `SSH_ASKPASS_PROMPT=confirm`, and exiting 0 allows.
/// - A question about a request through the forwarding socket (``AgentService/Question/needsTypedYes``)
///   is asked for an answer: without `SSH_ASKPASS_PROMPT`, so that the program shows an entry
///   field, and only `yes` written on its standard output with exit status 0 allows. A program
///   that ignores the prompt variable and exits 0 without a word (as `true` would) refuses.
///
/// Any other ending, or no answer within a minute, refuses.
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
    /// The most of the program's standard output that is read.
    static let answerLimit = 256

    /// A confirmation that runs `program` (an absolute path, or a name looked up in `PATH`).
    package static func asking(program: String, environment: [String: String]) -> AgentService.Confirmation {
        { question in
            guard let executable = resolve(program, path: environment["PATH"]) else { return false }
            var childEnvironment = environment
            childEnvironment["SSH_ASKPASS_PROMPT"] = question.needsTypedYes ? nil : "confirm"
            let text = question.needsTypedYes ? question.text + " Type yes to allow." : question.text
            guard
                let process = try? Subprocess(
                    executable: executable, arguments: [text], environment: childEnvironment, standardOutput: .pipe)
            else { return false }
            let answered = await withTaskGroup(of: Answer?.self) { group in
                group.addTask {
                    var output: [UInt8] = []
                    if let stream = process.standardOutput {
                        for await chunk in stream where output.count < answerLimit { output += chunk }
                    }
                    return Answer(status: Subprocess.exitCode(of: await process.exitStatus()), output: output)
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let answered else {
                await process.terminate(grace: .seconds(1))
                return false
            }
            return answered.allows(needsTypedYes: question.needsTypedYes)
        }
    }

    /// How the program ended.
    struct Answer: Sendable, Hashable {
        /// Its exit code; `nil` when a signal ended it.
        var status: Int32?
        /// What it wrote on standard output (the first ``answerLimit`` bytes).
        var output: [UInt8]

        /// Whether it allows: exit status 0, and — when a typed yes is needed — `yes` (in any
        /// case, surrounded by white space or not) as its whole output.
        func allows(needsTypedYes: Bool) -> Bool {
            guard status == 0 else { return false }
            guard needsTypedYes else { return true }
            let typed = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return typed.lowercased() == "yes"
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
