// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The `.desktop` entry that registers webauth's handler program for one URL scheme.
///
/// Its desktop file ID is `webauth-scheme-{scheme}.desktop`; it lives in the user's
/// `applications` directory and looks like this:
///
/// ```ini
/// [Desktop Entry]
/// Type=Application
/// Name=Sign-in callback (com.example.app)
/// Comment=Hands com.example.app: sign-in callbacks to the program waiting for them
/// Exec=/usr/local/bin/webauth-scheme-handler %u
/// NoDisplay=true
/// Terminal=false
/// MimeType=x-scheme-handler/com.example.app;
/// X-WebAuth-Scheme=com.example.app
/// X-WebAuth-Application=myapp
/// ```
///
/// `X-WebAuth-Scheme` marks the entry as webauth's (an entry without it is never changed or
/// removed); `X-WebAuth-Application`, when present, names the program the scheme belongs to, so
/// that a session created without a scheme can find "the scheme this app registered".
package struct SchemeHandlerEntry: Sendable, Hashable {
    /// The scheme, lower-cased.
    package var scheme: String
    /// The handler program's absolute path.
    package var handlerPath: String
    /// The program the scheme belongs to, if one was named.
    package var application: String?

    /// Creates an entry.
    package init(scheme: String, handlerPath: String, application: String? = nil) {
        self.scheme = scheme
        self.handlerPath = handlerPath
        self.application = application
    }

    /// The desktop file ID (and file name): `webauth-scheme-{scheme}.desktop`.
    package static func desktopFileID(forScheme scheme: String) -> String {
        "webauth-scheme-\(scheme.lowercased()).desktop"
    }

    /// The MIME type the desktop associates with the scheme: `x-scheme-handler/{scheme}`.
    package static func mimeType(forScheme scheme: String) -> String {
        "x-scheme-handler/\(scheme.lowercased())"
    }

    /// The entry's text.
    package var text: String {
        var lines = [
            "[Desktop Entry]",
            "Type=Application",
            "Name=Sign-in callback (\(scheme))",
            "Comment=Hands \(scheme): sign-in callbacks to the program waiting for them",
            "Exec=\(handlerPath) %u",
            "NoDisplay=true",
            "Terminal=false",
            "MimeType=\(Self.mimeType(forScheme: scheme));",
            "X-WebAuth-Scheme=\(scheme)",
        ]
        if let application { lines.append("X-WebAuth-Application=\(application)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads an entry written by webauth; `nil` for any other desktop file.
    package init?(parsing text: String) {
        var values: [String: String] = [:]
        var inMainGroup = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                inMainGroup = line == "[Desktop Entry]"
                continue
            }
            guard inMainGroup, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            if values[key] == nil {
                values[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            }
        }
        guard let scheme = values["X-WebAuth-Scheme"], !scheme.isEmpty, let exec = values["Exec"] else { return nil }
        let handler = exec.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        self.init(scheme: scheme.lowercased(), handlerPath: handler, application: values["X-WebAuth-Application"])
    }

    /// Checks that `path` can be the handler: an absolute path made only of characters that
    /// survive a desktop entry's `Exec` line through every launcher (`xdg-open` splits that line
    /// at spaces and does not honour quotes), that is letters, digits and `/ . _ + -`.
    static func validateHandlerPath(_ path: String) throws(DesktopSchemeError) {
        guard path.hasPrefix("/") else {
            throw .invalidHandler("the handler path must be absolute, not '\(path)'")
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-")
        guard path.allSatisfy({ allowed.contains($0) }) else {
            throw .invalidHandler(
                "the handler path '\(path)' has characters a desktop entry cannot carry (only letters, digits and "
                    + "/ . _ + - work everywhere); install the handler at a plainer path")
        }
    }

    /// Checks an application name: 1–255 of letters, digits and `. _ + -`.
    static func validateApplication(_ name: String) throws(DesktopSchemeError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-")
        guard !name.isEmpty, name.count <= 255, name.allSatisfy({ allowed.contains($0) }) else {
            throw .invalidApplication(
                "an application name must be 1–255 letters, digits, '.', '_', '+' or '-', not '\(name)'")
        }
    }
}
