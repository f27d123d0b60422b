// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthCredentialHelpers
import WebAuthFastPath
import WebAuthProcess
import WebAuthTokenStore

/// `webauth git-credential setup HOST`: makes this program git's credential helper for
/// `https://HOST`, through `git config`.
struct GitCredentialSetup {
    /// The URL scheme: `https`, or `http` for a loopback host.
    var scheme: String
    /// The host, `host` or `host:port`.
    var host: String
    /// The profile the helper answers with.
    var profile: String
    /// The `--store` the helper is run with.
    var store: TokenStoreSelection
    /// The git configuration file to write (`git config --file`), or `nil` for `--global`.
    var configurationFile: String?
    /// The login options the helper signs in with when the profile has no usable sign-in
    /// (``LoginOptions/arguments``).
    var loginArguments: [String] = []

    /// The configuration key: `credential.https://HOST.helper`.
    var key: String { "credential.\(scheme)://\(host).helper" }

    /// The scheme and host a `setup` argument names: a plain `host[:port]` (for https), or
    /// `http://host[:port]` for a loopback host; `nil` for anything else.
    static func target(from argument: String) -> (scheme: String, host: String)? {
        if argument.hasPrefix("http://") {
            let host = String(argument.dropFirst("http://".count))
            return isPlainHost(host) && isLoopback(host) ? ("http", host) : nil
        }
        return isPlainHost(argument) ? ("https", argument) : nil
    }

    /// Whether `host` (`host[:port]`, or `[address]:port`) names the loopback interface
    /// (`LoopbackName`: `127.0.0.0/8`, `localhost` or `[::1]`).
    static func isLoopback(_ host: String) -> Bool {
        var name = host
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]") { name = String(name[..<colon]) }
        return !name.contains(":") || name.hasPrefix("[") ? LoopbackName.isLoopback(name) : false
    }

    /// The helper line: `!'<this program>' git-credential --profile NAME`, then `--store` and
    /// the login options when given (git runs a value starting with `!` through the shell, so
    /// the path, and every argument that needs it, is quoted for it).
    func helperValue(executable: String) -> String {
        var value = "!\(Self.shellQuoted(executable)) git-credential --profile \(profile)"
        if store != .automatic { value += " --store \(store.rawValue)" }
        for argument in loginArguments { value += " " + Self.shellWord(argument) }
        return value
    }

    /// Writes the configuration and returns what it wrote, for standard output.
    ///
    /// - Throws: ``CommandFailure`` when git is not found or `git config` fails.
    func write(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        guard let git = Self.executable(named: "git", searchPath: environment["PATH"]) else {
            throw CommandFailure(
                status: ExitStatus.failure, code: "noGit", message: "git is not on PATH", fix: "install git")
        }
        let scope = configurationFile.map { ["--file", $0] } ?? ["--global"]
        let value = helperValue(executable: Self.thisExecutable())
        // An empty helper first: helpers configured for every host are not asked for this one.
        for arguments in [["--replace-all", key, ""], ["--add", key, value]] {
            let completion = try Subprocess.runToCompletion(
                git, ["config"] + scope + arguments, environment: environment)
            guard Subprocess.exitCode(of: completion.status) == 0 else {
                let detail = completion.standardError.split(separator: "\n").first.map(String.init) ?? "no message"
                throw CommandFailure(
                    status: ExitStatus.failure, code: "gitConfigFailed", message: "git config failed: \(detail)")
            }
        }
        let target = configurationFile.map { "git config --file \($0)" } ?? "git config --global"
        return "Wrote with \(target):\n  \(key) = \"\"\n  \(key) = \(value)\n"
    }

    /// Whether `host` is a plain `host` or `host:port` (``GitHostBinding/isPlainHost(_:)``).
    static func isPlainHost(_ host: String) -> Bool { GitHostBinding.isPlainHost(host) }

    /// `text` as one word for a POSIX shell: as it is when it holds only characters no shell
    /// treats specially (letters, digits and `-_./:=@%+,`), else in single quotes.
    static func shellWord(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./:=@%+,".unicodeScalars.contains($0))
            }
        return plain ? text : shellQuoted(text)
    }

    /// `text` in single quotes for a POSIX shell.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The absolute path of the program people run: `webauth`, also when this process is the
    /// full program it runs (see `FullProgram`).
    static func thisExecutable() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return FullProgram.frontPath(for: resolved)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The first executable `name` on `searchPath`.
    static func executable(named name: String, searchPath: String?) -> String? {
        for directory in (searchPath ?? "/usr/bin:/bin").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
