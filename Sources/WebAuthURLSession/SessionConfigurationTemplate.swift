// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthPlatform

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLSessionConfiguration` of every ``URLSessionTransport``: ephemeral, with no cookie
/// storage, no cache and no credential storage — and made so that it leaves nothing on disk.
///
/// On Linux, FoundationNetworking builds every configuration from `.default`, which starts the
/// shared cookie storage and URL cache; they create `$XDG_DATA_HOME/NAME` (NAME: the folder of
/// the executable, `debug` or `release` for a SwiftPM build) and
/// `$XDG_CACHE_HOME/org.swift.foundation.URLCache/PROGRAM`, with every missing parent, at
/// whatever mode the umask allows (0777 under `umask 000`); `.ephemeral` then makes a URL cache
/// of its own that creates the second again. This package uses none of them. So the
/// configuration is made once per process and copied for each transport, and the directories
/// its making created — those that were not there before and are still empty — are removed at
/// once.
enum SessionConfigurationTemplate {
    /// A fresh copy of the template.
    static func make() -> URLSessionConfiguration {
        // `copy()` of a URLSessionConfiguration is a URLSessionConfiguration.
        template.copy() as! URLSessionConfiguration
    }

    /// Made once, never changed afterwards: every use only copies it.
    private static let template: URLSessionConfiguration = {
        #if canImport(FoundationNetworking)
            let created = foundationDirectories().flatMap(missingDirectories(upTo:))
            let configuration = URLSessionConfiguration.ephemeral
            // Deepest first; rmdir removes only an empty directory, so nothing anyone put
            // there is touched.
            for path in created { try? FileSystem.removeDirectory(path) }
        #else
            let configuration = URLSessionConfiguration.ephemeral
        #endif
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCredentialStorage = nil
        return configuration
    }()

    #if canImport(FoundationNetworking)
        /// The directories FoundationNetworking's shared cookie storage and URL cache create,
        /// named the way it names them.
        private static func foundationDirectories() -> [String] {
            let fileManager = FileManager.default
            var bundleName = Bundle.main.bundleURL.lastPathComponent
            if let dot = bundleName.lastIndex(of: ".") { bundleName = String(bundleName[..<dot]) }
            var paths: [String] = []
            if let data = fileManager.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
                paths.append(data.appendingPathComponent(bundleName).path)
            }
            if let caches = fileManager.urls(for: .cachesDirectory, in: .userDomainMask).first {
                let program = (Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName)
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\\", with: "_")
                    .replacingOccurrences(of: ":", with: "_")
                paths.append(
                    caches.appendingPathComponent("org.swift.foundation.URLCache").appendingPathComponent(program).path)
            }
            return paths
        }

        /// `path` and each of its parents that does not exist yet, deepest first.
        private static func missingDirectories(upTo path: String) -> [String] {
            var missing: [String] = []
            var current = URL(fileURLWithPath: path)
            while current.path != "/", !FileManager.default.fileExists(atPath: current.path) {
                missing.append(current.path)
                current.deleteLastPathComponent()
            }
            return missing
        }
    #endif
}
