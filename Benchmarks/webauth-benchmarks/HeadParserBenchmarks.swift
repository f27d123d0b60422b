// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import WebAuthLoopback

/// What reading one request head costs the listener's event loop: its own parser against
/// SwiftNIO's `HTTPRequestDecoder` (llhttp) in a `ByteToMessageHandler`, each given a new
/// connection's worth of state per head, as the listener does. One of the figures for choosing
/// between the two (ARCHITECTURE.md, "The I/O model"); the harness's own channel is measured
/// alone too, so that it can be taken off the decoder's figure.
///
/// The listener's parser is called here from another module, where its generic
/// `feed(_: some Sequence<UInt8>)` is not specialized, so this figure is higher than what the
/// listener pays (it feeds a `ByteBufferView` from inside its own module): compare the two
/// lines for their order of magnitude, not to a microsecond.
enum HeadParserBenchmarks {
    static let callback = Array(
        ("GET /callback?code=0123456789abcdef0123456789abcdef&state=0123456789abcdef0123456789abcdef HTTP/1.1\r\n"
            + "Host: 127.0.0.1:49152\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml\r\nAccept-Language: en-US,en;q=0.9\r\n"
            + "Accept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n\r\n").utf8)

    static func printFigures() throws {
        let rounds = 20_000
        var ours = Figures()
        var nio = Figures()
        var harness = Figures()
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = 8192
        limits.maxHeaderFieldSize = 8192
        for _ in 0..<5 {
            let started = ContinuousClock.now
            for _ in 0..<rounds {
                var parser = HTTPRequestHeadParser(maxHeadBytes: 8192)
                guard case .head = parser.feed(callback) else { fatalError("the listener's parser refused the head") }
            }
            ours.add((ContinuousClock.now - started) / rounds)

            let buffer = ByteBuffer(bytes: callback)
            let nioStarted = ContinuousClock.now
            for _ in 0..<rounds {
                let channel = EmbeddedChannel(
                    handler: ByteToMessageHandler(
                        HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)))
                try channel.writeInbound(buffer)
                guard case .head = try channel.readInbound(as: HTTPServerRequestPart.self) else {
                    fatalError("NIO's decoder refused the head")
                }
                _ = try channel.finish(acceptAlreadyClosed: true)
            }
            nio.add((ContinuousClock.now - nioStarted) / rounds)

            let harnessStarted = ContinuousClock.now
            for _ in 0..<rounds {
                let channel = EmbeddedChannel()
                try channel.writeInbound(buffer)
                guard try channel.readInbound(as: ByteBuffer.self) != nil else { fatalError("no bytes") }
                _ = try channel.finish(acceptAlreadyClosed: true)
            }
            harness.add((ContinuousClock.now - harnessStarted) / rounds)
        }
        print("one callback request head (\(callback.count) bytes), microseconds per head, median of 5 × \(rounds)")
        print(String(format: "  the listener's parser, called unspecialized    %8.2f", ours.median * 1000))
        print(String(format: "  SwiftNIO's HTTPRequestDecoder, with a channel  %8.2f", nio.median * 1000))
        print(String(format: "    of which the test channel alone              %8.2f", harness.median * 1000))
    }
}
