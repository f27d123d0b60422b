// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import Testing

@testable import WebAuthLoopback

@Suite("HTTP request head parser")
struct HTTPRequestHeadParserTests {
    private func parse(_ text: String, max: Int = 8192) -> HTTPRequestHeadParser.Outcome {
        var parser = HTTPRequestHeadParser(maxHeadBytes: max)
        return parser.feed(Array(text.utf8))
    }

    private func headOf(_ outcome: HTTPRequestHeadParser.Outcome) -> HTTPRequestHead? {
        if case .head(let head) = outcome { return head }
        return nil
    }

    private func isInvalid(_ outcome: HTTPRequestHeadParser.Outcome) -> Bool {
        if case .invalid = outcome { return true }
        return false
    }

    @Test func completeHead() throws {
        let outcome = parse(
            "GET /callback?code=abc&state=xyz HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nAccept: */*\r\n\r\n")
        let head = try #require(headOf(outcome))
        #expect(head.method == "GET")
        #expect(head.target == "/callback?code=abc&state=xyz")
        #expect(head.path == "/callback")
        #expect(head.minorVersion == 1)
        #expect(head.headers.map(\.name.rawName) == ["Host", "Accept"])
        #expect(head.headers.map(\.value) == ["127.0.0.1:4000", "*/*"])
        #expect(!head.declaresBody)
    }

    @Test func headSplitIntoOneByteChunks() throws {
        let text = "GET /callback?code=1 HTTP/1.1\r\nHost: localhost:80\r\nUser-Agent:  x  \r\n\r\n"
        var parser = HTTPRequestHeadParser(maxHeadBytes: 8192)
        let bytes = Array(text.utf8)
        for byte in bytes.dropLast() {
            #expect(parser.feed([byte]) == .needMoreData)
        }
        let head = try #require(headOf(parser.feed([bytes.last!])))
        #expect(head.headers[values: .userAgent] == ["x"])
        // Once complete, further bytes change nothing.
        #expect(parser.feed(Array("garbage".utf8)) == .head(head))
    }

    @Test func headSplitAcrossTheTerminator() throws {
        var parser = HTTPRequestHeadParser(maxHeadBytes: 8192)
        #expect(parser.feed(Array("GET / HTTP/1.1\r\nHost: a:1\r".utf8)) == .needMoreData)
        #expect(parser.feed(Array("\n\r".utf8)) == .needMoreData)
        #expect(headOf(parser.feed(Array("\n".utf8))) != nil)
    }

    @Test func leadingEmptyLinesAreSkipped() {
        #expect(headOf(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a:1\r\n\r\n"))?.target == "/")
    }

    @Test func tooLargeHeaders() {
        let big = "GET / HTTP/1.1\r\nHost: a:1\r\nX-Big: \(String(repeating: "a", count: 100))\r\n\r\n"
        #expect(parse(big, max: 64) == .tooLarge)
        #expect(headOf(parse(big, max: 8192)) != nil)
    }

    @Test func tooLargeRequestLineWithoutEnd() {
        var parser = HTTPRequestHeadParser(maxHeadBytes: 64)
        #expect(parser.feed(Array("GET /\(String(repeating: "a", count: 50))".utf8)) == .needMoreData)
        #expect(parser.feed(Array(String(repeating: "b", count: 50).utf8)) == .tooLarge)
    }

    @Test func limitCountsTheWholeHead() {
        let exact = "GET / HTTP/1.1\r\nHost: a:1\r\n\r\n"
        #expect(headOf(parse(exact, max: exact.utf8.count)) != nil)
        #expect(parse(exact, max: exact.utf8.count - 1) == .tooLarge)
    }

    @Test func garbageIsRejectedWithoutWaitingForALineEnd() {
        // The start of a TLS ClientHello.
        var parser = HTTPRequestHeadParser(maxHeadBytes: 8192)
        #expect(isInvalid(parser.feed([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])))
        #expect(isInvalid(parse("\u{0}\u{1}\u{2}")))
        #expect(isInvalid(parse("GET /\u{7}")))
    }

    @Test func malformedRequestLines() {
        #expect(isInvalid(parse("hello world\r\n\r\n")))
        #expect(isInvalid(parse("GET  / HTTP/1.1\r\nHost: a:1\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1 extra\r\nHost: a:1\r\n\r\n")))
        #expect(isInvalid(parse("GET /\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/2.0\r\nHost: a:1\r\n\r\n")))
        #expect(isInvalid(parse("GET / http/1.1\r\nHost: a:1\r\n\r\n")))
        #expect(isInvalid(parse("GET /a#frag HTTP/1.1\r\nHost: a:1\r\n\r\n")))
        #expect(isInvalid(parse("G(T / HTTP/1.1\r\nHost: a:1\r\n\r\n")))
    }

