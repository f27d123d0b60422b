// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import HTTPTypes
import WebAuthCore
import WebAuthLoopback

/// The loopback listener's request head parser and router, fed the bytes a connection sends.
///
/// Input: the first byte sets the size of the pieces the rest arrives in (1 to 64 bytes, as a
/// slow or fragmenting client sends them). Checks: the outcome does not depend on how the
/// bytes were cut; a parsed head fits the size bound; a callback the router accepts matches
/// the callback and its path.
@main
enum FuzzLoopbackRequest {
    static let maxHeadBytes = LoopbackReceiver.Configuration().maxHeaderBytes
    static let callback = Callback.loopback(path: "/callback").boundToPort(49_152)
    static let router = LoopbackRequestRouter(callback: callback)!

    static func main() {
        FuzzHarness.run { bytes in
            guard let first = bytes.first else { return }
            let body = bytes.dropFirst()
            let pieceSize = Int(first % 64) + 1

            var whole = HTTPRequestHeadParser(maxHeadBytes: maxHeadBytes)
            let outcome = whole.feed(body)
            var pieces = HTTPRequestHeadParser(maxHeadBytes: maxHeadBytes)
            var piecewise = HTTPRequestHeadParser.Outcome.needMoreData
            var offset = body.startIndex
            while offset < body.endIndex {
                let end = min(offset + pieceSize, body.endIndex)
                piecewise = pieces.feed(body[offset..<end])
                offset = end
            }
            if body.isEmpty { piecewise = pieces.feed([]) }
            FuzzHarness.require(outcome == piecewise, "the outcome depends on how the bytes arrived")
            FuzzHarness.require(
                whole.feed(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == outcome || outcome == .needMoreData,
                "a final outcome changed when more bytes came")

            guard case .head(let head) = outcome else { return }
            // Scalars, not UTF-8 bytes: an invalid byte in a field value becomes one U+FFFD.
            let size =
                head.method.unicodeScalars.count + head.target.unicodeScalars.count
                + head.headers.reduce(0) { $0 + $1.name.rawName.unicodeScalars.count + $1.value.unicodeScalars.count }
            FuzzHarness.require(size <= maxHeadBytes, "a parsed head is larger than the bound")
            FuzzHarness.require(head.target.hasPrefix("/"), "the target is not in origin form")

            switch router.route(head) {
            case .callback(let url):
                FuzzHarness.require(callback.matchesURL(url), "a routed callback does not match")
                FuzzHarness.require(head.path == "/callback", "a callback on another path")
                _ = LoopbackRequestRouter.authorizationError(in: CallbackParameters(url))
            case .probe:
                FuzzHarness.require(head.method == "HEAD", "a probe that is not HEAD")
            case .reject:
                break
            }
        }
    }
}
