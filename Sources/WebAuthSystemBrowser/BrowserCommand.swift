// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A browser command line: an executable and its arguments, run directly — never through a
/// shell — with the URL as one argument of its own.
///
/// `$BROWSER` uses the traditional format: a colon-separated list of commands, tried in order;
/// each command is split into words at spaces (there is no shell quoting); `%s` in a word is
/// replaced by the URL and `%%` by `%`; without `%s` the URL is added as the last argument.
///
/// ```swift
/// let commands = BrowserCommand.parseBrowserVariable("firefox --new-window %s:xdg-open")
/// // [firefox --new-window <url>, xdg-open <url>]
/// ```
public struct BrowserCommand: Sendable, Hashable, CustomStringConvertible {
    /// The program: a name looked up in `PATH`, or a path.
    public var executable: String
    /// The arguments, with `%s` where the URL goes (if nowhere, it is appended).
    public var arguments: [String]
    /// Whether a non-zero exit status soon after the start means the page did not open; not so
    /// for `explorer.exe`, which exits with 1 after opening it.
    public var exitStatusIsMeaningful: Bool

    /// Creates a command.
    public init(executable: String, arguments: [String] = [], exitStatusIsMeaningful: Bool = true) {
        self.executable = executable
        self.arguments = arguments
        self.exitStatusIsMeaningful = exitStatusIsMeaningful
    }

    /// The commands in a `$BROWSER` value, in order; empty entries are skipped.
    public static func parseBrowserVariable(_ value: String) -> [BrowserCommand] {
        value.split(separator: ":").compactMap { entry in
            let words = entry.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let executable = words.first else { return nil }
            return BrowserCommand(executable: executable, arguments: Array(words.dropFirst()))
        }
    }

    /// The argument vector for opening `url` (already validated, so it starts with its scheme
    /// and cannot be read as a flag).
    public func arguments(opening url: String) -> [String] {
        var substituted = false
        let expanded = arguments.map { word -> String in
            guard word.contains("%") else { return word }
            var result = ""
            var iterator = word.makeIterator()
            while let character = iterator.next() {
                guard character == "%" else {
                    result.append(character)
                    continue
                }
                switch iterator.next() {
                case "s":
                    result += url
                    substituted = true
                case "%": result.append("%")
                case let other?: result += "%\(other)"
                case nil: result.append("%")
                }
            }
            return result
        }
        return substituted ? expanded : expanded + [url]
    }

    /// The executable's absolute path: a path is checked as it is, a name is looked up in
    /// `searchPath` (a `PATH` value). `nil` when nothing executable is found.
    public func resolvedExecutable(searchPath: String?) -> String? {
        if executable.contains("/") {
            return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil
        }
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(executable)"
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }

    /// The command as words, such as `xdg-open`.
    public var description: String { ([executable] + arguments).joined(separator: " ") }
}
