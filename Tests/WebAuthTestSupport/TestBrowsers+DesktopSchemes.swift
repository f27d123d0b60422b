// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation

extension TestBrowsers {
    /// Writes a headless-Chromium launcher script (see ``makeChromiumLauncherScript(in:)``) whose
    /// browser runs on `desktop` and hands custom-scheme redirects to it by itself, as a desktop
    /// browser does: through `xdg-open`.
    ///
    /// Chromium asks before it opens an external protocol, and headless Chromium has nobody to
    /// ask. A person can tick "always allow {origin} to open links of this type"; that choice is
    /// stored in the profile's `Default/Preferences` as
    /// `protocol_handler.allowed_origin_protocol_pairs`. The script seeds each fresh profile with
    /// that preference for every pair of `origins` and `schemes`, so that Chromium runs
    /// `xdg-open {url}` without a prompt. It stays headless and offline
    /// (``chromiumOfflineArguments``).
    ///
    /// - Parameters:
    ///   - schemes: The custom schemes Chromium may hand to the desktop, such as `com.example.app`.
    ///   - origins: The pages allowed to redirect to them, such as a local server's base URL
    ///     (`http://127.0.0.1:49152`).
    ///   - desktop: The desktop the browser (and so `xdg-open` and the handler) runs on.
    ///   - directory: Where to put the launcher's directory. Default: the temporary directory.
    public static func makeChromiumLauncherScript(
        handingSchemes schemes: [String],
        from origins: [URL],
        to desktop: TemporaryDesktop,
        in directory: URL = FileManager.default.temporaryDirectory
    ) throws -> ChromiumLauncher {
        let names = [
            "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS",
            "DISPLAY",
        ]
        let exports = names.compactMap { name in
            desktop.variables[name].map { "export \(name)=\(shellQuoted($0))\n" }
        }.joined()
        let preferences = try preferences(schemes: schemes, origins: origins)
        return try writeChromiumLauncher(
            in: directory,
            prelude: """
                # The test's temporary desktop: xdg-open and the scheme handler run there too.
                unset BROWSER WAYLAND_DISPLAY XDG_CURRENT_DESKTOP DESKTOP_SESSION KDE_FULL_SESSION
                \(exports)
                """,
            profileSetup: """
                # Told that the test's pages may open the schemes without asking.
                mkdir "$profile/Default"
                printf '%s' \(shellQuoted(preferences)) >"$profile/Default/Preferences"
                """)
    }

    /// The profile preferences that let each origin open each scheme without asking.
    static func preferences(schemes: [String], origins: [URL]) throws -> String {
        var pairs: [String: [String: Bool]] = [:]
        for origin in origins {
            guard let scheme = origin.scheme, let host = origin.host else {
                throw TestBrowserError(description: "\(origin) is not an origin")
            }
            let name = "\(scheme)://\(host)" + (origin.port.map { ":\($0)" } ?? "")
            pairs[name] = Dictionary(uniqueKeysWithValues: schemes.map { ($0.lowercased(), true) })
        }
        let object = ["protocol_handler": ["allowed_origin_protocol_pairs": pairs]]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}

extension ChromiumLauncher {
    /// The end of each browser's log (Chromium's standard output and error), for a test's failure
    /// message. Read it before ``terminate()``, which deletes the logs.
    public func logTails(lines: Int = 30) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("profile.") && $0.hasSuffix(".log") }.sorted().map { name in
            let text = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
            return "== \(name)\n" + tail.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
