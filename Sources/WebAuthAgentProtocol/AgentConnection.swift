// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// The client side of the agent protocol, blocking: check the socket file
/// (``AgentSocketTrust``), connect within ``AgentProtocol/connectTimeout``, check who listens,
/// send one request line, read one answer line, within one deadline. No Foundation
/// networking: the fast path links it.
package enum AgentConnection {
    /// Why no answer came.
    package enum Failure: Error, Sendable, Hashable {
        /// Nothing listens at the path (no socket file, or nobody accepting on it).
        case noAgent
        /// The socket belongs to, or is served by, another user (not this one, not root): it
        /// is not asked.
        case anotherUser(UInt32?)
        /// The agent did not answer in time, or closed without a whole answer.
        case noAnswer
        /// The answer was not one of this protocol version.
        case badAnswer
        /// The path cannot be a socket address, or connecting failed otherwise.
        case unreachable
        /// The socket or its directory could be another user's (see ``AgentSocketTrust``): it
        /// was not connected to.
        case untrusted(AgentSocketTrust.Problem)
    }

    /// Sends `line` (a request's, `\n` included) and reads the answer's line with `read`: the
    /// fast path's exchange, which writes the request and reads the answer without JSON coders
    /// (`AgentRequest.plainLine()`, ``AgentAnswer/init(reading:)``), so that its program carries
    /// none.
    package static func exchange(
        line: [UInt8], path: String, timeout: Duration, reading read: ([UInt8]) -> AgentAnswer?
    ) -> Result<AgentAnswer, Failure> {
        switch answer(line: line, path: path, timeout: timeout, reading: read) {
        case .answer(let answer): .success(answer)
        case .failure(let failure): .failure(failure)
        }
    }

    /// What ``answer(line:path:timeout:reading:)`` gives: the agent's answer, or why there is
    /// none. Not a `Result`: a generic type whose parameter must conform to a protocol
    /// (`Failure: Error`) has the Swift runtime look the conformance up the first time a value
    /// of it is copied or destroyed, a walk over every conformance in the program that the fast
    /// path does not pay.
    package enum Exchanged: Sendable {
        /// The agent's answer.
        case answer(AgentAnswer)
        /// Why no answer came.
        case failure(Failure)
    }

    /// ``exchange(line:path:timeout:reading:)``, the fast path's way: the same exchange, its
    /// outcome as ``Exchanged``.
    package static func answer(
        line: [UInt8], path: String, timeout: Duration, reading read: ([UInt8]) -> AgentAnswer?
    ) -> Exchanged {
        if let failure = checkFile(path) { return .failure(failure) }
        let socket: Int32
        do {
            let connecting = ContinuousClock.now + min(timeout, AgentProtocol.connectTimeout)
            socket = try LocalSocket.connect(.path(path), deadline: connecting)
        } catch {
            if error.isNothingListening { return .failure(.noAgent) }
            if case .timedOut = error { return .failure(.noAnswer) }
            return .failure(.unreachable)
        }
        defer { Descriptor.close(socket) }
        // The time for the answer (a confirmation's minute included) runs from the connection.
        let deadline = ContinuousClock.now + timeout
        // A socket someone else serves is never sent a request: it could be a planted one.
        let owner = LocalSocket.peerUserID(socket)
        guard let owner, owner == CurrentProcess.effectiveUserID || owner == 0 else {
            return .failure(.anotherUser(owner))
        }
        guard LocalSocket.sendAll(socket, line, deadline: deadline) else { return .failure(.noAnswer) }
        var received: [UInt8] = []
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                guard let answer = read(Array(received[..<newline])) else {
                    return .failure(.badAnswer)
                }
                return .answer(answer)
            }
            guard received.count <= AgentProtocol.maximumAnswerLength else { return .failure(.badAnswer) }
            guard
                let more = LocalSocket.receive(
                    socket, maximum: AgentProtocol.maximumAnswerLength + 1 - received.count, deadline: deadline)
            else { return .failure(.noAnswer) }
            received += more
        }
    }

    /// Why the socket file at `path` is not connected to; `nil` when it may be.
    private static func checkFile(_ path: String) -> Failure? {
        let socket: FileStatus
        do {
            socket = try FileSystem.status(path, followingLinks: false)
        } catch {
            return error == .noSuchEntry ? .noAgent : .unreachable
        }
        let directoryPath: String
        if let slash = path.lastIndex(of: "/") {
            directoryPath = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directoryPath = "."
        }
        guard let directory = try? FileSystem.status(directoryPath, followingLinks: false) else { return .unreachable }
        return AgentSocketTrust.problem(socket: socket, directory: directory, user: CurrentProcess.effectiveUserID)
            .map(Failure.untrusted)
    }
}
