// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// The process's controlling terminal, `/dev/tty`: where a credential helper whose standard
/// input and output belong to the calling program (git) talks to the person, as git itself
/// does when it prompts for a password.
///
/// ```swift
/// if let terminal = ControllingTerminal.current() {
///     let tokens = try await terminal.attached { try await signIn() }  // prompts on the terminal
/// }
/// ```
final class ControllingTerminal {
    /// The open terminal.
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Opens the controlling terminal; `nil` when the process has none (run by a daemon, in CI,
    /// under `setsid`) or it cannot be opened.
    static func current() -> ControllingTerminal? {
        Terminal.openControlling().map(ControllingTerminal.init(descriptor:))
    }

    /// Runs `body` with standard input and standard error on the terminal — so that every
    /// prompt, progress line and pasted redirect of the sign-in goes through it — and puts
    /// both back however `body` ends. Standard output is left alone: it is the caller's.
    ///
    /// Standard error is where the sign-in writes because that is where `webauth login`
    /// writes; pointing the descriptors at the terminal for the sign-in's duration keeps one
    /// sign-in for every command rather than a second one that writes elsewhere.
    func attached<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        let numbers = [Descriptor.standardInput, Descriptor.standardError]
        let saved = numbers.map { try? Descriptor.duplicate($0) }
        for (number, copy) in zip(numbers, saved) where copy != nil {
            try? Descriptor.duplicate(descriptor, onto: number)
        }
        defer {
            for (number, copy) in zip(numbers, saved) {
                guard let copy else { continue }
                try? Descriptor.duplicate(copy, onto: number)
                Descriptor.close(copy)
            }
        }
        return try await body()
    }

    deinit { Descriptor.close(descriptor) }
}

extension ControllingTerminal {
    /// Whether git allows prompting on the terminal: `GIT_TERMINAL_PROMPT` unset, or set to
    /// anything git reads as true (git reads `0`, `false`, `no`, `off` and the empty string as
    /// false).
    static func gitAllowsPrompts(environment: [String: String]) -> Bool {
        guard let value = environment["GIT_TERMINAL_PROMPT"]?.trimmingCharacters(in: .whitespaces).lowercased()
        else { return true }
        return !["", "0", "false", "no", "off"].contains(value)
    }
}
