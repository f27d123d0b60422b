// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import NIOCore

extension RequestHead {
    /// The number of bytes at the start of `bytes` that make up the head, up to and including
    /// the empty line that ends it (`\r\n\r\n`, or a bare `\n\n`); `nil` while it is incomplete.
    package static func length(in bytes: ByteBuffer) -> Int? {
        let view = bytes.readableBytesView
        var offset = 0
        var previousWasNewline = false
        for byte in view {
            offset += 1
            switch byte {
            case UInt8(ascii: "\n"):
                if previousWasNewline { return offset }
                previousWasNewline = true
            case UInt8(ascii: "\r"):
                break
            default:
                previousWasNewline = false
            }
        }
        return nil
    }

    /// The value of the first header field `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headerFields[values: $0].first }
    }
}

/// How a request's body is delimited (RFC 9112 §6), and the reading of it: a pure function of
/// the bytes after the head, so it is tested without sockets.
package enum RequestBody: Sendable, Hashable {
    /// No body: neither `Content-Length` nor `Transfer-Encoding`.
    case none
    /// Exactly this many bytes.
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// A framing the server does not accept (a bad or conflicting length, another coding).
    case invalid

    /// The framing `head` announces.
    package init(head: RequestHead) {
        let lengths = head.headerFields[values: .contentLength]
        if let coding = head.header("Transfer-Encoding") {
            self = lengths.isEmpty && coding.lowercased() == "chunked" ? .chunked : .invalid
        } else if lengths.isEmpty {
            self = .none
        } else if Set(lengths).count == 1, let length = Int(lengths[0]), length >= 0 {
            self = .length(length)
        } else {
            self = .invalid
        }
    }

    /// The result of looking for the complete body in the bytes received so far.
    package enum ReadResult: Sendable, Hashable {
        /// More bytes are needed.
        case incomplete
        /// The body, decoded.
        case complete([UInt8])
        /// The body is (or will be) longer than the limit.
        case tooLarge
        /// The bytes are not a valid body for this framing.
        case invalid
    }

    /// Reads the body from `bytes` (what followed the head), accepting at most `limit` bytes.
    package func read(_ bytes: ByteBuffer, limit: Int) -> ReadResult {
        switch self {
        case .none:
            return .complete([])
        case .invalid:
            return .invalid
        case .length(let length):
            guard length <= limit else { return .tooLarge }
            guard bytes.readableBytes >= length else { return .incomplete }
            return .complete(bytes.getBytes(at: bytes.readerIndex, length: length) ?? [])
        case .chunked:
            return Self.readChunked(bytes, limit: limit)
        }
    }

    /// Reads the body from `bytes` (what followed the head), accepting at most `limit` bytes.
    package func read(_ bytes: [UInt8], limit: Int) -> ReadResult {
        read(ByteBuffer(bytes: bytes), limit: limit)
    }

    private static func readChunked(_ bytes: ByteBuffer, limit: Int) -> ReadResult {
        let view = Array(bytes.readableBytesView)
        var body: [UInt8] = []
        var index = 0
        while true {
            // chunk-size [; extensions] CRLF
            guard let lineEnd = view[index...].firstIndex(of: UInt8(ascii: "\n")) else {
                return view.count - index > 1024 ? .invalid : .incomplete
            }
            var line = String(decoding: view[index..<lineEnd], as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                return .invalid
            }
            index = lineEnd + 1
            if size == 0 {
                // Trailer fields, then an empty line.
                while true {
                    guard let end = view[index...].firstIndex(of: UInt8(ascii: "\n")) else { return .incomplete }
                    let isEmpty = end == index || (end == index + 1 && view[index] == UInt8(ascii: "\r"))
                    index = end + 1
                    if isEmpty { return .complete(body) }
                }
            }
            guard body.count + size <= limit else { return .tooLarge }
            guard view.count >= index + size else { return .incomplete }
            body += view[index..<(index + size)]
            index += size
            // The CRLF after the data.
            guard view.count >= index + 1 else { return .incomplete }
            if view[index] == UInt8(ascii: "\r") {
                guard view.count >= index + 2 else { return .incomplete }
                guard view[index + 1] == UInt8(ascii: "\n") else { return .invalid }
                index += 2
            } else if view[index] == UInt8(ascii: "\n") {
                index += 1
            } else {
                return .invalid
            }
        }
    }
}
