// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthControlledBrowsers

/// What Chromium writes on the DevTools pipe: NUL-separated JSON messages, cut into reads of
/// any size, then each message read as a reply or an event.
///
/// Input: the first byte sets the read size (1 to 256 bytes), the rest is the stream. Checks:
/// the messages do not depend on how the stream was cut, none is empty or holds a NUL, and
/// each is read the same twice.
@main
enum FuzzDevTools {
    static func main() {
        FuzzHarness.run { bytes in
            guard let first = bytes.first else { return }
            let stream = Array(bytes.dropFirst())
            let readSize = Int(first) + 1

            var whole = DevToolsMessageFramer()
            let wholeMessages = whole.append(stream)
            var pieces = DevToolsMessageFramer()
            var pieceMessages: [Data] = []
            var offset = 0
            while offset < stream.count {
                let end = min(offset + readSize, stream.count)
                pieceMessages += pieces.append(Array(stream[offset..<end]))
                offset = end
            }
            FuzzHarness.require(wholeMessages == pieceMessages, "the messages depend on how the stream was cut")
            for message in wholeMessages {
                FuzzHarness.require(!message.isEmpty && !message.contains(0), "an empty message or one with a NUL")
                FuzzHarness.require(
                    DevToolsMessage.parse(message) == DevToolsMessage.parse(message), "a message read two ways")
            }
        }
    }
}
