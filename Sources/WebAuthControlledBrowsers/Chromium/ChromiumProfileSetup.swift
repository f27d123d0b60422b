// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// What a Chromium profile gets before each start — the preferences a controlled Chromium needs,
/// written into `Default/Preferences` — and whether another Chromium runs on it.
///
/// One preference for now: **no network prediction** (`net.network_prediction_options` = 2, "never").
/// Chromium otherwise preconnects — DNS lookup, TCP and TLS — to a page-initiated navigation's
/// host the moment the navigation starts, before `Fetch` pauses its request. For an `https`
/// callback reached by a link or an auto-submitting form (`response_mode=form_post`) that means
/// a lookup of, and a connection to, the callback host although the request itself is stopped.
/// With prediction off nothing leaves the browser until the request does. This blocks nothing
/// the person asks for; it only stops speculative connections.
enum ChromiumProfileSetup {
    /// `net.network_prediction_options`: 2 is "never predict" (no preconnect, no DNS prefetch).
    static let networkPredictionNever = 2

    /// Sets the preferences in the profile at `profile`, keeping every other preference an
    /// existing (shared) profile has. Runs before the browser starts, so nothing else writes
    /// the file at the same time.
    ///
    /// - Returns: Whether the file now has them; `false` if an existing file is not a JSON
    ///   object (it is then left alone, and Chromium runs with its own settings).
    @discardableResult
    static func apply(to profile: URL) -> Bool {
        let directory = profile.appendingPathComponent("Default", isDirectory: true)
        let file = directory.appendingPathComponent("Preferences")
        try? FileSystem.makeDirectory(directory.path, mode: 0o700)
        var preferences: [String: Any] = [:]
        if let data = try? Data(contentsOf: file), !data.isEmpty {
            guard let existing = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                return false
            }
            preferences = existing
        }
        var network = preferences["net"] as? [String: Any] ?? [:]
        if network["network_prediction_options"] as? Int == networkPredictionNever { return true }
        network["network_prediction_options"] = networkPredictionNever
        preferences["net"] = network
        guard let data = try? JSONSerialization.data(withJSONObject: preferences) else { return false }
        // Written to a private temporary file, then renamed over the old one.
        let temporary = directory.appendingPathComponent(".Preferences.webauth-\(CurrentProcess.id)").path
        try? FileSystem.removeFile(temporary)
        do {
            let descriptor = try Descriptor.open(temporary, .write, [.create, .exclusive], mode: 0o600)
            defer { Descriptor.close(descriptor) }
            try Descriptor.writeAll(descriptor, [UInt8](data))
            try FileSystem.rename(temporary, to: file.path)
            return true
        } catch {
            try? FileSystem.removeFile(temporary)
            return false
        }
    }

    /// A description of the Chromium that holds `profile` (its `SingletonLock` names a live
    /// process of this host, or another host), or `nil` when none does.
    static func runningBrowser(in profile: URL) -> String? {
        let link = profile.appendingPathComponent("SingletonLock").path
        guard let target = FileSystem.linkDestination(link) else { return nil }
        // Chromium writes `<hostname>-<pid>`; the host name may itself contain `-`.
        guard let dash = target.lastIndex(of: "-"), let pid = Int32(target[target.index(after: dash)...]), pid > 0
        else { return nil }
        let host = String(target[..<dash])
        guard host == CurrentProcess.hostName else { return "a Chromium on host \(host)" }
        guard OtherProcess.exists(pid) else { return nil }  // stale: Chromium takes it over
        return "another Chromium (process \(pid))"
    }
}
