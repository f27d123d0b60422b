// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore

/// The work of `webauth-scheme-handler`: hands one callback URL to the session waiting for its
/// scheme, over that scheme's socket in the ``CallbackSocketDirectory``.
///
/// It never starts a browser, never retries later and never stores the URL: when no session is
/// waiting, the URL is dropped with an error that says so.
///
/// ```swift
/// try CallbackForwarder().forward("com.example.app:/oauth?code=…&state=…")
/// ```
public struct CallbackForwarder: Sendable {
    /// Where the sessions' sockets are.
    public var socketDirectory: CallbackSocketDirectory
    /// How long to wait for the session's answer.
    public var timeout: Duration

    /// Creates a forwarder for the desktop described by `environment`.
    public init(environment: DesktopEnvironment = DesktopEnvironment(), timeout: Duration = .seconds(5)) {
        self.socketDirectory = CallbackSocketDirectory(environment: environment)
        self.timeout = timeout
    }

    /// Sends `urlString` to the session waiting for its scheme and waits for its answer.
    ///
    /// Blocks the calling thread for at most ``timeout``.
    ///
    /// - Throws: ``CallbackForwardingError``: the URL is malformed or not a custom scheme; no
    ///   session is waiting (or it has finished); the session refused the URL; the socket
    ///   directory is unsafe; the exchange failed.
    public func forward(_ urlString: String) throws(CallbackForwardingError) {
        let url: URL
        switch CallbackSocketProtocol.parseURL(Array(urlString.utf8)) {
        case .success(let parsed): url = parsed
        case .failure(let rejection): throw .invalidURL("cannot forward the callback: \(rejection)")
        }
        let shown = url.redactedForLogs
        let scheme: String
        do {
            scheme = try Callback.validateCustomScheme(url.scheme ?? "")
        } catch {
            throw .invalidURL("cannot forward \(shown): \(error.message)")
        }
        let dropped = "no sign-in is waiting for \(scheme): callbacks; \(shown) was dropped"
        do {
            try socketDirectory.check()
        } catch {
            if error.isMissing { throw .noWaitingSession(dropped) }
            throw .failed("cannot forward \(shown): \(error.message)")
        }
        let deadline = ContinuousClock.now + timeout
        let connection: Int32
        do {
            connection = try DesktopSocketCalls.makeConnection(
                to: socketDirectory.socketPath(forScheme: scheme), deadline: deadline)
        } catch {
            if error.isNothingListening { throw .noWaitingSession(dropped) }
            throw .failed("cannot forward \(shown): \(error)")
        }
        defer { DesktopSocketCalls.close(connection) }
        guard DesktopSocketCalls.peerUserID(connection) == DesktopSocketCalls.effectiveUserID else {
            throw .failed("cannot forward \(shown): the socket for \(scheme): belongs to another user")
        }
        guard DesktopSocketCalls.writeAll(connection, Array((url.absoluteString + "\n").utf8), deadline: deadline)
        else {
            throw .failed("cannot forward \(shown): the waiting sign-in did not take the URL")
        }
        guard case .line(let bytes) = DesktopSocketCalls.readLine(connection, limit: 4096, deadline: deadline) else {
            throw .failed("cannot forward \(shown): the waiting sign-in did not answer in time")
        }
        let reply = String(decoding: bytes, as: UTF8.self)
        if reply == CallbackSocketProtocol.accepted { return }
        if reply == CallbackSocketProtocol.finished {
            throw .noWaitingSession(
                "the sign-in waiting for \(scheme): callbacks has already finished; \(shown) was dropped")
        }
        if reply.hasPrefix(CallbackSocketProtocol.rejectedPrefix) {
            let reason = reply.dropFirst(CallbackSocketProtocol.rejectedPrefix.count)
            throw .rejected("the sign-in waiting for \(scheme): callbacks refused \(shown): \(reason)")
        }
        throw .failed("cannot forward \(shown): unexpected answer from the waiting sign-in")
    }
}
