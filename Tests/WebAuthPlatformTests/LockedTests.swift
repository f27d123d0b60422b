// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform

@Suite("Locked")
struct LockedTests {
    /// Threads contending for one lock all the time, so that holders hand it to waiters: no
    /// update is lost. Under ThreadSanitizer (`scripts/sanitize`) this is also the proof that the
    /// sanitizer follows the hand-over: the same test with the standard library's `Mutex` is
    /// reported as a race.
    @Test func contendedUpdatesFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        let threads = 8
        let updates = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<updates { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == threads * updates)
    }

    private struct Refusal: Error, Equatable {}

    @Test func anErrorThrownInsideLeavesTheValueAsTheClosureLeftItAndReleasesTheLock() {
        let value = Locked([1])
        #expect(throws: Refusal()) {
            try value.withLock { (numbers: inout [Int]) throws(Refusal) in
                numbers.append(2)
                throw Refusal()
            }
        }
        #expect(value.withLock { $0 } == [1, 2], "taken again: the lock was released")
    }
}
