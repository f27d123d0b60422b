// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// One message from the browser over WebDriver BiDi, told apart without I/O: the answer to a
/// command (by its id), an event, or an error that names no command. Being pure, it is tested
/// and fuzzed without a browser.
package enum BiDiMessage: Sendable, Hashable {
    /// A command succeeded: its id and its `result` (`null` when absent).
    case success(id: Int, result: JSONValue)
    /// A command failed: its id, the BiDi `error` code and the browser's `message`.
    case failure(id: Int, code: String, message: String)
    /// An event: its method, such as `network.beforeRequestSent`, and its `params`.
    case event(method: String, params: JSONValue)
    /// An error without a command id: the whole message, for debug logs.
    case unattributedError(JSONValue)

    /// What `text` is; `nil` when it is not JSON or none of the above.
    package static func parse(_ text: String) -> BiDiMessage? {
        guard let message = JSONValue.parse(Data(text.utf8)) else { return nil }
        let type = message["type"]?.stringValue
        if let id = message["id"]?.intValue {
            guard type == "error" else { return .success(id: id, result: message["result"] ?? .null) }
            return .failure(
                id: id, code: message["error"]?.stringValue ?? "unknown error",
                message: message["message"]?.stringValue ?? "")
        }
        if type == "event", let method = message["method"]?.stringValue {
            return .event(method: method, params: message["params"] ?? .null)
        }
        return type == "error" ? .unattributedError(message) : nil
    }
}
