// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthAgentProtocol

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The agent protocol's lines through Foundation's JSON coders, for the agent and its full
// client: here, not in WebAuthAgentProtocol, whose fast-path parts write and read their lines
// directly so that the fast path's program carries no JSON coder.

extension AgentRequest {
    /// The request as one line, `\n` included.
    package func line() -> [UInt8] {
        if let line = plainLine() { return line }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Reads a request line (without its `\n`); `nil` when it is not a request of this
    /// version (see ``read(_:)``).
    package init?(line: [UInt8]) {
        guard case .request(let request) = Self.read(line) else { return nil }
        self = request
    }

    /// Reads `line` (without its `\n`) in one pass: the version first, then — when it is this
    /// build's — the request. The agent reads each request line here, once.
    package static func read(_ line: [UInt8]) -> Reading {
        guard line.count <= AgentProtocol.maximumRequestLength,
            let read = try? JSONDecoder().decode(Versioned.self, from: Data(line))
        else { return .unreadable }
        if read.version != AgentProtocol.version { return .otherVersion(read.version) }
        return read.request.map(Reading.request) ?? .unreadable
    }

    /// A line's version, and its request when the version is this build's: one decoding of
    /// the line reads both.
    private struct Versioned: Decodable {
        enum Key: String, CodingKey {
            case version = "v"
        }

        var version: Int
        var request: AgentRequest?

        init(from decoder: any Decoder) throws {
            version = try decoder.container(keyedBy: Key.self).decode(Int.self, forKey: .version)
            request = version == AgentProtocol.version ? try? AgentRequest(from: decoder) : nil
        }
    }
}

extension AgentAnswer {
    /// The answer as one line, `\n` included.
    package func line() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Reads an answer line (without its `\n`); `nil` when it is not one of this version.
    /// ``AgentAnswerReader`` reads it first, without `JSONDecoder`; what it leaves goes to
    /// ``init(decodingWithFoundation:)``, so the result is that reading's either way.
    package init?(line: [UInt8]) {
        guard line.count <= AgentProtocol.maximumAnswerLength,
            let answer = line.withUnsafeBytes({ AgentAnswerReader.answer($0) }) ?? Self(decodingWithFoundation: line)
        else { return nil }
        self.init(checking: answer)
    }

    /// The answer `JSONDecoder` reads from `line`, before its version and outcome are checked;
    /// `nil` when it reads none.
    package init?(decodingWithFoundation line: [UInt8]) {
        guard let answer = try? JSONDecoder().decode(Self.self, from: Data(line)) else { return nil }
        self = answer
    }
}

extension AgentConnection {
    /// Sends `request` to the agent at `path` and returns its answer: connected within
    /// ``AgentProtocol/connectTimeout`` (or `timeout`, if shorter), answered within `timeout`
    /// of the connection.
    package static func exchange(
        _ request: AgentRequest, path: String, timeout: Duration = AgentProtocol.defaultTimeout
    ) -> Result<AgentAnswer, Failure> {
        exchange(line: request.line(), path: path, timeout: timeout, reading: AgentAnswer.init(line:))
    }
}
