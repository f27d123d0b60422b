// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import WebAuthCore
import WebAuthDesktopSocket
import WebAuthPlatform

/// A request handed to the web-authentication browser, from the session's side: the
/// connection runs on SwiftNIO, and a task reads the program's answer and turns it into
/// browser events.
///
/// `Sendable`: its stored properties are immutable `Sendable` values (the connection is a NIO
/// channel, which may be written and closed from any thread) and its state is behind a lock (`Locked`).
final class AuthenticationBrowserPresentation: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    private let continuation: AsyncStream<BrowserEvent>.Continuation
    private let channel: any Channel
    private let request: AuthenticationBrowserRequest
    private let browserName: String
    private let state = Locked(State())

    private struct State {
        var answered = false
        var dismissed = false
    }

    private typealias Connection = NIOAsyncChannel<SocketLine, ByteBuffer>

    private init(channel: any Channel, request: AuthenticationBrowserRequest, browserName: String) {
        (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        self.channel = channel
        self.request = request
        self.browserName = browserName
    }

    /// Takes ownership of the connected `descriptor`, over which `request` was sent, and starts
    /// reading the program's answer.
    static func start(
        descriptor: Int32, request: AuthenticationBrowserRequest, browserName: String
    ) async throws -> AuthenticationBrowserPresentation {
        let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .withConnectedSocket(descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineFrameDecoder(limit: AuthenticationBrowserMessage.maximumLineLength)))
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        let presentation = AuthenticationBrowserPresentation(
            channel: connection.channel, request: request, browserName: browserName)
        Task { await presentation.readAnswer(connection) }
        return presentation
    }

    /// Tells the program to cancel if it has not answered, and ends the connection.
    func dismiss() async {
        let (first, answered) = state.withLock { state in
            defer { state.dismissed = true }
            return (!state.dismissed, state.answered)
        }
        guard first else { return }
        if !answered {
            try? await channel.writeAndFlush(ByteBuffer(bytes: AuthenticationBrowserMessage.cancel(request.uuid).line))
        }
        // Ends the reading task too.
        try? await channel.close()
    }

    private func readAnswer(_ connection: Connection) async {
        defer { continuation.finish() }
        try? await connection.executeThenClose { inbound, _ in
            var lines = inbound.makeAsyncIterator()
            let frame = try? await lines.next()
            guard case .line(let line) = frame else {
                if !state.withLock({ $0.dismissed }) {
                    continuation.yield(
                        .failed(
                            frame == .tooLong
                                ? "\(browserName) sent a message longer than the protocol allows"
                                : "\(browserName) ended without answering the request"))
                }
                return
            }
            answer(line)
        }
    }

    /// Turns the program's answer, `line`, into events.
    private func answer(_ line: [UInt8]) {
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
    }
}
