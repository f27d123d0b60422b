// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Where the Linux desktop keeps the files this module reads and writes, taken from the XDG
/// base-directory variables of one process environment.
///
/// Every part of the module takes a `DesktopEnvironment` rather than reading the process's own
/// variables, so that a program (or a test) can work in another desktop's directories:
///
/// ```swift
/// let desktop = DesktopEnvironment(variables: [
///     "HOME": "/home/ada", "XDG_DATA_HOME": "/tmp/t/data", "XDG_CONFIG_HOME": "/tmp/t/config",
///     "XDG_RUNTIME_DIR": "/tmp/t/run",
/// ])
/// ```
///
/// | Directory | Variable | Default |
/// |---|---|---|
/// | ``dataHome`` (`.desktop` entries go in its `applications`) | `XDG_DATA_HOME` | `$HOME/.local/share` |
/// | ``dataDirectories`` (read only) | `XDG_DATA_DIRS` | `/usr/local/share:/usr/share` |
/// | ``configHome`` (`mimeapps.list`) | `XDG_CONFIG_HOME` | `$HOME/.config` |
/// | ``runtimeDirectory`` (the callback sockets) | `XDG_RUNTIME_DIR` | none |
///
/// Relative paths in these variables are ignored, as the XDG Base Directory specification asks.
public struct DesktopEnvironment: Sendable, Hashable {
    /// The variables the directories were read from; child processes such as `xdg-mime` run
    /// with exactly these.
    public var variables: [String: String]

    /// Reads the directories from `variables` (by default this process's environment).
    public init(variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
    public var dataHome: String {
        absolute("XDG_DATA_HOME") ?? home + "/.local/share"
    }

    /// `$XDG_DATA_DIRS` split at `:`, else `/usr/local/share` and `/usr/share`.
    public var dataDirectories: [String] {
        let listed = (variables["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init).filter {
            $0.hasPrefix("/")
        }
        return listed.isEmpty ? ["/usr/local/share", "/usr/share"] : listed
    }

    /// `$XDG_CONFIG_HOME`, else `$HOME/.config`.
    public var configHome: String {
        absolute("XDG_CONFIG_HOME") ?? home + "/.config"
    }

    /// `$XDG_RUNTIME_DIR`, or `nil` when it is not set (or not an absolute path).
    public var runtimeDirectory: String? {
        absolute("XDG_RUNTIME_DIR")
    }

    /// The directory user-specific `.desktop` entries go in: `dataHome/applications`.
    public var applicationsDirectory: String {
        dataHome + "/applications"
    }

    /// `$TMPDIR`, else `/tmp`: where the callback socket directory goes without a runtime
    /// directory.
    package var temporaryDirectory: String {
        absolute("TMPDIR") ?? "/tmp"
    }

    /// `$PATH`, for finding `xdg-mime`.
    package var searchPath: String {
        variables["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
    }

    private var home: String {
        absolute("HOME") ?? NSHomeDirectory()
    }

    private func absolute(_ name: String) -> String? {
        guard let value = variables[name], value.hasPrefix("/") else { return nil }
        return value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
    }
}
