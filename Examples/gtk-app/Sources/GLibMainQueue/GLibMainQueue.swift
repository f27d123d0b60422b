// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import CMainQueueDrain
import Foundation
import WebAuthCompat

/// Swift's main dispatch queue, drained by GLib's main loop: `DispatchQueue.main.async`,
/// `@MainActor` tasks and OpenCombine's main-queue scheduling run on the thread that runs
/// `g_application_run` (or `g_main_loop_run`), between GTK's own events.
///
/// While GLib's main loop owns the main thread, nothing else drains the main queue, so that
/// work would never run. ``install()`` adds a GLib source that waits on libdispatch's own
/// wake-up handle for run loops (the one Foundation's `RunLoop` uses): the loop wakes when work
/// is queued and runs it, and never polls.
///
/// ```swift
/// GLibMainQueue.install()   // on the main thread, before g_application_run
/// let status = g_application_run(application, argc, argv)
/// ```
///
/// It also tells webauth's sessions with Apple's API that the main queue is drained
/// (`MainThreadDelivery.declareMainQueueDrained()`), so that their completion handlers run on
/// the main thread, as on Apple platforms.
public enum GLibMainQueue {
    /// Whether ``install()`` has run.
    @MainActor private static var installed = false

    /// Adds the drain to GLib's default main context, and runs what is already queued. Call it
    /// once, on the main thread, before running the main loop; later calls do nothing.
    @MainActor
    public static func install() {
        precondition(Thread.isMainThread, "GLibMainQueue.install() must be called on the main thread")
        guard !installed else { return }
        installed = true
        _ = webauth_example_main_queue_drain_install()
        MainThreadDelivery.declareMainQueueDrained()
    }
}
