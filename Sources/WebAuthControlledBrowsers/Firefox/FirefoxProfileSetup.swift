// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthPlatform

/// What a Firefox profile gets before each start: our preferences in `user.js`, and for a
/// custom-scheme callback a handler entry in `handlers.json` — and whether another Firefox runs on
/// it.
enum FirefoxProfileSetup {
    /// The host of the in-browser handler for custom schemes. `.invalid` (RFC 6761) never
    /// resolves, and requests to it are stopped before any lookup anyway.
    static let schemeHandlerHost = "webauth-callback.invalid"

    /// The URL prefix Firefox navigates to when a page opens a custom-scheme URL: the session's
    /// scheme is handed to a "web handler" whose address carries a random token, so that no page
    /// can forge it, and the URL itself in the `url` query item.
    static func schemeHandlerPrefix(token: String) -> String {
        "https://\(schemeHandlerHost)/\(token)"
    }

    /// Writes `user.js` (and `handlers.json` when `customScheme` is set) into `directory`.
    static func prepare(
        directory: URL,
        preferences: [String: FirefoxBrowser.PreferenceValue],
        customScheme: String?,
        handlerPrefix: String
    ) throws(WebAuthenticationSessionError) {
        do {
            try Data(Self.userPreferencesFile(preferences).utf8).write(
                to: directory.appendingPathComponent("user.js"), options: .atomic)
            // A stale endpoint file from an earlier run must not be mistaken for this one's.
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("WebDriverBiDiServer.json"))
            if let customScheme {
                let file = directory.appendingPathComponent("handlers.json")
                let existing = (try? Data(contentsOf: file)).flatMap(JSONValue.parse)
                let updated = handlers(existing, routing: customScheme, to: handlerPrefix)
                try updated.serialized.write(to: file, options: .atomic)
            }
        } catch {
            throw .browserLaunchFailed(
                "cannot write the Firefox profile in \(directory.path): \(error.localizedDescription)")
        }
    }

    /// `existing` (Firefox's `handlers.json`, or `nil`) with `scheme` handed to the web handler
    /// at `prefix`, without asking. Other entries are kept.
    static func handlers(_ existing: JSONValue?, routing scheme: String, to prefix: String) -> JSONValue {
        guard case .object(var root)? = existing else {
            return handlers(
                ["defaultHandlersVersion": [:], "mimeTypes": [:], "schemes": [:]], routing: scheme, to: prefix)
        }
        var schemes: [String: JSONValue] = [:]
        if case .object(let members)? = root["schemes"] { schemes = members }
        // action 2 = "use helper app": the first handler listed, here our web handler.
        schemes[scheme] = [
            "action": 2,
            "handlers": [["name": "webauth", "uriTemplate": .string(prefix + "?url=%s")]],
        ]
        root["schemes"] = .object(schemes)
        return .object(root)
    }

    /// A description of the Firefox that holds the profile in `directory`, or `nil` when none
    /// does.
    static func runningBrowser(in directory: URL) -> String? {
        lockHolder(in: directory).map { "another Firefox (process \($0))" }
    }

    /// The process that holds the profile in `directory`, if a running Firefox does. Firefox
    /// locks a profile twice on Linux: an `fcntl` lock on `.parentlock`, which the kernel drops
    /// when the holder dies (so it is never stale), and a `lock` symbolic link to
    /// `address:+pid`. The first decides when the file exists; otherwise a link to a live
    /// process does.
    static func lockHolder(in directory: URL) -> Int32? {
        if let descriptor = try? Descriptor.open(directory.appendingPathComponent(".parentlock").path, .readWrite) {
            defer { Descriptor.close(descriptor) }
            return FileLock.recordLockHolder(descriptor)
        }
        guard let text = FileSystem.linkDestination(directory.appendingPathComponent("lock").path) else { return nil }
        guard let plus = text.lastIndex(of: "+"), let pid = Int32(text[text.index(after: plus)...]), pid > 0,
            OtherProcess.exists(pid)
        else { return nil }
        return pid
    }

    /// The text of a `user.js`: one `user_pref(name, value);` line per preference, sorted by name.
    static func userPreferencesFile(_ preferences: [String: FirefoxBrowser.PreferenceValue]) -> String {
        var text = "// Written by webauth at every start of its controlled Firefox; changes here are overwritten.\n"
        for name in preferences.keys.sorted() {
            let value = preferences[name]!
            text += "user_pref(\(FirefoxBrowser.PreferenceValue.javaScriptString(name)), \(value));\n"
        }
        return text
    }
}
