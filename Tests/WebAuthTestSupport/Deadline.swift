// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// What `operation` returns, or `nil` when `limit` passes first (the operation is then
/// cancelled): the one way a test bounds a wait for something it can await.
///
/// ```swift
/// let url = await withDeadline(.seconds(30)) { for await url in listener.callbacks { return url }; return nil }
/// ```
public func withDeadline<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async -> Value?
) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask(operation: operation)
        group.addTask {
            // Real time is the point: the bound itself.
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// The first element of `sequence`, or `nil` when it ends or `limit` passes first.
public func firstElement<Sequence: AsyncSequence & Sendable>(
    of sequence: Sequence, within limit: Duration
) async -> Sequence.Element? where Sequence.Element: Sendable {
    await withDeadline(limit) {
        do {
            for try await element in sequence { return element }
        } catch {}
        return nil
    }
}

/// Runs `action` once `limit` has passed, unless the returned task is cancelled first; its
/// value says whether `action` ran. The one way a test bounds a wait it cannot cancel (a
/// process's exit, a request in flight): cancel the watchdog when the wait ends.
///
/// ```swift
/// let watchdog = watchdog(after: .seconds(60)) { await process.terminate() }
/// let status = await process.exitStatus()
/// watchdog.cancel()
/// ```
@discardableResult
public func watchdog(after limit: Duration, _ action: @escaping @Sendable () async -> Void) -> Task<Bool, Never> {
    Task {
        // Real time is the point: a bound against a hang, whatever clock the code under test reads.
        guard (try? await Task.sleep(for: limit)) != nil else { return false }
        await action()
        return true
    }
}
