// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthCore
import WebAuthDesktop

/// What either end of the web-authentication browser's socket reads: one line, parsed as an
/// `AuthenticationBrowserMessage` (a session's `begin` or `cancel`, a browser's `complete` or
/// `canceled`).
///
/// Input: the line. Checks: an accepted request passes the session's own rules (its URL is
/// `https` or loopback `http`, its callback a custom scheme or `https`); an accepted completion
/// URL has no spaces or control characters; a cancellation's message is bounded and has no
/// control characters; whatever is accepted, written out again, reads back as the same kind of
/// message for the same request.
@main
enum FuzzBrowserSocket {
    static func main() {
        FuzzHarness.run { bytes in
            guard let message = try? AuthenticationBrowserMessage.parse(Array(bytes)) else { return }
            switch message {
            case .begin(let request):
                let scheme = request.url.scheme?.lowercased()
                FuzzHarness.require(scheme == "https" || scheme == "http", "a request URL that is not http(s)")
                FuzzHarness.require(
                    request.callback.isCustomScheme || request.callback.isHTTPS, "a loopback callback accepted")
            case .complete(_, let url):
                FuzzHarness.require(
                    !url.absoluteString.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F },
                    "a completion URL with spaces or control characters")
            case .canceled(_, _, let text):
                FuzzHarness.require(
                    text.count <= AuthenticationBrowserMessage.maximumMessageLength, "a cancellation message too long")
                FuzzHarness.require(
                    !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "a control character kept")
            case .cancel:
                break
            }
            let again = try? AuthenticationBrowserMessage.parse(Array(message.line.dropLast()))
            FuzzHarness.require(again?.uuid == message.uuid, "an accepted message does not read back")
            FuzzHarness.require(again.map { kind(of: $0) } == kind(of: message), "it reads back as another kind")
        }
    }

    static func kind(of message: AuthenticationBrowserMessage) -> String {
        switch message {
        case .begin: "begin"
        case .cancel: "cancel"
        case .complete: "complete"
        case .canceled: "canceled"
        }
    }
}
