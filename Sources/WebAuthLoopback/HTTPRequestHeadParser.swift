// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import HTTPTypes

/// The head of an HTTP/1.x request: request line and header fields.
package struct HTTPRequestHead: Sendable, Hashable {
    /// The method, case-sensitive as RFC 9110 §9.1 says, such as `GET`.
    package var method: String
    /// The request target in origin form (`/path?query`), exactly as sent.
    package var target: String
    /// The minor version: 0 for `HTTP/1.0`, 1 for `HTTP/1.1`.
    package var minorVersion: Int
    /// The header fields in the order they were sent: each name as sent (`rawName`), each value
    /// without leading or trailing whitespace.
    package var headers: HTTPFields
    /// Whether the request announces a body: a `Transfer-Encoding` field, or a `Content-Length`
    /// greater than zero.
    package var declaresBody: Bool

    /// The target's path: everything before the first `?`.
    package var path: Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }
}

/// A small, pure parser for the head of one HTTP/1.x request (RFC 9112 §2–§5).
///
/// Feed it bytes as they arrive; it answers ``Outcome/needMoreData`` until it has seen the
/// empty line that ends the head, then the head, or why the bytes are not a request it accepts.
/// It does no I/O, so it is tested byte by byte without sockets.
///
/// It is deliberately strict, because the only legitimate client is a browser following a
/// redirect:
/// - lines end in CRLF; a bare CR or LF, or any other control character, is invalid;
/// - the request line is `method SP origin-form SP HTTP/1.d` with single spaces; absolute-form,
///   authority-form and asterisk-form targets are invalid, and so is a fragment;
/// - a field line is `name ":" OWS value OWS` with a token name (no space before the colon);
///   obsolete line folding (a line starting with a space or tab) is invalid (RFC 9112 §5.2);
/// - `Content-Length` must be digits and agree with itself when repeated.
///
/// Empty lines before the request line are skipped (RFC 9112 §2.2). Everything up to and
/// including the final empty line counts towards `maxHeadBytes`. Bytes after the head are
/// ignored: one request per connection.
package struct HTTPRequestHeadParser {
    /// What the bytes fed so far amount to.
    package enum Outcome: Sendable, Hashable {
        /// The head is not complete yet.
        case needMoreData
        /// A complete, well-formed head.
        case head(HTTPRequestHead)
        /// Not an HTTP/1.x request this parser accepts; the reason is for logs.
        case invalid(String)
        /// The head is longer than `maxHeadBytes`.
        case tooLarge
    }

    /// The largest head accepted, request line and fields and the final empty line included.
    package let maxHeadBytes: Int

    private var buffer: [UInt8] = []
    /// Where the search for the end of the head resumes.
    private var searchFrom = 0
    /// Set once the outcome is no longer `needMoreData`; the parser then ignores more input.
    private var final: Outcome?

    /// Whether bytes followed the end of the head in what was fed: a body or a next request
    /// the client is sending, which the listener leaves unread. Meaningful once the outcome is
    /// ``Outcome/head(_:)``.
    package private(set) var bytesFollowHead = false

    /// Creates a parser for heads of at most `maxHeadBytes` bytes.
    package init(maxHeadBytes: Int) {
        self.maxHeadBytes = max(16, maxHeadBytes)
    }

    /// Adds bytes that arrived and says what the request now amounts to. Once the answer is no
    /// longer ``Outcome/needMoreData`` it stays the same whatever else is fed.
    ///
    /// Contiguous bytes (an `Array`, a slice of one, SwiftNIO's `ByteBufferView`) are taken in
    /// one copy even where the call is not specialized for their type, as from another module.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> Outcome {
        if let final { return final }
        if bytes.withContiguousStorageIfAvailable({ take($0) }) == nil {
            take(Array(bytes.prefix(max(0, maxHeadBytes + 4 - buffer.count))))
        }
        let outcome = evaluate()
        if outcome != .needMoreData { final = outcome }
        return outcome
    }

    /// Keeps what fits of `bytes`: never more than the limit plus the few bytes that tell a
    /// head ending just past it from one ending at it.
    private mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) {
        let room = maxHeadBytes + 4 - buffer.count
        guard room > 0, !bytes.isEmpty else { return }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes.prefix(room)))
    }

    /// `take` for an array that is not contiguous storage (never, in practice).
    private mutating func take(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { take($0) }
    }

    private mutating func evaluate() -> Outcome {
        // Skip empty lines before the request line.
        var start = 0
        while start + 1 < buffer.count, buffer[start] == .cr, buffer[start + 1] == .lf { start += 2 }
        if start < buffer.count, buffer[start] == .lf { return .invalid("bare LF") }
        if start == buffer.count || (start + 1 == buffer.count && buffer[start] == .cr) {
            return buffer.count > maxHeadBytes ? .tooLarge : .needMoreData
        }

        // Reject what is clearly not HTTP (a TLS hello, random bytes) without waiting for a
        // line end that may never come.
        if let problem = Self.problemInPartialRequestLine(buffer[start...]) { return .invalid(problem) }

        // Find CRLF CRLF.
        var index = max(start, searchFrom - 3)
        var headEnd: Int?
        while index + 3 < buffer.count {
            if buffer[index] == .cr, buffer[index + 1] == .lf, buffer[index + 2] == .cr, buffer[index + 3] == .lf {
                headEnd = index
                break
            }
            index += 1
        }
        guard let headEnd else {
            searchFrom = buffer.count
            return buffer.count > maxHeadBytes ? .tooLarge : .needMoreData
        }
        guard headEnd + 4 <= maxHeadBytes else { return .tooLarge }
        bytesFollowHead = buffer.count > headEnd + 4
        return Self.parse(lines: buffer[start..<headEnd])
    }

    /// A reason to reject the first line before it is complete: a method byte that is not a
    /// token character, or a control character anywhere before the line's CR.
    private static func problemInPartialRequestLine(_ bytes: ArraySlice<UInt8>) -> String? {
        var inMethod = true
        for byte in bytes {
            if byte == .cr { return inMethod ? "empty or unterminated method" : nil }
            if inMethod {
                if byte == .space {
                    inMethod = false
                } else if !byte.isTokenCharacter {
                    return "not an HTTP request"
                }
            } else if byte == .lf || (byte < 0x20) || byte >= 0x7F {
                return "control or non-ASCII byte in the request line"
            }
        }
        return nil
    }

    /// Parses the lines of a complete head (without the final CRLF CRLF), reading each byte a
    /// few times at most and copying only what the head keeps (the method, the target, each
    /// field).
    private static func parse(lines bytes: ArraySlice<UInt8>) -> Outcome {
        // Line ends first: a bare CR or LF anywhere refuses the head before anything else.
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch bytes[index] {
            case .cr:
                guard index + 1 < bytes.endIndex, bytes[index + 1] == .lf else { return .invalid("bare CR") }
                index += 2
            case .lf:
                return .invalid("bare LF")
            default:
                index += 1
            }
        }

        // The request line: method SP target SP version, each part non-empty.
        let requestLineEnd = Self.lineEnd(in: bytes, from: bytes.startIndex)
        let requestLine = bytes[bytes.startIndex..<requestLineEnd]
        guard let firstSpace = requestLine.firstIndex(of: .space),
            let secondSpace = requestLine[(firstSpace + 1)...].firstIndex(of: .space),
            !requestLine[(secondSpace + 1)...].contains(.space),
            firstSpace > requestLine.startIndex, secondSpace > firstSpace + 1, secondSpace + 1 < requestLine.endIndex
        else { return .invalid("malformed request line") }
        let method = requestLine[..<firstSpace]
        let target = requestLine[(firstSpace + 1)..<secondSpace]
        let version = requestLine[(secondSpace + 1)...]
        guard method.allSatisfy(\.isTokenCharacter) else { return .invalid("malformed method") }
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return .invalid("malformed target") }
        guard target.first == UInt8(ascii: "/") else { return .invalid("target is not in origin form") }
        guard !target.contains(UInt8(ascii: "#")) else { return .invalid("target has a fragment") }
        guard version.count == 8, version.prefix(7).elementsEqual("HTTP/1.".utf8),
            let minor = version.last, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(minor)
        else { return .invalid("not HTTP/1.x") }

        var headers = HTTPFields()
        var contentLength: UInt64?
        var declaresBody = false
        var lineStart = requestLineEnd
        while lineStart < bytes.endIndex {
            lineStart += 2  // the CRLF before the line
            let lineEnd = Self.lineEnd(in: bytes, from: lineStart)
            let line = bytes[lineStart..<lineEnd]
            lineStart = lineEnd
            guard let first = line.first else { return .invalid("empty field line") }
            if first == .space || first == .tab { return .invalid("obsolete line folding") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .invalid("field line without colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(\.isTokenCharacter) else { return .invalid("malformed field name") }
            var value = line[(colon + 1)...]
            while let byte = value.first, byte == .space || byte == .tab { value = value.dropFirst() }
            while let byte = value.last, byte == .space || byte == .tab { value = value.dropLast() }
            guard value.allSatisfy({ $0 == .tab || $0 >= 0x20 && $0 != 0x7F }) else {
                return .invalid("control character in a field value")
            }
            // The name is a token (checked above), so it is a valid field name.
            guard let fieldName = HTTPField.Name(String(decoding: name, as: UTF8.self)) else {
                return .invalid("malformed field name")
            }
            let field = HTTPField(name: fieldName, value: value)
            switch fieldName {
            case .contentLength:
                // A list such as `5, 5` is allowed by RFC 9110 §8.6 when all members agree.
                for member in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                    var digits = member[...]
                    while let byte = digits.first, byte == .space || byte == .tab { digits = digits.dropFirst() }
                    while let byte = digits.last, byte == .space || byte == .tab { digits = digits.dropLast() }
                    guard !digits.isEmpty, digits.count <= 18,
                        digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
                    else { return .invalid("malformed Content-Length") }
                    let length = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
                    if let contentLength, contentLength != length { return .invalid("conflicting Content-Length") }
                    contentLength = length
                }
                if contentLength ?? 0 > 0 { declaresBody = true }
            case .transferEncoding:
                declaresBody = true
            default:
                break
            }
            headers.append(field)
        }
        return .head(
            HTTPRequestHead(
                method: String(decoding: method, as: UTF8.self),
                target: String(decoding: target, as: UTF8.self),
                minorVersion: Int(minor - UInt8(ascii: "0")),
                headers: headers,
                declaresBody: declaresBody))
    }

    /// Where the line starting at `start` ends: its CR (every CR is followed by LF, checked
    /// before), or the end of the head.
    private static func lineEnd(in bytes: ArraySlice<UInt8>, from start: Int) -> Int {
        bytes[start...].firstIndex(of: .cr) ?? bytes.endIndex
    }
}

extension UInt8 {
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")

    /// Whether this byte may appear in an RFC 9110 §5.6.2 token: a letter, a digit, or one of
    /// ``!#$%&'*+-.^_`|~``.
    fileprivate var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
            UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
