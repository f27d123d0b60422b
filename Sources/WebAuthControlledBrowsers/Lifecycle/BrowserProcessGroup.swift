// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// The processes of a launched browser's process group: the browser and the helpers it started.
///
/// Every controlled browser leads a process group of its own, so that ending the group ends every
/// helper too (``LaunchedBrowser/stop(connection:)``).
package enum BrowserProcessGroup {
    /// The processes of group `group` that are still running. Dead members (zombies waiting for a
    /// parent to collect them, orphans waiting for the system's init) hold nothing and are not
    /// counted.
    ///
    /// On systems without `/proc`, any process of the group counts.
    package static func liveMembers(of group: Int32) -> [Int32] {
        ProcessTable.liveMembers(ofGroup: group)
    }

    /// Whether process `pid` is still running: it exists and is not dead (a zombie, or exiting).
    package static func isLive(_ pid: Int32) -> Bool {
        ProcessTable.isLive(pid)
    }

    /// Waits (without blocking a thread) until group `group` has no live process or `limit` has
    /// passed. Returns whether the group is gone.
    @discardableResult
    package static func waitUntilGone(_ group: Int32, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !liveMembers(of: group).isEmpty {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
