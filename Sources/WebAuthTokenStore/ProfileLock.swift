// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// An exclusive `flock(2)` lock on a file, shared by every store that uses the same path: other
/// processes and other tasks of this one (each acquisition opens the file anew, and `flock`
/// locks belong to the open file description, so two opens in one process exclude each other).
///
/// Acquiring never blocks a thread: it tries `LOCK_EX | LOCK_NB` and sleeps a few milliseconds
/// between tries, up to a time limit. The lock ends when the descriptor is closed — also when
/// the process dies, so a crashed holder never leaves it stuck.
package enum ProfileLock {
    /// Runs `body` while holding the lock on `path` (created 0600 if missing).
    package static func withLock<Result>(
        at path: String, timeout: Duration, _ body: () async throws -> Result
    ) async throws -> Result {
        // Read-only is enough for flock, and works even if a umask left the file 0400.
        let descriptor: Int32
        do {
            descriptor = try Descriptor.open(path, .read, [.create, .noFollow], mode: 0o600)
        } catch {
            throw TokenStoreError.system("cannot open the lock file \(path)", error)
        }
        defer { Descriptor.close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause = Duration.milliseconds(1)
        while true {
            do {
                if try FileLock.tryLock(descriptor) { break }
            } catch {
                throw TokenStoreError.system("cannot lock \(path)", error)
            }
            guard clock.now < deadline else {
                throw TokenStoreError(
                    .lockTimeout, "could not lock \(path) within \(timeout): another task or process holds it")
            }
            // A little jitter so waiters do not retry in step.
            try await Task.sleep(for: pause + .microseconds(Int.random(in: 0..<1000)))
            pause = min(pause * 2, .milliseconds(16))
        }
        return try await body()
    }
}
