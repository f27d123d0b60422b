// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import NIOCore
import WebAuthCore
import WebAuthDesktop
import WebAuthDesktopSocket

/// What `webauth-scheme-handler` (or anyone who can reach the socket) sends to a session
/// waiting for a custom scheme: the bytes, framed into a line as the socket server's pipeline
/// frames them, then checked as a URL for the callback.
///
/// Input: the bytes the peer sends before closing. Checks: the framing never yields a line over
/// the limit or one with a newline; an accepted URL is absolute, has no control characters or
/// spaces, and is within the size limit.
@main
enum FuzzSchemeSocket {
    static let callback = Callback.customScheme("com.example.app")

    static func main() {
        FuzzHarness.run { bytes in
            let frames = frames(of: Array(bytes), limit: CallbackSocketProtocol.maximumURLLength)
            for case .line(let line) in frames {
                FuzzHarness.require(
                    line.count <= CallbackSocketProtocol.maximumURLLength && !line.contains(UInt8(ascii: "\n")),
                    "a framed line over the limit or with a newline")
            }
            // The server reads only the first frame of a connection.
            let line: [UInt8]
            switch frames.first {
            case .line(let received), .endOfInput(let received): line = received
            case .tooLong, nil: return
            }
            guard case .success(let url) = CallbackSocketProtocol.parseURL(line) else { return }
            FuzzHarness.require(url.scheme?.isEmpty == false, "an accepted URL without a scheme")
            FuzzHarness.require(
                line.count <= CallbackSocketProtocol.maximumURLLength && !line.contains { $0 <= 0x20 || $0 == 0x7F },
                "an accepted URL with spaces, control characters or too long")
            _ = callback.matchesURL(url)
        }
    }

    /// Every frame of `bytes` followed by the end of input: what a connection that sends
    /// `bytes` and stops yields.
    static func frames(of bytes: [UInt8], limit: Int) -> [SocketLine] {
        var decoder = LineFrameDecoder(limit: limit)
        var buffer = ByteBuffer(bytes: bytes)
        var frames: [SocketLine] = []
        while let frame = decoder.nextFrame(in: &buffer, atEnd: true) { frames.append(frame) }
        return frames
    }
}
