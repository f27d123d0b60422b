// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// Turns SIGINT and SIGTERM into a call (cancelling the session), remembering which arrived,
/// so the command can end cleanly — port released, browser dismissed — with the right status.
///
/// The handlers are installed with `signal(2)` before `body` runs, so a signal that arrives at
/// any moment after that is caught: the handler writes its number to a pipe (all a handler may
/// safely do) and a thread of the trap's own reads it and makes the call. (A `DispatchSource`
/// registers asynchronously, and a Ctrl-C in that window was lost.)
final class InterruptTrap: Sendable {
    private let receivedSignal = Locked<Int32?>(nil)

    /// The first signal that arrived, if any.
    var received: Int32? { receivedSignal.withLock { $0 } }

    /// Installs the trap while `body` runs, then restores the default handlers.
    func whileTrapping<Result>(
        onSignal: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        guard let (readEnd, writeEnd) = try? Pipe.make() else {
            // No pipe (out of descriptors): run without a trap; Ctrl-C then ends the process.
            return try await body()
        }

        Thread.detachNewThread { [self] in
            var number: [UInt8] = [0]
            // The write end closed (the trap is gone) or the pipe failed: the thread ends.
            while (try? Descriptor.read(readEnd, into: &number)) == 1 {
                receivedSignal.withLock { $0 = $0 ?? Int32(number[0]) }
                onSignal()
            }
            Descriptor.close(readEnd)
        }

        let signals = [SignalNumber.interrupt, SignalNumber.terminate]
        SignalForwarding.install(signals, writingTo: writeEnd)
        defer {
            SignalForwarding.remove(signals)
            Descriptor.close(writeEnd)
        }
        return try await body()
    }
}
