import Foundation
import Synchronization
import WebAuthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request handed to the web-authentication browser, from the session's side: a thread of
/// its own reads the program's answer and turns it into browser events.
///
/// `Sendable`: the descriptor is a plain integer owned by the reader thread, which closes it
/// under the lock after marking the state `closed`; ``dismiss()`` uses it only under that lock
/// and only before `closed`, so it is never used after it is closed (or reused).
final class AuthenticationBrowserPresentation: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    private let continuation: AsyncStream<BrowserEvent>.Continuation
    private let descriptor: Int32
    private let request: AuthenticationBrowserRequest
    private let browserName: String
    private let state = Mutex(State())

    private struct State {
        var answered = false
        var dismissed = false
        var closed = false
    }

    /// Takes ownership of the connected `descriptor`, over which `request` was sent.
    init(descriptor: Int32, request: AuthenticationBrowserRequest, browserName: String) {
        (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        self.descriptor = descriptor
        self.request = request
        self.browserName = browserName
        Thread.detachNewThread { self.readAnswer() }
    }

    /// Tells the program to cancel if it has not answered, and ends the connection.
    func dismiss() async {
        state.withLock { state in
            guard !state.closed, !state.dismissed else { return }
            state.dismissed = true
            if !state.answered {
                UnixSocket.writeAll(
                    descriptor, AuthenticationBrowserMessage.cancel(request.uuid).line,
                    deadline: .now + .seconds(1))
            }
            // Wakes the reader, which closes the descriptor.
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }

    private func readAnswer() {
        defer {
            continuation.finish()
            state.withLock { state in
                state.closed = true
                close(descriptor)
            }
        }
        while true {
            let read = UnixSocket.readLine(
                descriptor, limit: AuthenticationBrowserMessage.maximumLineLength, deadline: .now + .seconds(3600))
            let line: [UInt8]
            switch read {
            case .timedOut: continue
            case .line(let bytes): line = bytes
            case .endOfInput, .failed, .tooLong:
                if !state.withLock({ $0.dismissed }) {
                    continuation.yield(
                        .failed(
                            read == .tooLong
                                ? "\(browserName) sent a message longer than the protocol allows"
                                : "\(browserName) ended without answering the request"))
                }
                return
            }
            let message: AuthenticationBrowserMessage
            do {
                message = try AuthenticationBrowserMessage.parse(line)
            } catch {
                continuation.yield(.failed("\(browserName) broke the protocol: \(error.message)"))
                return
            }
            state.withLock { $0.answered = true }
            if case .canceled(let uuid, _, let message) = message, uuid != request.uuid {
                // A program that could not read the request refuses it without knowing its uuid.
                continuation.yield(.failed("\(browserName) refused the request: \(message)"))
                return
            }
            guard message.uuid == request.uuid else {
                continuation.yield(.failed("\(browserName) answered another request"))
                return
            }
            switch message {
            case .complete(_, let url):
                guard request.callback.matchesURL(url) else {
                    continuation.yield(
                        .failed(
                            "\(browserName) completed with \(url.redactedForLogs), which is not \(request.callback)"))
                    return
                }
                continuation.yield(.callback(url))
                // The program has answered for good: if the session does not take the URL (its
                // acceptance test refuses it), it ends rather than waits for nothing.
                continuation.yield(.failed("\(browserName) answered with a callback the session did not accept"))
            case .canceled(_, let code, let message):
                if code == 1 {
                    continuation.yield(.closedByUser)
                } else {
                    continuation.yield(.failed("\(browserName) cancelled the request (code \(code)): \(message)"))
                }
            case .begin, .cancel:
                continuation.yield(.failed("\(browserName) broke the protocol: it sent a session's message"))
            }
            return
        }
    }
}
