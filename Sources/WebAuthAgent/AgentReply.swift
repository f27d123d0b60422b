// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthAgentProtocol
import WebAuthTokenStore

/// The agent's answer to one request, kept as what it is until the server writes it: a held
/// token's answer, whose line was made once when the token was held (``AgentHolder/Held``), or
/// any other answer, encoded when it is written (``line``). Either way the bytes on the socket
/// are made once.
package enum AgentReply: Sendable, Hashable {
    /// A held token's answer line (`\n` included), as the holder keeps it.
    case heldToken([UInt8])
    /// Any other answer.
    case answer(AgentAnswer)

    /// The line the server writes, `\n` included.
    package var line: [UInt8] {
        switch self {
        case .heldToken(let line): line
        case .answer(let answer): answer.line()
        }
    }

    /// The answer as a value, for callers in the agent's process: a held token's line read
    /// back as a client reads it.
    package var answer: AgentAnswer {
        switch self {
        case .heldToken(let line):
            AgentAnswer(line: Array(line.dropLast()))
                ?? .failure(.failed, "the held token's answer cannot be read")
        case .answer(let answer): answer
        }
    }

    /// Whether the request was done.
    package var ok: Bool {
        switch self {
        case .heldToken: true
        case .answer(let answer): answer.ok
        }
    }
}
