// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgent

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How the agent's question reaches the person: real askpass programs (small shell scripts),
/// run as `--confirm` runs them.
@Suite("The agent's questions through an askpass program")
struct AgentConfirmationTests {
    /// Runs `question` through an askpass script whose body is `body`; what it allowed, and the
    /// `SSH_ASKPASS_PROMPT` and argument it was given.
    static func ask(_ question: AgentService.Question, script body: String) async throws -> (
        allowed: Bool, prompt: String, argument: String
    ) {
        var template = Array("/tmp/webauth-askpass-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let program = directory + "/askpass"
        let script = """
            #!/bin/sh
            printf '%s' "${SSH_ASKPASS_PROMPT-unset}" > '\(directory)/prompt'
            printf '%s' "$1" > '\(directory)/argument'
            \(body)
            """
        try script.write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o700)
        let confirmation = AgentConfirmation.asking(
            program: program, environment: ["PATH": "/usr/bin:/bin", "SSH_ASKPASS_PROMPT": "inherited"])
        let allowed = await confirmation(question)
        let prompt = try String(contentsOfFile: directory + "/prompt", encoding: .utf8)
        let argument = try String(contentsOfFile: directory + "/argument", encoding: .utf8)
        return (allowed, prompt, argument)
    }

    static let local = AgentService.Question(text: "Allow process 1 (git) a token?", needsTypedYes: false)
    static let forwarded = AgentService.Question(text: "Allow a forwarded request a token?", needsTypedYes: true)

    @Test func aQuestionFromThisMachineIsAConfirmationThatExitZeroAllows() async throws {
        let silent = try await Self.ask(Self.local, script: "exit 0")
        #expect(silent.allowed)
        #expect(silent.prompt == "confirm")
        #expect(silent.argument == Self.local.text)
        #expect(try await !Self.ask(Self.local, script: "exit 1").allowed)
    }

    @Test func aForwardedRequestIsAllowedOnlyByATypedYes() async throws {
        // An askpass that ignores the prompt variable and exits 0 without a word refuses.
        let silent = try await Self.ask(Self.forwarded, script: "exit 0")
        #expect(!silent.allowed)
        #expect(silent.prompt == "unset", "asked for an answer, not a confirmation")
        #expect(silent.argument.hasSuffix("Type yes to allow."))
        #expect(try await !Self.ask(Self.forwarded, script: "echo; exit 0").allowed)
        #expect(try await !Self.ask(Self.forwarded, script: "echo no; exit 0").allowed)
        #expect(try await !Self.ask(Self.forwarded, script: "echo yes; exit 1").allowed)
        #expect(try await !Self.ask(Self.forwarded, script: "echo yesplease; exit 0").allowed)
        #expect(try await Self.ask(Self.forwarded, script: "echo yes; exit 0").allowed)
        #expect(try await Self.ask(Self.forwarded, script: "echo ' YES '").allowed)
    }
}
