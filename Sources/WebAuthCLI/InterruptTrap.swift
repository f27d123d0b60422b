import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where the signal handler writes the number of a signal that arrived: the write end of the
/// trap's pipe, or -1 while no trap is installed. A signal handler can capture nothing, so this
/// is global; an atomic is safe to read there.
private let interruptPipeWriteEnd = Atomic<Int32>(-1)

/// Turns SIGINT and SIGTERM into a call (cancelling the session), remembering which arrived,
/// so the command can end cleanly — port released, browser dismissed — with the right status.
///
/// The handlers are installed with `signal(2)` before `body` runs, so a signal that arrives at
/// any moment after that is caught: the handler writes its number to a pipe (all a handler may
/// safely do) and a thread of the trap's own reads it and makes the call. (A `DispatchSource`
/// registers asynchronously, and a Ctrl-C in that window was lost.)
final class InterruptTrap: Sendable {
    private let receivedSignal = Mutex<Int32?>(nil)

    /// The first signal that arrived, if any.
    var received: Int32? { receivedSignal.withLock { $0 } }

    /// Installs the trap while `body` runs, then restores the default handlers.
    func whileTrapping<Result>(
        onSignal: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // No pipe (out of descriptors): run without a trap; Ctrl-C then ends the process.
            return try await body()
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        interruptPipeWriteEnd.store(writeEnd, ordering: .sequentiallyConsistent)

        Thread.detachNewThread { [self] in
            var number: UInt8 = 0
            while true {
                let count = read(readEnd, &number, 1)
                if count == 1 {
                    receivedSignal.withLock { $0 = $0 ?? Int32(number) }
                    onSignal()
                } else if count == 0 || errno != EINTR {
                    break  // the write end was closed: the trap is gone
                }
            }
            close(readEnd)
        }

        let signals = [SIGINT, SIGTERM]
        for number in signals {
            _ = signal(number) { caught in
                var number = UInt8(truncatingIfNeeded: caught)
                let end = interruptPipeWriteEnd.load(ordering: .sequentiallyConsistent)
                if end >= 0 { _ = write(end, &number, 1) }
            }
        }
        defer {
            for number in signals { _ = signal(number, SIG_DFL) }
            interruptPipeWriteEnd.store(-1, ordering: .sequentiallyConsistent)
            close(writeEnd)
        }
        return try await body()
    }
}
