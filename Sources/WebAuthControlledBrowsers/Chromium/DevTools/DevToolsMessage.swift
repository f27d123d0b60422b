// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation

/// One message Chromium sent over the DevTools pipe: the reply to a command, or an event.
package enum DevToolsMessage: Sendable, Hashable {
    /// The answer to command `id`: its result, or the protocol's error.
    case reply(id: Int, Result<[String: JSONValue], DevToolsError>)
    /// Something happened: `method` such as `Fetch.requestPaused`, in the session `sessionID`
    /// (`nil` for the browser's own session).
    case event(DevToolsEvent)

    /// Parses one NUL-free JSON text. Returns `nil` for JSON that is neither a reply nor an event.
    package static func parse(_ data: Data) -> DevToolsMessage? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        let sessionID = value["sessionId"]?.stringValue
        if let id = value["id"]?.intValue {
            if let error = value["error"] {
                let code = error["code"]?.intValue ?? 0
                let message = error["message"]?.stringValue ?? "unknown error"
                return .reply(id: id, .failure(.commandFailed(code: code, message: message)))
            }
            return .reply(id: id, .success(value["result"]?.objectValue ?? [:]))
        }
        guard let method = value["method"]?.stringValue else { return nil }
        return .event(DevToolsEvent(method: method, params: value["params"]?.objectValue ?? [:], sessionID: sessionID))
    }

    /// The bytes of command `id`, without the terminating NUL.
    static func command(id: Int, method: String, params: [String: JSONValue], sessionID: String?) -> Data {
        var message: [String: JSONValue] = [
            "id": .number(Double(id)), "method": .string(method), "params": .object(params),
        ]
        if let sessionID { message["sessionId"] = .string(sessionID) }
        // Encoding a tree of strings, numbers and containers cannot fail.
        return (try? JSONEncoder().encode(JSONValue.object(message))) ?? Data("{}".utf8)
    }
}

/// An event from the browser, such as `Target.targetDestroyed`.
package struct DevToolsEvent: Sendable, Hashable {
    /// The event's name, `Domain.event`.
    var method: String
    /// Its parameters.
    var params: [String: JSONValue]
    /// The flat session it belongs to; `nil` for the browser session.
    var sessionID: String?
}

/// Why a DevTools command got no result.
package enum DevToolsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The browser answered with a protocol error.
    case commandFailed(code: Int, message: String)
    /// The pipe is closed (the browser exited, or we closed it); `reason` says which.
    case closed(String)
    /// No answer came within the time allowed.
    case timedOut(method: String, after: Duration)

    package var description: String {
        switch self {
        case .commandFailed(let code, let message): "the browser refused the command (\(code): \(message))"
        case .closed(let reason): "the DevTools pipe is closed: \(reason)"
        case .timedOut(let method, let after): "\(method) got no answer within \(after)"
        }
    }
}

/// Splits the byte stream from the browser into messages at each NUL byte. Pure.
package struct DevToolsMessageFramer: Sendable {
    /// The longest message accepted; anything longer means the stream is not what we expect.
    static let maximumMessageSize = 64 * 1024 * 1024

    private var pending: [UInt8] = []

    /// Whether the stream broke the size limit; no more messages come out once it has.
    package private(set) var overflowed = false

    /// A framer with nothing pending.
    package init() {}

    /// Adds `bytes` and returns the messages they complete, in order.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> [Data] {
        guard !overflowed else { return [] }
        var messages: [Data] = []
        var start = bytes.startIndex
        while let nul = bytes[start...].firstIndex(of: 0) {
            if pending.isEmpty {
                messages.append(Data(bytes[start..<nul]))
            } else {
                pending.append(contentsOf: bytes[start..<nul])
                messages.append(Data(pending))
                pending.removeAll(keepingCapacity: true)
            }
            start = nul + 1
        }
        pending.append(contentsOf: bytes[start...])
        if pending.count > Self.maximumMessageSize {
            overflowed = true
            pending = []
        }
        return messages.filter { !$0.isEmpty }
    }

    /// Adds `bytes` (a convenience for tests).
    package mutating func append(_ bytes: [UInt8]) -> [Data] {
        bytes.withUnsafeBytes { append($0) }
    }
}
