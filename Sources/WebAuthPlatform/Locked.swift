// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that threads share, behind a lock: the one way the package keeps mutable state that
/// more than one thread or task reaches.
///
/// ```swift
/// private let state = Locked(State())
///
/// func finish() -> Bool {
///     state.withLock { state in
///         guard !state.finished else { return false }
///         state.finished = true
///         return true
///     }
/// }
/// ```
///
/// The lock is a `pthread_mutex_t`, not the standard library's `Synchronization.Mutex`, because
/// ThreadSanitizer cannot check code behind a `Mutex` on Linux: a contended `Mutex` is handed from one holder to the next by the kernel
/// (`FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI` in the uninstrumented `libswiftSynchronization.so`), so the
/// sanitizer sees no order between the two holders and reports every access to the value as a
/// race. `pthread_mutex_lock` and `pthread_mutex_unlock` are intercepted by the sanitizer, so a
/// report about a value behind this lock is a real race, and none has to be suppressed.
///
/// The lock is not recursive: calling `withLock` again from inside its closure deadlocks. Keep
/// closures short, and never suspend, wait or call out to unknown code in them.
package final class Locked<Value> {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Keeps `value` behind a new lock.
    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed (\(status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// The value is reached only through `withLock`, under the lock: sharing the box is as safe as
// sharing the value.
extension Locked: @unchecked Sendable where Value: Sendable {}
