// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthPlatform

/// Where a controlled browser's executable is: one rule for every browser.
///
/// A configured executable that contains `/` is used as it is; a configured name is looked up in
/// `PATH`; with none configured the browser's usual names are, in order. Only absolute `PATH`
/// entries count, and only regular files the user may execute.
struct BrowserExecutable: Sendable {
    /// The browser's name in messages, such as `Chromium`.
    var browser: String
    /// The names looked for when none is configured, in order.
    var names: [String]
    /// What to install, for messages: `install Firefox`.
    var installHint: String
    /// The option that names the executable, for messages: `FirefoxBrowser.Options.executable`.
    var option: String

    /// The first of ``names`` found in `searchPath` (a `PATH`-style list), or `nil`.
    func find(searchPath: String?) -> String? {
        Self.lookUp(names, in: searchPath)
    }

    /// The executable to run for `configured` (a path, a name, or `nil` for the usual names), or
    /// why there is none.
    ///
    /// - Throws: ``WebAuthenticationSessionError/Code/noBrowserAvailable``.
    func resolve(_ configured: String?, searchPath: String?) throws(WebAuthenticationSessionError) -> String {
        if let configured, configured.contains("/") {
            guard Self.isExecutableFile(configured) else {
                throw .noBrowserAvailable(
                    "the \(browser) executable \(configured) does not exist or is not executable; \(installHint)")
            }
            return configured
        }
        let looked = configured.map { [$0] } ?? names
        guard let found = Self.lookUp(looked, in: searchPath) else {
            let path = searchPath ?? ""
            throw .noBrowserAvailable(
                "\(browser) was not found (looked for \(looked.joined(separator: ", ")) in PATH "
                    + "\(path.isEmpty ? "(empty)" : path)); \(installHint), or set \(option)")
        }
        return found
    }

    private static func lookUp(_ names: [String], in searchPath: String?) -> String? {
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").filter {
            $0.hasPrefix("/")
        }
        for name in names {
            for directory in directories {
                let candidate = "\(directory)/\(name)"
                if isExecutableFile(candidate) { return candidate }
            }
        }
        return nil
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        guard (try? FileSystem.status(path, followingLinks: true))?.kind == .regular else { return false }
        return FileSystem.isExecutable(path)
    }
}
