// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthControlledBrowsers

/// What Firefox sends over WebDriver BiDi: one WebSocket text message, read as the answer to a
/// command, an event or an error.
///
/// Input: the message's text. Check: a message read as an answer or an event survives being
/// written out and read again.
@main
enum FuzzBiDiMessage {
    static func main() {
        FuzzHarness.run { bytes in
            guard let message = BiDiMessage.parse(String(decoding: bytes, as: UTF8.self)) else { return }
            switch message {
            case .success(_, let result), .event(_, let result):
                FuzzHarness.require(
                    JSONValue.parse(Data(result.description.utf8)) != nil, "a value that does not read back")
            case .failure, .unattributedError:
                break
            }
        }
    }
}
