import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into a call (cancelling the session), remembering which arrived,
/// so the command can end cleanly — port released, browser dismissed — with the right status.
final class InterruptTrap: Sendable {
    private let receivedSignal = Mutex<Int32?>(nil)

    /// The first signal that arrived, if any.
    var received: Int32? { receivedSignal.withLock { $0 } }

    /// Installs the trap while `body` runs, then restores the default handlers.
    func whileTrapping<Result>(
        onSignal: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let signals = [SIGINT, SIGTERM]
        let sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                receivedSignal.withLock { $0 = $0 ?? number }
                onSignal()
            }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            for number in signals { signal(number, SIG_DFL) }
        }
        return try await body()
    }
}
