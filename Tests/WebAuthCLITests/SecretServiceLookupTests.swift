// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthFastPath
import WebAuthTokenFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A reply as a bus sends it, little-endian: `kind` answering `serial`, with `signature` and the
/// body `body` writes.
func reply(
    _ kind: DBusMessage.Kind = .methodReturn, to serial: UInt32 = 7, signature: String,
    body: (inout DBusWriter) -> Void
) -> [UInt8] {
    var bodyWriter = DBusWriter()
    body(&bodyWriter)
    var message = DBusWriter()
    for byte in [UInt8(ascii: "l"), kind.rawValue, 0, 1] { message.byte(byte) }
    message.uint32(UInt32(bodyWriter.bytes.count))
    message.uint32(99)
    message.array(elementAlignment: 8) { fields in
        fields.pad(to: 8)
        fields.byte(5)
        fields.signature("u")
        fields.uint32(serial)
        if kind == .error { fields.headerField(4, "s", "org.freedesktop.Secret.Error.IsLocked") }
        fields.headerField(7, "s", ":1.3")
        if !signature.isEmpty { fields.headerField(8, "g", signature) }
    }
    message.pad(to: 8)
    return message.bytes + bodyWriter.bytes
}

@Suite("Fast path: the keyring over D-Bus, piece by piece")
struct SecretServiceLookupTests {
    @Test("Bus addresses: the first unix:path or unix:abstract entry, unescaped")
    func addresses() {
        #expect(DBusAddress("unix:path=/run/user/1000/bus")?.socket == .path("/run/user/1000/bus"))
        #expect(DBusAddress("unix:guid=ab12,abstract=/tmp/dbus-x")?.socket == .abstract("/tmp/dbus-x"))
        #expect(DBusAddress("unix:path=/a%2cb%20c;tcp:host=127.0.0.1,port=1")?.socket == .path("/a,b c"))
        #expect(DBusAddress("unix:path=/run/user/1000/bus,guid=0f3c")?.guid == "0f3c")
        #expect(DBusAddress("unix:path=/run/user/1000/bus")?.guid == nil)
        for unusable in [
            // Only the first entry: the one clients such as secret-tool try first.
            "tcp:host=127.0.0.1,port=1;unix:path=/a", "autolaunch:;unix:path=/a",
            "", "autolaunch:", "tcp:host=localhost,port=4", "unix:tmpdir=/tmp", "unix:path=", "unix:path=/a%2",
            "unix:path=/a%zz", "unix:path=/" + String(repeating: "x", count: 107), "unixpath=/x",
        ] {
            #expect(DBusAddress(unusable) == nil, "\(unusable)")
        }
    }

    @Test("A method call reads back as written: header fields, signature and body")
    func methodCallRoundTrip() throws {
        let bytes = DBusMessage.methodCall(
            serial: 3, destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
            interface: "org.freedesktop.Secret.Service", member: "SearchItems", signature: "a{ss}"
        ) { body in body.stringDictionary([("service", "webauth"), ("profile", "work")]) }
        #expect(DBusMessage.size(ofMessageStartingWith: bytes[...]) == bytes.count)
        let message = try #require(DBusMessage(parsing: bytes))
        #expect(message.kind == .methodCall)
        #expect(message.signature == "a{ss}")
        #expect(bytes[2] == 0x2)  // NO_AUTO_START: a call never starts a keyring
        var body = message.body()
        // Two dictionary entries, each aligned to 8: 12 + 12 ("service", "webauth"), then
        // 12 + 9 ("profile", "work").
        #expect(body.uint32() == 45)
        var pairs: [String] = []
        while body.align(8), let key = body.string(), let value = body.string() { pairs += [key, value] }
        #expect(pairs == ["service", "webauth", "profile", "work"])
    }

    @Test("A big-endian reply is read as well")
    func bigEndian() throws {
        let bytes: [UInt8] =
            [UInt8(ascii: "B"), 2, 0, 1, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 15]
            + [5, 1, UInt8(ascii: "u"), 0, 0, 0, 0, 7]
            + [8, 1, UInt8(ascii: "g"), 0, 1, UInt8(ascii: "s"), 0, 0]
            + [0, 0, 0, 2, UInt8(ascii: "h"), UInt8(ascii: "i"), 0]
        let message = try #require(DBusMessage(parsing: bytes))
        #expect(message.kind == .methodReturn && message.replySerial == 7 && message.signature == "s")
        var body = message.body()
        #expect(body.string() == "hi")
    }

