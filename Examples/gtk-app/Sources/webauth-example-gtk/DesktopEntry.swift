// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The app's `.desktop` entry: how the desktop knows that this program opens `SCHEME:` URLs.
///
/// Written to `$XDG_DATA_HOME/applications/APP-ID.desktop` (by default
/// `~/.local/share/applications`) with `MimeType=x-scheme-handler/SCHEME`, and made the
/// scheme's default handler with `xdg-mime default`, which records it in
/// `$XDG_CONFIG_HOME/mimeapps.list`. A packaged app ships the same file in
/// `/usr/share/applications` (a .deb) or `/app/share/applications` (a Flatpak) instead.
struct DesktopEntry {
    let applicationID: String
    let scheme: String
    /// The command line the desktop runs, before the URL (`%u`).
    let command: [String]

    /// `$XDG_DATA_HOME/applications/APP-ID.desktop`.
    var path: String {
        let environment = ProcessInfo.processInfo.environment
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? NSHomeDirectory() + "/.local/share"
        return dataHome + "/applications/\(applicationID).desktop"
    }

    var contents: String {
        """
        [Desktop Entry]
        Type=Application
        Name=webauth GTK example
        Comment=Signs in with ASWebAuthenticationSession on Linux
        Exec=\((command.map(Self.quoted) + ["%u"]).joined(separator: " "))
        Terminal=false
        NoDisplay=true
        StartupNotify=false
        DBusActivatable=false
        MimeType=x-scheme-handler/\(scheme);

        """
    }

    /// An Exec argument: as it is when it has none of the characters the Desktop Entry
    /// Specification reserves (so that xdg-open's own reading of the line, which splits at
    /// spaces, takes it too), else quoted as the specification says, with its backslashes
    /// escaped again as in every string value of the file.
    static func quoted(_ argument: String) -> String {
        let reserved: Set<Character> = [
            " ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`",
        ]
        guard argument.isEmpty || argument.contains(where: reserved.contains) else { return argument }
        var escaped = ""
        for character in argument {
            if "\"`$\\".contains(character) { escaped += "\\" }
            escaped.append(character)
        }
        return "\"" + escaped.replacingOccurrences(of: "\\", with: "\\\\") + "\""
    }

    /// Writes the entry if it is missing or different, and makes it the scheme's handler.
    ///
    /// - Returns: The entry's path when it was written now (the first run), else `nil`.
    func install() throws -> String? {
        let path = self.path
        let existing = try? String(contentsOfFile: path, encoding: .utf8)
        guard existing != contents else { return nil }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try Self.run("xdg-mime", ["default", "\(applicationID).desktop", "x-scheme-handler/\(scheme)"])
        // The desktop's cache of handlers, where desktop-file-utils is installed.
        try? Self.run("update-desktop-database", [(path as NSString).deletingLastPathComponent])
        return path
    }

    private static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(program) failed"])
        }
    }
}
