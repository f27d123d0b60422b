// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

/// A DevTools protocol client over a ``DevToolsPipe``: numbers commands, matches replies to the
/// tasks awaiting them, and hands events to one handler, in the order the browser sent them.
///
/// Sessions are flat (`Target.attachToTarget` with `flatten: true`): a command for a page carries
/// that page's `sessionId`, and so do its events.
///
/// ```swift
/// let version = try await connection.send("Browser.getVersion", timeout: .seconds(20))
/// let attached = try await connection.send("Target.attachToTarget", ["targetId": .string(id), "flatten": true])
/// try await connection.send("Page.enable", sessionID: attached["sessionId"]?.stringValue)
/// ```
final class DevToolsConnection: Sendable {
    private let pipe: DevToolsPipe
    private let state = Locked(State())

    private typealias Waiter = CheckedContinuation<Result<[String: JSONValue], DevToolsError>, Never>

    private struct State: Sendable {
        var nextID = 1
        var waiting: [Int: Waiter] = [:]
        var closedReason: String?
    }

    /// Starts talking over `pipe`.
    ///
    /// - Parameters:
    ///   - onEvent: Called on the pipe's reader thread for each event; return quickly.
    ///   - onClose: Called once when the pipe closes, with the reason, after every waiting
    ///     command has failed with ``DevToolsError/closed(_:)``.
    init(
        pipe: DevToolsPipe,
        onEvent: @escaping @Sendable (DevToolsEvent) -> Void,
        onClose: @escaping @Sendable (String) -> Void
    ) {
        self.pipe = pipe
        pipe.start(
            onMessage: { [self] data in
                switch DevToolsMessage.parse(data) {
                case .reply(let id, let result):
                    let waiter = state.withLock { $0.waiting.removeValue(forKey: id) }
                    waiter?.resume(returning: result)
                case .event(let event):
                    onEvent(event)
                case nil:
                    break  // not a protocol message; nothing waits for it
                }
            },
            onClose: { [self] reason in
                let waiters = state.withLock { state in
                    state.closedReason = state.closedReason ?? reason
                    defer { state.waiting = [:] }
                    return state.waiting.values
                }
                for waiter in waiters { waiter.resume(returning: .failure(.closed(reason))) }
                onClose(reason)
            })
    }

    /// Whether the pipe is still open: it has not closed, and ``close()`` was not called.
    var isOpen: Bool { state.withLock { $0.closedReason == nil } }

    /// Sends a command and waits for its result.
    ///
    /// - Parameters:
    ///   - method: `Domain.command`, such as `Fetch.continueRequest`.
    ///   - params: Its parameters.
    ///   - sessionID: The flat session of the target it is for; `nil` for the browser.
    ///   - timeout: How long to wait for the answer; `nil` waits until the pipe closes.
    /// - Returns: The `result` object.
    @discardableResult
    func send(
        _ method: String, _ params: [String: JSONValue] = [:], sessionID: String? = nil,
        timeout: Duration? = nil
    ) async throws(DevToolsError) -> [String: JSONValue] {
        let timer = Locked<Task<Void, Never>?>(nil)
        let result = await withCheckedContinuation { (waiter: Waiter) in
            let outcome = state.withLock { state -> Result<Int, DevToolsError> in
                if let reason = state.closedReason { return .failure(.closed(reason)) }
                let id = state.nextID
                state.nextID += 1
                state.waiting[id] = waiter
                return .success(id)
            }
            switch outcome {
            case .failure(let error):
                waiter.resume(returning: .failure(error))
            case .success(let id):
                pipe.send(DevToolsMessage.command(id: id, method: method, params: params, sessionID: sessionID))
                guard let timeout else { return }
                let task = Task { [self] in
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    let late = state.withLock { $0.waiting.removeValue(forKey: id) }
                    late?.resume(returning: .failure(.timedOut(method: method, after: timeout)))
                }
                timer.withLock { $0 = task }
            }
        }
        timer.withLock { $0?.cancel() }
        return try result.get()
    }

    /// Closes the pipe; commands still waiting fail with ``DevToolsError/closed(_:)``.
    func close() {
        let waiters = state.withLock { state in
            state.closedReason = state.closedReason ?? "closed by webauth"
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for waiter in waiters { waiter.resume(returning: .failure(.closed("closed by webauth"))) }
        pipe.close()
    }
}

extension DevToolsConnection: BrowserControlConnection {
    /// Sends `Browser.close`.
    func requestBrowserClose(timeout: Duration) async {
        _ = try? await send("Browser.close", timeout: timeout)
    }
}
