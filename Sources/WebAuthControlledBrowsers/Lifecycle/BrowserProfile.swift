// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import WebAuthCore
import WebAuthPlatform

/// The data directory a controlled browser runs with, held by this session until
/// ``release()``.
///
/// - An **ephemeral** profile is a new directory, created with mode 0700 from the start, under
///   `$XDG_RUNTIME_DIR/webauth/profiles` (or a private 0700 directory in the temporary
///   directory), and removed when the session ends. Profiles left behind by a process that died
///   are removed the next time one is created.
/// - A **shared** profile lives under `$XDG_DATA_HOME/webauth/profiles/<browser>` (default
///   `~/.local/share/…`) and is kept, so a person who signed in once stays signed in. The session
///   holds it with a ``SharedProfileLock``.
package struct BrowserProfile: Sendable {
    /// The directory to pass to the browser.
    package let directory: URL
    /// Whether the directory is removed by ``release()``.
    package let isEphemeral: Bool
    private let lock: SharedProfileLock?

    /// Takes a profile for one launch of `browser` (a short name such as `chromium`) and prepares
    /// it with `setUp`, on a thread of its own: a profile is directories and files, and no thread
    /// of the concurrency pool should wait for the disk.
    ///
    /// - Parameters:
    ///   - browser: The browser's short name, which names the profile's directory.
    ///   - ephemeral: A fresh profile removed at the end, or the shared one.
    ///   - environment: Where `XDG_RUNTIME_DIR`, `XDG_DATA_HOME` and `HOME` are read.
    ///   - runningBrowser: Who runs on the shared profile now, if anyone (see
    ///     ``SharedProfileLock/acquire(profile:runningBrowser:)``).
    ///   - setUp: The browser's own preparation of the directory; if it throws, the profile is
    ///     released again.
    /// - Returns: The profile, and what `setUp` returned.
    static func claim<Setup: Sendable>(
        browser: String, ephemeral: Bool, environment: [String: String],
        runningBrowser: @escaping @Sendable (URL) -> String?,
        setUp: @escaping @Sendable (URL) throws(WebAuthenticationSessionError) -> Setup
    ) async throws(WebAuthenticationSessionError) -> (profile: BrowserProfile, setUp: Setup) {
        let claimed = await offPool { () -> Result<(BrowserProfile, Setup), WebAuthenticationSessionError> in
            do throws(WebAuthenticationSessionError) {
                let profile: BrowserProfile
                if ephemeral {
                    profile = try BrowserProfile.ephemeral(browser: browser, environment: environment)
                } else {
                    let directory = try BrowserProfile.sharedDirectory(browser: browser, environment: environment)
                    let lock = try SharedProfileLock.acquire(profile: directory, runningBrowser: runningBrowser)
                    profile = BrowserProfile(directory: directory, isEphemeral: false, lock: lock)
                }
                do throws(WebAuthenticationSessionError) {
                    return .success((profile, try setUp(profile.directory)))
                } catch {
                    profile.removeNow()
                    profile.lock?.release()
                    throw error
                }
            } catch {
                return .failure(error)
            }
        }
        let (profile, setUpResult) = try claimed.get()
        return (profile, setUpResult)
    }

    /// Creates a fresh ephemeral profile for `browser` (a short name such as `chromium`).
    package static func ephemeral(
        browser: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(WebAuthenticationSessionError) -> BrowserProfile {
        let base = try ephemeralBase(environment: environment)
        removeStaleProfiles(in: base)
        let name = "\(browser)-\(CurrentProcess.id)-\(UUID().uuidString.prefix(8).lowercased())"
        let directory = base.appendingPathComponent(name, isDirectory: true)
        try makePrivateDirectory(directory)
        return BrowserProfile(directory: directory, isEphemeral: true, lock: nil)
    }

    /// The shared, persistent profile directory for `browser`, created if needed.
    static func sharedDirectory(
        browser: String, environment: [String: String]
    ) throws(WebAuthenticationSessionError) -> URL {
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        var directory = dataHome
        for component in ["webauth", "profiles", browser] {
            directory = directory.appendingPathComponent(component, isDirectory: true)
            try makePrivateDirectory(directory, mayExist: true)
        }
        return directory
    }

    /// Lets the profile go: removes an ephemeral one and everything in it, on a thread of its own
    /// (a browser profile is hundreds of files), retrying briefly in case a helper was still
    /// writing into it; releases a shared one's lock.
    ///
    /// - Returns: Whether an ephemeral profile is gone (always `true` for a shared one).
    @discardableResult
    func release() async -> Bool {
        defer { lock?.release() }
        guard isEphemeral else { return true }
        for _ in 0..<5 {
            let removed = await Self.offPool { [self] in
                removeNow()
                return !FileManager.default.fileExists(atPath: directory.path)
            }
            if removed { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Removes an ephemeral profile at once, on the calling thread; does nothing for a shared one.
    private func removeNow() {
        guard isEphemeral else { return }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs blocking `work` on a thread of its own, so that no thread of the concurrency pool
    /// waits for the disk.
    private static func offPool<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    // MARK: - Private directories

    /// `$XDG_RUNTIME_DIR/webauth/profiles`, or `$TMPDIR/webauth-<uid>/profiles`.
    static func ephemeralBase(environment: [String: String]) throws(WebAuthenticationSessionError) -> URL {
        let root: URL
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
            FileManager.default.isWritableFile(atPath: runtime)
        {
            root = URL(fileURLWithPath: runtime).appendingPathComponent("webauth", isDirectory: true)
        } else {
            let temporary = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
            root = URL(fileURLWithPath: temporary).appendingPathComponent(
                "webauth-\(CurrentProcess.realUserID)", isDirectory: true)
        }
        try makePrivateDirectory(root, mayExist: true)
        let profiles = root.appendingPathComponent("profiles", isDirectory: true)
        try makePrivateDirectory(profiles, mayExist: true)
        return profiles
    }

    /// Creates `directory` with mode 0700 (never wider, whatever the umask), or — when it may
    /// exist — checks that the existing one is a real directory owned by us with mode 0700.
    static func makePrivateDirectory(_ directory: URL, mayExist: Bool = false) throws(WebAuthenticationSessionError) {
        let path = directory.path
        do {
            try FileSystem.makeDirectory(path, mode: 0o700)
            // mkdir applies the umask, which can only remove bits; make the mode exact.
            try? FileSystem.setPermissions(path, 0o700)
            return
        } catch  where error == .alreadyExists && mayExist {
        } catch {
            throw .browserLaunchFailed("cannot create the browser profile directory \(path): \(error)")
        }
        guard let status = try? FileSystem.status(path), status.kind == .directory,
            status.owner == CurrentProcess.realUserID
        else {
            throw .browserLaunchFailed("\(path) exists but is not a directory of this user; remove it")
        }
        if status.permissions & 0o077 != 0 {
            guard (try? FileSystem.setPermissions(path, 0o700)) != nil else {
                throw .browserLaunchFailed("\(path) is accessible to other users and cannot be made private")
            }
        }
    }

    /// Removes profiles named `<browser>-<pid>-<random>` whose process no longer exists.
    static func removeStaleProfiles(in base: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base.path) else { return }
        for name in names {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, let pid = Int32(parts[parts.count - 2]), pid > 0 else { continue }
            if OtherProcess.isGone(pid) {
                try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
            }
        }
    }
}
