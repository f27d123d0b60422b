// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthFastPath
import WebAuthPlatform
import WebAuthTestSupport
import WebAuthTokenFiles
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A Secret Service holding one unlocked item whose secret is `secret`, answering the fast
/// path's calls in the order it makes them: `Hello` (serial 1), `OpenSession` (2),
/// `SearchItems` (3), `GetSecret` (4).
func secretService(holding secret: [UInt8]) -> @Sendable (UInt32, [UInt8]) -> [UInt8]? {
    let session = "/org/freedesktop/secrets/session/s1"
    let item = "/org/freedesktop/secrets/collection/login/1"
    return { serial, _ in
        switch serial {
        case 1: return reply(to: 1, signature: "s") { $0.string(":1.9") }
        case 2:
            return reply(to: 2, signature: "vo") { body in
                body.variantString("")
                body.string(session)
            }
        case 3:
            return reply(to: 3, signature: "aoao") { body in
                body.array(elementAlignment: 4) { $0.string(item) }
                body.array(elementAlignment: 4) { _ in }
            }
        case 4:
            return reply(to: 4, signature: "(oayays)") { body in
                body.pad(to: 8)
                body.string(session)
                body.array(elementAlignment: 1) { _ in }
                body.array(elementAlignment: 1) { for byte in secret { $0.byte(byte) } }
                body.string("text/plain")
            }
        default: return nil
        }
    }
}

/// The compact JSON of a fresh entry whose access token is `accessToken`.
func entryBytes(accessToken: String = "bus-access-token") throws -> [UInt8] {
    Array(try fullEntry(accessToken: accessToken, withConfiguration: false).encoded())
}

private let busGUID = "0123456789abcdef0123456789abcdef"

/// A state directory with the keyring store's lock directory ready, and a `PATH` holding a
/// `secret-tool` (the fast path only checks that there is one): the environment in which the
/// fast path reads `--store keyring` over `bus`.
private struct KeyringSandbox {
    let root: String

    init() throws {
        var template = Array("/tmp/webauth-bus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CLITestError("mkdtemp failed") }
        root = String(cString: made)
        try FileManager.default.createDirectory(
            atPath: root + "/state/webauth/locks", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        chmod(root + "/state/webauth", 0o700)
        chmod(root + "/state/webauth/locks", 0o700)
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(
                atPath: root + "/bin/secret-tool", contents: Data("#!/bin/sh\nexit 1\n".utf8)))
        chmod(root + "/bin/secret-tool", 0o755)
    }

    func environment(bus: String) -> [String: String] {
        ["XDG_STATE_HOME": root + "/state", "HOME": root, "PATH": root + "/bin", "DBUS_SESSION_BUS_ADDRESS": bus]
    }

    func answer(bus: String) -> String? {
        FastPath.answer(
            ["token", "--store", "keyring"], environment: environment(bus: bus), now: Date(), standardInput: { nil }
        ).map { String(decoding: $0, as: UTF8.self) }
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

@Suite("Fast path: which session bus it trusts")
struct SessionBusTrustTests {
    @Test("A bus of this user's, with the address's GUID, is read (the stand-in bus works)")
    func ownBus() throws {
        let bus = try FakeSessionBus(guid: busGUID, respond: secretService(holding: try entryBytes()))
        defer { bus.stop() }
        #expect(SecretServiceLookup.secret(profile: "default", busAddress: bus.address) == (try entryBytes()))
        #expect(
            SecretServiceLookup.secret(profile: "default", busAddress: bus.address + ",guid=" + busGUID)
                == (try entryBytes()))
        let sandbox = try KeyringSandbox()
        defer { sandbox.remove() }
        #expect(sandbox.answer(bus: bus.address) == "bus-access-token\n")
    }

    @Test("A bus another user listens on is not used: no authentication, no token")
    func otherUsersBus() throws {
        let bus = try FakeSessionBus(
            guid: busGUID, listeningAs: 65534, respond: secretService(holding: try entryBytes()))
        defer { bus.stop() }
        #expect(SecretServiceLookup.secret(profile: "default", busAddress: bus.address) == nil)
        let sandbox = try KeyringSandbox()
        defer { sandbox.remove() }
        #expect(sandbox.answer(bus: bus.address) == nil)
        #expect(bus.authentications == 0)
        guard let address = DBusAddress(bus.address) else { throw CLITestError("no address") }
        #expect(SessionBusSocket.open(address, deadline: .now + .seconds(2)) == .failure(.otherUser(65534)))
    }

    @Test("A bus whose OK names another GUID than the address is not used")
    func otherGUID() throws {
        let bus = try FakeSessionBus(guid: busGUID, respond: secretService(holding: try entryBytes()))
        defer { bus.stop() }
        let address = bus.address + ",guid=" + String(busGUID.reversed())
        #expect(SecretServiceLookup.secret(profile: "default", busAddress: address) == nil)
        let sandbox = try KeyringSandbox()
        defer { sandbox.remove() }
        #expect(sandbox.answer(bus: address) == nil)
    }

    @Test("An access token outside RFC 6749's %x20-7E, from the keyring or a file, is left to the full program")
    func unprintableToken() throws {
        for token in ["a\u{1B}]52;c;aGk=\u{07}b", "line\nbreak", "caf\u{E9}", "del\u{7F}"] {
            let bus = try FakeSessionBus(
                guid: busGUID, respond: secretService(holding: try entryBytes(accessToken: token)))
            defer { bus.stop() }
            let sandbox = try KeyringSandbox()
            defer { sandbox.remove() }
            #expect(sandbox.answer(bus: bus.address) == nil, "\(token.debugDescription)")
            #expect(CachedEntry(decoding: Data(try entryBytes(accessToken: token))) == nil)
        }
        #expect(CachedEntry(decoding: Data(try entryBytes(accessToken: " ~printable~ "))) != nil)
        #expect(TokenCharacters.areAllowed(accessToken: "x", tokenType: "Bearer", idToken: "a\u{1B}b") == false)
    }

    @Test("A bus that never accepts is given up at the fast path's deadline", .timeLimit(.minutes(1)))
    func neverAccepts() throws {
        let name = "webauth-test-full-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #expect(listener >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8] = [0] + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        #expect(bound == 0 && listen(listener, 0) == 0)
        // Fill the listener's queue until the kernel says it is full: a blocking connect would
        // now wait until the listener accepts — never.
        var queued: [Int32] = []
        defer {
            for descriptor in queued { close(descriptor) }
            close(listener)
        }
        var full = false
        while !full, queued.count < 64 {
            let client = socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
            }
            if result != 0, errno == EAGAIN { full = true }
            queued.append(client)
        }
        #expect(full)

        let done = DispatchSemaphore(value: 0)
        let result = Locked<(answer: [UInt8]?, took: Duration)?>(nil)
        Thread {
            let start = ContinuousClock.now
            let answer = SecretServiceLookup.secret(profile: "default", busAddress: "unix:abstract=" + name)
            result.withLock { $0 = (answer, ContinuousClock.now - start) }
            done.signal()
        }.start()
        // Closing the listener (at the end) releases a connect that waits for it.
        #expect(done.wait(timeout: .now() + 5) == .success, "the lookup still waits for the bus")
        let outcome = result.withLock { $0 }
        #expect(outcome != nil && outcome?.answer == nil)
        if let took = outcome?.took {
            #expect(took >= SecretServiceLookup.timeLimit - .milliseconds(50))
            #expect(took < SecretServiceLookup.timeLimit + .milliseconds(500), "\(took)")
        }
    }
}
