// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The `.desktop` entry that registers a program as the person's web-authentication browser.
///
/// Its desktop file ID is ``desktopFileID``; it lives in the user's `applications` directory:
///
/// ```ini
/// [Desktop Entry]
/// Type=Application
/// Name=Example Browser
/// Comment=Handles other programs' web sign-ins
/// Exec=/usr/local/bin/example-browser
/// NoDisplay=true
/// Terminal=false
/// X-WebAuth-AuthenticationBrowser=Example Browser
///
/// [X-ASWebAuthenticationSessionWebBrowserSupportCapabilities]
/// IsSupported=true
/// EphemeralBrowserSessionIsSupported=true
/// CallbackURLMatchingIsSupported=false
/// ```
///
/// `X-WebAuth-AuthenticationBrowser` marks the entry as webauth's (an entry without it is never
/// changed or removed). A missing capability key counts as `false`, as on Apple platforms.
package struct AuthenticationBrowserEntry: Sendable, Hashable {
    /// The program's name, for messages.
    package var name: String
    /// The program's absolute path.
    package var executablePath: String
    /// What it declares it can do.
    package var capabilities: AuthenticationBrowserCapabilities

    /// Creates an entry.
    package init(name: String, executablePath: String, capabilities: AuthenticationBrowserCapabilities) {
        self.name = name
        self.executablePath = executablePath
        self.capabilities = capabilities
    }

    /// The desktop file ID (and file name): one web-authentication browser per person.
    package static let desktopFileID = "webauth-authentication-browser.desktop"

    /// The entry's text.
    package var text: String {
        let group = AuthenticationBrowserCapabilities.self
        return [
            "[Desktop Entry]",
            "Type=Application",
            "Name=\(name)",
            "Comment=Handles other programs' web sign-ins",
            "Exec=\(executablePath)",
            "NoDisplay=true",
            "Terminal=false",
            "X-WebAuth-AuthenticationBrowser=\(name)",
            "",
            "[\(group.group)]",
            "\(group.isSupportedKey)=\(capabilities.isSupported)",
            "\(group.ephemeralBrowserSessionIsSupportedKey)=\(capabilities.ephemeralBrowserSessionIsSupported)",
            "\(group.callbackURLMatchingIsSupportedKey)=\(capabilities.callbackURLMatchingIsSupported)",
        ].joined(separator: "\n") + "\n"
    }

    /// Reads an entry written by webauth; `nil` for any other desktop file.
    package init?(parsing text: String) {
        var groups: [String: [String: String]] = [:]
        var current = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                continue
            }
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if groups[current, default: [:]][key] == nil { groups[current, default: [:]][key] = value }
        }
        let main = groups["Desktop Entry"] ?? [:]
        guard let name = main["X-WebAuth-AuthenticationBrowser"], !name.isEmpty,
            let exec = main["Exec"], let path = exec.split(separator: " ").first.map(String.init)
        else { return nil }
        let keys = groups[AuthenticationBrowserCapabilities.group] ?? [:]
        func flag(_ key: String) -> Bool { keys[key]?.lowercased() == "true" }
        self.init(
            name: name, executablePath: path,
            capabilities: AuthenticationBrowserCapabilities(
                isSupported: flag(AuthenticationBrowserCapabilities.isSupportedKey),
                ephemeralBrowserSessionIsSupported: flag(
                    AuthenticationBrowserCapabilities.ephemeralBrowserSessionIsSupportedKey),
                callbackURLMatchingIsSupported: flag(
                    AuthenticationBrowserCapabilities.callbackURLMatchingIsSupportedKey)))
    }

    /// Checks a program name: 1–100 characters, no control characters.
    static func validateName(_ name: String) throws(AuthenticationBrowserError) {
        guard !name.isEmpty, name.count <= 100,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw .invalidRegistration("a browser name must be 1–100 characters without control characters")
        }
    }
}