    @Test("The Secret Service's replies: a session, one unlocked item, a plain-text secret")
    func replies() throws {
        let opened = try #require(
            DBusMessage(
                parsing: reply(signature: "vo") { body in
                    body.variantString("")
                    body.string("/org/freedesktop/secrets/session/s1")
                }))
        #expect(SecretServiceLookup.sessionPath(opened) == "/org/freedesktop/secrets/session/s1")

        func search(unlocked: [String], locked: [String]) throws -> String? {
            let message = try #require(
                DBusMessage(
                    parsing: reply(signature: "aoao") { body in
                        body.array(elementAlignment: 4) { for path in unlocked { $0.string(path) } }
                        body.array(elementAlignment: 4) { for path in locked { $0.string(path) } }
                    }))
            return SecretServiceLookup.onlyUnlockedItem(message)
        }
        let item = "/org/freedesktop/secrets/collection/login/3"
        #expect(try search(unlocked: [item], locked: []) == item)
        #expect(try search(unlocked: [], locked: []) == nil)
        #expect(try search(unlocked: [item, item + "1"], locked: []) == nil)
        #expect(try search(unlocked: [item], locked: [item + "1"]) == nil)
        #expect(try search(unlocked: [], locked: [item]) == nil)

        func secret(_ value: [UInt8], contentType: String = "text/plain", parameters: [UInt8] = []) throws
            -> [UInt8]?
        {
            let message = try #require(
                DBusMessage(
                    parsing: reply(signature: "(oayays)") { body in
                        body.pad(to: 8)
                        body.string("/org/freedesktop/secrets/session/s1")
                        body.array(elementAlignment: 1) { for byte in parameters { $0.byte(byte) } }
                        body.array(elementAlignment: 1) { for byte in value { $0.byte(byte) } }
                        body.string(contentType)
                    }))
            return SecretServiceLookup.plainText(message)
        }
        let entry = Array(#"{"version":1}"#.utf8)
        #expect(try secret(entry) == entry)
        #expect(try secret(entry, contentType: "text/plain; charset=utf8") == entry)
        #expect(try secret(entry, contentType: "application/octet-stream") == nil)
        #expect(try secret(entry, parameters: [1, 2]) == nil)  // an encrypted session's
        #expect(try secret([UInt8](repeating: 0x20, count: 8192)) == nil)

        // An error, or the right signature on the wrong kind, is no answer.
        let locked = try #require(DBusMessage(parsing: reply(.error, signature: "") { _ in }))
        #expect(locked.errorName == "org.freedesktop.Secret.Error.IsLocked")
        #expect(SecretServiceLookup.plainText(locked) == nil)
        #expect(SecretServiceLookup.sessionPath(locked) == nil)
    }

    @Test("Cut short or garbled, a message is refused, never read past its end")
    func malformed() {
        let valid = reply(signature: "aoao") { body in
            body.array(elementAlignment: 4) { $0.string("/org/freedesktop/secrets/collection/login/3") }
            body.array(elementAlignment: 4) { _ in }
        }
        #expect(DBusMessage(parsing: valid) != nil)
        for length in 0..<valid.count {
            #expect(DBusMessage(parsing: Array(valid.prefix(length))) == nil, "cut at \(length)")
        }
        // Every byte changed to every value: whatever parses, the decoders read within bounds.
        var parsed = 0
        for index in valid.indices {
            for value in [0, 1, 7, 8, 0x6c, 0x7f, 0x80, 0xff] as [UInt8] where valid[index] != value {
                var garbled = valid
                garbled[index] = value
                guard let message = DBusMessage(parsing: garbled) else { continue }
                parsed += 1
                _ = SecretServiceLookup.onlyUnlockedItem(message)
                _ = SecretServiceLookup.plainText(message)
                _ = SecretServiceLookup.sessionPath(message)
            }
        }
        #expect(parsed > 0)
    }

    @Test("A bus that says nothing, or hangs up, gets no answer from the fast path", .timeLimit(.minutes(1)))
    func silentOrClosingBus() throws {
        var template = Array("/tmp/webauth-bus-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/bus"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        // Connected (the kernel's backlog) but never answered: given up at the time limit.
        #expect(SecretServiceLookup.secret(profile: "work", busAddress: "unix:path=" + path) == nil)
        // No socket at all.
        #expect(SecretServiceLookup.secret(profile: "work", busAddress: "unix:path=" + directory + "/none") == nil)
    }
}
