// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import NIOCore
import WebAuthPlatform

/// One request a session handed to this program, from the web-authentication browser's side:
/// answer it once with ``complete(withCallbackURL:)`` or ``cancel(code:message:)``.
///
/// `Sendable`: the connection is a NIO channel, which may be written from any thread; the
/// server closes it once the session has gone (marking the state `closed` under the lock
/// first), and an answer is written only under that lock and only before `closed`.
public final class AuthenticationBrowserConnection: Sendable {
    /// The request.
    public let request: AuthenticationBrowserRequest
    private let channel: any Channel
    private let state = Locked(State())

    private struct State {
        var answered = false
        var closed = false
    }

    init(channel: any Channel, request: AuthenticationBrowserRequest) {
        self.channel = channel
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
            guard channel.isActive else { return false }
            state.answered = true
            // The answer is the last thing this side sends: its output ends after it.
            let channel = channel
            channel.writeAndFlush(ByteBuffer(bytes: message.line)).whenComplete { _ in
                channel.close(mode: .output, promise: nil)
            }
            return true
        }
    }

    /// Marks the connection closed (the server then closes it). Returns whether the request was
    /// still unanswered (so the session went away first).
    func closeConnection() -> Bool {
        state.withLock { state in
            state.closed = true
            return !state.answered
        }
    }
}
