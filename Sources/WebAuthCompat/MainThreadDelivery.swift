// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    import Dispatch
    import Foundation
    import WebAuthPlatform

    /// The thread Apple's sessions call their completion handlers on, on Linux: the main queue
    /// whenever something drains it (in a GTK app, the main thread), as on Apple platforms;
    /// otherwise the thread the result arrives on.
    ///
    /// On Apple platforms the main run loop always runs, so ``ASWebAuthenticationSession``,
    /// ``SFAuthenticationSession`` and ``WebAuthenticationSession`` deliver on the main thread
    /// and a view model may update its state from the handler. On Linux the main thread belongs to
    /// whoever owns it: a GTK app runs GLib's main loop there, a command-line program may block
    /// in its own code. So the sessions follow one rule:
    ///
    /// 1. When a session starts, it sends one empty block to `DispatchQueue.main`.
    /// 2. When its result is ready on the main thread, the handler is called there, at once.
    /// 3. Otherwise, if that block has run by then — or ``declareMainQueueDrained()`` was
    ///    called — the handler is sent to `DispatchQueue.main`, and runs with the main queue.
    /// 4. Otherwise the handler is called on the thread the result arrives on, as it always was
    ///    on Linux: a program that blocks its main thread waiting for the result still gets it.
    ///
    /// What drains the main queue: `dispatchMain()`, an `async` `@main` (or top-level code with
    /// `await`), Foundation's `RunLoop.main`, and a GLib main loop with a drain installed (the
    /// GTK example under `Examples/gtk-app` installs one; see the article "A desktop app" in the
    /// WebAuth documentation). A GLib loop or a run loop drains it on the main thread itself.
    /// `dispatchMain()` ends the process's first thread and libdispatch serves the main queue
    /// (and the main actor) from another one: the handler then runs on the main queue,
    /// serialized with all main-actor work, where `Thread.isMainThread` is `false`. A program
    /// that never drains the queue keeps one empty block per session there, a few bytes.
    ///
    /// A drain that is installed before any session starts should say so, so that a result
    /// ready before the main loop's next turn (a session that fails at once) goes to the main
    /// thread too:
    ///
    /// ```swift
    /// MainThreadDelivery.declareMainQueueDrained()   // from now on, the main loop drains it
    /// ```
    public enum MainThreadDelivery {
        /// Whether a drain declared itself with ``declareMainQueueDrained()``.
        private static let declared = Locked(false)

        /// Declares that the main dispatch queue is drained on the main thread from now until the
        /// program ends, such as by a GLib main loop that watches the queue's handle: sessions
        /// then deliver there without waiting to see their own probe run.
        ///
        /// Call it only when that is true: a handler sent to a main queue that nothing drains
        /// never runs.
        public static func declareMainQueueDrained() {
            declared.withLock { $0 = true }
        }

        /// Whether ``declareMainQueueDrained()`` was called.
        public static var isMainQueueDeclaredDrained: Bool {
            declared.withLock { $0 }
        }
    }

    /// One session's probe of the main queue, and the delivery it decides (see
    /// ``MainThreadDelivery``).
    final class MainQueueProbe: Sendable {
        private let ran = Locked(false)

        /// Sends the probe: an empty block on `DispatchQueue.main` that records that it ran.
        init() {
            let ran = self.ran
            DispatchQueue.main.async { ran.withLock { $0 = true } }
        }

        /// Whether the main queue is drained: the probe ran, or a drain declared itself.
        var mainQueueIsDrained: Bool {
            ran.withLock { $0 } || MainThreadDelivery.isMainQueueDeclaredDrained
        }

        /// Runs `handler` on the main thread when the main queue is drained (at once when
        /// already there), else here.
        func deliver(_ handler: @escaping () -> Void) {
            if Thread.isMainThread || !mainQueueIsDrained {
                handler()
                return
            }
            let handOver = HandOver(handler)
            DispatchQueue.main.async { handOver.run() }
        }

        /// A completion handler on its way to the main thread.
        private struct HandOver: @unchecked Sendable {
            // @unchecked Sendable: the handler is not Sendable (it is not on Apple platforms
            // either). It is moved, not shared: this thread lets go of it here, and the main
            // thread calls it once.
            let run: () -> Void

            init(_ run: @escaping () -> Void) { self.run = run }
        }
    }
#endif
