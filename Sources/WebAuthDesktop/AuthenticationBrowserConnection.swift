import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One request a session handed to this program, from the web-authentication browser's side:
/// answer it once with ``complete(withCallbackURL:)`` or ``cancel(code:message:)``.
///
/// `Sendable`: the descriptor is a plain integer owned by the server's reader thread, which
/// closes it under the lock after marking the state `closed`; answers write to it only under
/// that lock and only before `closed`.
public final class AuthenticationBrowserConnection: Sendable {
    /// The request.
    public let request: AuthenticationBrowserRequest
    private let descriptor: Int32
    private let state = Mutex(State())

    private struct State {
        var answered = false
        var closed = false
    }

    init(descriptor: Int32, request: AuthenticationBrowserRequest) {
        self.descriptor = descriptor
        self.request = request
    }

    /// Whether the request has been answered (by this side).
    public var isAnswered: Bool { state.withLock { $0.answered } }

    /// Hands `url` to the session as the callback. Only the first answer counts.
    ///
    /// - Returns: Whether the answer was sent (`false`: already answered, or the session has gone).
    @discardableResult
    public func complete(withCallbackURL url: URL) -> Bool {
        answer(.complete(request.uuid, url))
    }

    /// Tells the session the request was cancelled: with `code` 1 (`canceledLogin`) the session
    /// ends as cancelled by the person; with another code it ends as failed, with `message`.
    ///
    /// - Returns: Whether the answer was sent (`false`: already answered, or the session has gone).
    @discardableResult
    public func cancel(code: Int, message: String) -> Bool {
        answer(.canceled(request.uuid, code: code, message: message))
    }

    private func answer(_ message: AuthenticationBrowserMessage) -> Bool {
        state.withLock { state in
            guard !state.answered, !state.closed else { return false }
            state.answered = true
            let sent = UnixSocket.writeAll(descriptor, message.line, deadline: .now + .seconds(2))
            shutdown(descriptor, Int32(SHUT_WR))
            return sent
        }
    }

    /// Marks the connection closed and closes the descriptor. Returns whether the request was
    /// still unanswered (so the session went away first).
    func closeConnection() -> Bool {
        state.withLock { state in
            state.closed = true
            close(descriptor)
            return !state.answered
        }
    }
}
