// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthPlatform

/// Keeps two sign-ins off one shared browser profile.
///
/// A browser allows one instance per profile: a second Chromium started on it hands its URL to
/// the first and exits, a second Firefox refuses to start; either would leave a session waiting on
/// a browser it does not control. So a shared profile is taken with an advisory lock (`flock` on
/// `webauth-session.lock`, held until the session ends and released by the kernel if the process
/// dies), and a browser already running on it — which each browser tells in its own way — is
/// refused too.
final class SharedProfileLock: Sendable {
    /// The lock file's name inside the profile.
    static let fileName = "webauth-session.lock"

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes `profile`, or explains why it is in use.
    ///
    /// - Parameters:
    ///   - profile: The shared profile's directory.
    ///   - runningBrowser: A description of the browser that runs on the profile now, or `nil`
    ///     when none does.
    static func acquire(
        profile: URL, runningBrowser: (URL) -> String?
    ) throws(WebAuthenticationSessionError) -> SharedProfileLock {
        let path = profile.appendingPathComponent(fileName).path
        let descriptor: Int32
        do {
            descriptor = try Descriptor.open(path, .readWrite, [.create, .noFollow], mode: 0o600)
        } catch {
            throw .browserLaunchFailed("cannot open \(path): \(error)")
        }
        guard (try? FileLock.tryLock(descriptor)) == true else {
            Descriptor.close(descriptor)
            throw inUse(profile, by: "another sign-in")
        }
        if let owner = runningBrowser(profile) {
            FileLock.unlock(descriptor)
            Descriptor.close(descriptor)
            throw inUse(profile, by: owner)
        }
        return SharedProfileLock(descriptor: descriptor)
    }

    /// Lets the next session have the profile.
    func release() {
        FileLock.unlock(descriptor)
        Descriptor.close(descriptor)
    }

    private static func inUse(_ profile: URL, by owner: String) -> WebAuthenticationSessionError {
        .browserLaunchFailed(
            "the shared browser profile is in use by \(owner); finish or cancel that sign-in first, "
                + "or use an ephemeral session (profile: \(profile.path))")
    }
}
