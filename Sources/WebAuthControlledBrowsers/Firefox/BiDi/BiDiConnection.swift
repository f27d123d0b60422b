// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import NIOCore
import WebAuthPlatform

/// A WebDriver BiDi client over a ``WebSocketClient``: commands carry ids and are answered
/// through continuations; events are handed on, in order, through ``events``.
///
/// Sendable by construction: the only mutable state (the next id and the commands awaiting an
/// answer) sits behind a lock (`Locked`), and one task reads the socket. Commands leave in the order
/// they are sent or posted.
final class BiDiConnection: Sendable {
    /// An event the browser sent, such as `network.beforeRequestSent`.
    struct Event: Sendable, Hashable {
        var method: String
        var params: JSONValue
    }

    /// A command failed: the browser answered with an error, or never answered.
    struct CommandError: Error, CustomStringConvertible, Hashable {
        /// The command, such as `session.new`.
        var method: String
        /// The BiDi error code, such as `unknown command`, or `connection closed` / `timeout`.
        var code: String
        /// The browser's message, if any.
        var message: String

        var description: String { "\(method) failed: \(code)\(message.isEmpty ? "" : ": \(message)")" }

        /// The browser does not implement the command.
        var isUnknownCommand: Bool { code == "unknown command" }
    }

    /// Events, in the order the browser sent them. Finishes when the connection closes.
    let events: AsyncStream<Event>

    private let socket: WebSocketClient
    private let state: Locked<State>
    private let reader: Locked<Task<Void, Never>?>
    private let logger: Logger

    private struct State: Sendable {
        var nextID = 1
        var pending: [Int: Pending] = [:]
        var closed = false
    }

    private struct Pending: Sendable {
        var method: String
        var continuation: CheckedContinuation<JSONValue, any Error>?
    }

    /// Starts reading `socket`.
    init(socket: WebSocketClient, logger: Logger) {
        self.socket = socket
        self.logger = logger
        self.state = Locked(State())
        self.reader = Locked(nil)
        let (events, eventContinuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        let task = Task { [self] in
            for await text in socket.messages {
                handle(text, events: eventContinuation)
            }
            eventContinuation.finish()
            failAllPending()
        }
        reader.withLock { $0 = task }
    }

    /// Sends `method` with `params` and waits for the answer's `result`.
    ///
    /// - Throws: ``CommandError`` when the browser answers with an error, the connection closes,
    ///   or no answer arrives within `timeout`.
    @discardableResult
    func send(_ method: String, _ params: JSONValue = [:], timeout: Duration = .seconds(10)) async throws -> JSONValue {
        let (id, text) = register(method, params, continuation: nil)
        guard let id else { throw CommandError(method: method, code: "connection closed", message: "") }
        let watchdog = Task { [self] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            resolve(
                id,
                with: .failure(CommandError(method: method, code: "timeout", message: "no answer within \(timeout)")))
        }
        defer { watchdog.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let alreadyResolved = state.withLock { state -> Bool in
                guard state.pending[id] != nil else { return true }
                state.pending[id]?.continuation = continuation
                return false
            }
            if alreadyResolved {
                continuation.resume(throwing: CommandError(method: method, code: "connection closed", message: ""))
                return
            }
            socket.write(text).whenFailure { [self] error in
                resolve(
                    id, with: .failure(CommandError(method: method, code: "connection closed", message: "\(error)")))
            }
        }
    }

    /// Sends `method` without waiting for the answer; an error answer is logged. Commands leave
    /// in the order of the calls.
    func post(_ method: String, _ params: JSONValue) {
        let (id, text) = register(method, params, continuation: nil)
        guard let id else { return }
        socket.write(text).whenFailure { [self] _ in
            resolve(id, with: .failure(CommandError(method: method, code: "connection closed", message: "")))
        }
    }

    /// Whether the connection is still open.
    var isOpen: Bool { socket.isOpen && !state.withLock(\.closed) }

    /// Closes the connection; commands still waiting fail.
    func close() async {
        await socket.close()
        failAllPending()
        let task = reader.withLock { $0 }
        await task?.value
    }

    // MARK: - Internals

    private func register(
        _ method: String, _ params: JSONValue, continuation: CheckedContinuation<JSONValue, any Error>?
    ) -> (Int?, String) {
        let id = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.pending[id] = Pending(method: method, continuation: continuation)
            return id
        }
        guard let id else { return (nil, "") }
        let message: JSONValue = ["id": .number(Double(id)), "method": .string(method), "params": params]
        return (id, String(decoding: message.serialized, as: UTF8.self))
    }

    private func resolve(_ id: Int, with result: Result<JSONValue, CommandError>) {
        let pending = state.withLock { $0.pending.removeValue(forKey: id) }
        guard let pending else { return }
        if let continuation = pending.continuation {
            continuation.resume(with: result.mapError { $0 })
        } else if case .failure(let error) = result, error.code != "connection closed" {
            logger.debug("BiDi command failed", metadata: ["error": "\(error)"])
        }
    }

    private func failAllPending() {
        let pending = state.withLock { state in
            state.closed = true
            defer { state.pending = [:] }
            return state.pending
        }
        for (_, entry) in pending {
            entry.continuation?.resume(
                throwing: CommandError(method: entry.method, code: "connection closed", message: ""))
        }
    }

    private func handle(_ text: String, events: AsyncStream<Event>.Continuation) {
        switch BiDiMessage.parse(text) {
        case nil:
            logger.debug("BiDi: a message that is not a reply, an event or an error was ignored")
        case .success(let id, let result):
            resolve(id, with: .success(result))
        case .failure(let id, let code, let message):
            let method = state.withLock { $0.pending[id]?.method } ?? "command"
            resolve(id, with: .failure(CommandError(method: method, code: code, message: message)))
        case .event(let method, let params):
            events.yield(Event(method: method, params: params))
        case .unattributedError(let message):
            logger.debug("BiDi error without a command id", metadata: ["message": "\(message["message"] ?? .null)"])
        }
    }
}

extension BiDiConnection: BrowserControlConnection {
    /// Sends `browser.close`.
    func requestBrowserClose(timeout: Duration) async {
        do {
            _ = try await send("browser.close", [:], timeout: timeout)
        } catch {
            logger.debug("browser.close failed", metadata: ["error": "\(error)"])
        }
    }
}
