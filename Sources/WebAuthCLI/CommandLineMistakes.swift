// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import WebAuth

/// Mistakes on a command line that the parser reports late, or not at all: an unknown option
/// that a rule about the known ones (`Give exactly one of --issuer, …`) hides, a misspelt
/// command, and help asked for a command that does not exist. Each is named with the nearest
/// right spelling.
package enum CommandLineMistakes {
    /// The misspelt command in `arguments`, such as `Unknown command 'lgoin'. Did you mean
    /// 'login'?`: the first word, at a level that has subcommands, that names none of them.
    /// `help` is followed by the command it is asked about.
    package static func unknownCommand(in arguments: [String]) -> String? {
        var command: any ParsableCommand.Type = WebAuthCommand.self
        var words = arguments[...]
        if words.first == "help" { words = words.dropFirst() }
        for word in words {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { return nil }
            guard let next = subcommands.first(where: { names(of: $0).contains(word) }) else {
                let isRoot = ObjectIdentifier(command) == ObjectIdentifier(WebAuthCommand.self)
                let known = subcommands.flatMap { names(of: $0) } + (isRoot ? ["help"] : [])
                return "Unknown command '\(shown(word))'." + suggestion(for: word, among: known)
            }
            command = next
        }
        return nil
    }

    /// The first option in `arguments` that none of `known` (long names, without dashes)
    /// spells, such as `Unknown option '--isuer'. Did you mean '--issuer'?`. Only options
    /// before `--` count; a value after `=` is not an option.
    package static func unknownOption(in arguments: [String], known: Set<String>) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            guard argument.hasPrefix("--") else { continue }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            guard !known.contains(name) else { continue }
            return "Unknown option '--\(shown(name))'." + suggestion(for: name, among: known.sorted(), prefix: "--")
        }
        return nil
    }

    /// The long option names of the command `arguments` runs, from the parser's own description
    /// of it (`--experimental-dump-help`); `nil` when it cannot be had.
    package static func knownOptions(for arguments: [String]) -> Set<String>? {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        var asking = Array(arguments[..<end])
        asking.append("--experimental-dump-help")
        let description: String
        do {
            _ = try WebAuthCommand.parseAsRoot(asking)
            return nil
        } catch {
            description = WebAuthCommand.fullMessage(for: error)
        }
        guard let tool = try? JSONDecoder().decode(ToolDescription.self, from: Data(description.utf8)) else {
            return nil
        }
        let names = (tool.command.arguments ?? []).flatMap { $0.names ?? [] }.filter { $0.kind == "long" }.map(\.name)
        return Set(names + ["help", "version"])
    }

    /// ` Did you mean 'NAME'?` (with `prefix` before the name) for the nearest of `names`, when
    /// one is near enough to be a typo.
    static func suggestion(for word: String, among names: [String], prefix: String = "") -> String {
        let scored = names.map { (name: $0, distance: editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
            best.distance <= max(2, word.count / 3)
        else { return "" }
        return " Did you mean '\(prefix)\(best.name)'?"
    }

    /// The number of single-character insertions, deletions, substitutions and swaps of
    /// neighbours that turn `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var distances = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { distances[i][0] = i }
        for j in 0...b.count { distances[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                distances[i][j] = min(
                    distances[i - 1][j] + 1, distances[i][j - 1] + 1, distances[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distances[i][j] = min(distances[i][j], distances[i - 2][j - 2] + 1)
                }
            }
        }
        return distances[a.count][b.count]
    }

    /// The names `command` is called by: its name and its aliases.
    private static func names(of command: any ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }

    /// A typed word as it may be shown on a terminal.
    private static func shown(_ word: String) -> String { UntrustedText(word).displayed(limit: 80) }

    /// What the parser says of a command, as far as is read here.
    private struct ToolDescription: Decodable {
        struct Command: Decodable {
            var arguments: [Argument]?
        }
        struct Argument: Decodable {
            var names: [Name]?
        }
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var command: Command
    }
}