    @Test func http10() throws {
        let head = try #require(headOf(parse("GET /callback HTTP/1.0\r\nHost: 127.0.0.1:9\r\n\r\n")))
        #expect(head.minorVersion == 0)
        #expect(headOf(parse("GET /callback HTTP/1.0\r\n\r\n"))?.headers.isEmpty == true)
    }

    @Test func nonOriginFormTargetsAreRejected() {
        #expect(isInvalid(parse("GET http://127.0.0.1:9/callback HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")))
        #expect(isInvalid(parse("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n")))
        #expect(isInvalid(parse("OPTIONS * HTTP/1.1\r\nHost: a:1\r\n\r\n")))
    }

    @Test func badFieldLines() {
        // Obsolete line folding.
        #expect(isInvalid(parse("GET / HTTP/1.1\r\nHost: a:1\r\nX-A: b\r\n  folded\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1\r\n\tHost: a:1\r\n\r\n")))
        // Whitespace before the colon, no colon, empty name.
        #expect(isInvalid(parse("GET / HTTP/1.1\r\nHost : a:1\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1\r\nHost a\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1\r\n: a\r\n\r\n")))
        // Bare LF, bare CR, control characters in a value.
        #expect(isInvalid(parse("GET / HTTP/1.1\nHost: a:1\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1\r\nHost: a:1\nX: y\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1\r\nHost: a\r:1\r\n\r\n")))
        #expect(isInvalid(parse("GET / HTTP/1.1\r\nHost: a\u{0}:1\r\n\r\n")))
    }

    @Test func headerNamesAreCaseInsensitive() throws {
        let head = try #require(headOf(parse("GET / HTTP/1.1\r\nhOsT: 127.0.0.1:5\r\nCONTENT-LENGTH: 0\r\n\r\n")))
        #expect(head.headers[values: LoopbackRequestRouter.hostField] == ["127.0.0.1:5"])
        #expect(head.headers[values: try #require(HTTPField.Name("HOST"))] == ["127.0.0.1:5"])
        #expect(head.headers.first?.name.rawName == "hOsT")
        #expect(!head.declaresBody)
    }

    @Test func bodyIsDetected() throws {
        #expect(headOf(parse("POST /c HTTP/1.1\r\nHost: a:1\r\nContent-Length: 5\r\n\r\nhello"))?.declaresBody == true)
        #expect(
            headOf(parse("GET /c HTTP/1.1\r\nHost: a:1\r\nTransfer-Encoding: chunked\r\n\r\n"))?.declaresBody == true)
        #expect(headOf(parse("GET /c HTTP/1.1\r\nHost: a:1\r\nContent-Length: 0\r\n\r\n"))?.declaresBody == false)
        #expect(headOf(parse("GET /c HTTP/1.1\r\nHost: a:1\r\nContent-Length: 7, 7\r\n\r\n"))?.declaresBody == true)
        #expect(isInvalid(parse("GET /c HTTP/1.1\r\nHost: a:1\r\nContent-Length: abc\r\n\r\n")))
        #expect(isInvalid(parse("GET /c HTTP/1.1\r\nHost: a:1\r\nContent-Length: -1\r\n\r\n")))
        #expect(isInvalid(parse("GET /c HTTP/1.1\r\nHost: a:1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")))
    }

    @Test func saysWhetherBytesFollowedTheHead() {
        let head = "GET / HTTP/1.1\r\nHost: a:1\r\n\r\n"
        var alone = HTTPRequestHeadParser(maxHeadBytes: 8192)
        #expect(headOf(alone.feed(Array(head.utf8))) != nil)
        #expect(!alone.bytesFollowHead)

        var followed = HTTPRequestHeadParser(maxHeadBytes: 8192)
        #expect(headOf(followed.feed(Array((head + "GET /").utf8))) != nil)
        #expect(followed.bytesFollowHead)

        // The head's last byte and the next one arrive together, after the rest.
        var inPieces = HTTPRequestHeadParser(maxHeadBytes: 8192)
        #expect(inPieces.feed(Array(head.utf8).dropLast()) == .needMoreData)
        #expect(headOf(inPieces.feed(Array("\nx".utf8))) != nil)
        #expect(inPieces.bytesFollowHead)
    }
}
