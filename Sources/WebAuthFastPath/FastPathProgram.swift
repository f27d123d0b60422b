// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCredentialHelpers
import WebAuthPlatform

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the `webauth` executable does: answer from the cache when ``FastPath`` can, else run
/// ``FullProgram`` with the same command line and the same standard input.
package enum FastPathProgram {
    /// Answers and exits 0, or replaces this process with the full program.
    package static func run() -> Never {
        var consumedInput: [UInt8]?
        // The environment read where it is needed, not copied into a dictionary first.
        let output = FastPath.answer(
            Array(CommandLine.arguments.dropFirst()),
            environmentValue: { FastPath.environmentNames.contains($0) ? CurrentProcess.environmentValue($0) : nil },
            now: Date(),
            standardInput: {
                consumedInput = readStandardInput()
                return consumedInput
            })
        if let output {
            StandardStreams.write(to: Descriptor.standardOutput, output)
            CurrentProcess.exit(0)
        }
        let arguments = CommandLine.arguments
        if arguments.count > 1, arguments[1] == "demo" {
            FullProgram.execDemoProgram(arguments: arguments[2...])
        }
        FullProgram.exec(argv: CommandLine.unsafeArgv, replaying: consumedInput)
    }

    /// Standard input up to its end or ``GitCredential/maximumInputLength`` bytes, as the full
    /// command reads it; `nil` (and nothing read) when it is a terminal.
    static func readStandardInput() -> [UInt8]? {
        guard !Terminal.isTerminal(Descriptor.standardInput) else { return nil }
        return StandardStreams.readInput(limit: GitCredential.maximumInputLength)
    }
}
