// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthPlatform
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A stand-in D-Bus session bus on an abstract Unix socket, for checking what a client trusts:
/// it answers `AUTH` with `OK <guid>` and each method call with what `respond` makes of it.
///
/// With `listeningAs` another user's ID, that user starts the listening (a child run with
/// `setpriv` calls `listen` on the socket this process bound and keeps), so the kernel reports
/// that user as the listener (`SO_PEERCRED`) — as for a bus another local user bound at a stale
/// address — while this process still answers.
///
/// ```swift
/// let bus = try FakeSessionBus(guid: "0123…", listeningAs: 65534) { serial, message in nil }
/// defer { bus.stop() }
/// // connect to bus.address …
/// ```
package final class FakeSessionBus: Sendable {
    /// The address to give a client: `unix:abstract=…`.
    package let address: String
    private let listener: Int32
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var stopped = false
        var authentications = 0
    }

    /// How many clients sent `AUTH` so far.
    package var authentications: Int { state.withLock { $0.authentications } }

    /// Starts a bus that says `OK guid` and answers each method call — its serial and its bytes
    /// (little-endian, as the fast path writes) — with `respond`'s bytes, or nothing.
    package init(
        guid: String, listeningAs user: uid_t? = nil,
        respond: @escaping @Sendable (_ serial: UInt32, _ message: [UInt8]) -> [UInt8]?
    ) throws {
        let name = "webauth-test-bus-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        address = "unix:abstract=" + name
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw FakeSessionBusError("socket failed") }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8] = [0] + Array(name.utf8)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0 else {
            close(listener)
            throw FakeSessionBusError("bind failed")
        }
        if let user {
            let result = try Subprocess.runToCompletion(
                "/usr/bin/setpriv",
                [
                    "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "/usr/bin/python3", "-c",
                    "import socket; socket.socket(fileno=0).listen(16)",
                ], environment: ["PATH": "/usr/bin:/bin"], standardInput: .descriptor(listener))
            guard Subprocess.exitCode(of: result.status) == 0 else {
                close(listener)
                throw FakeSessionBusError("user \(user) could not listen: \(result.standardError)")
            }
        } else if listen(listener, 16) != 0 {
            close(listener)
            throw FakeSessionBusError("listen failed")
        }
        let thread = Thread { [self] in
            serve(guid: guid, respond: respond)
            finished.signal()
        }
        thread.start()
    }

    /// Stops answering and closes the socket.
    package func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
        close(listener)
    }

    private func serve(guid: String, respond: @Sendable (UInt32, [UInt8]) -> [UInt8]?) {
        while !state.withLock({ $0.stopped }) {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            converse(on: connection, guid: guid, respond: respond)
            close(connection)
        }
    }

    /// One client: the authentication lines, then messages until it hangs up or goes quiet.
    private func converse(on connection: Int32, guid: String, respond: @Sendable (UInt32, [UInt8]) -> [UInt8]?) {
        var received: [UInt8] = []
        func fill() -> Bool {
            var entry = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 5000) > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return false }
            received += buffer[..<count]
            return true
        }
        func line() -> String? {
            while true {
                if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
                    let text = String(decoding: received[..<end].filter { $0 != 0 && $0 != 13 }, as: UTF8.self)
                    received.removeSubrange(...end)
                    return text
                }
                guard fill() else { return nil }
            }
        }
        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) } }

        guard let auth = line(), auth.hasPrefix("AUTH") else { return }
        state.withLock { $0.authentications += 1 }
        send(Array("OK \(guid)\r\n".utf8))
        guard line() == "BEGIN" else { return }
        while true {
            // A little-endian message: 16 bytes of fixed header, the header fields padded to 8,
            // the body.
            while received.count < 16 { guard fill() else { return } }
            func number(at offset: Int) -> Int {
                (0..<4).reduce(0) { $0 | Int(received[offset + $1]) << (8 * $1) }
            }
            let fields = number(at: 12)
            let size = 16 + (fields + 7) / 8 * 8 + number(at: 4)
            while received.count < size { guard fill() else { return } }
            let message = Array(received[..<size])
            let serial = UInt32(number(at: 8))
            received.removeSubrange(..<size)
            if let answer = respond(serial, message) { send(answer) }
        }
    }
}

/// A ``FakeSessionBus`` that could not start.
package struct FakeSessionBusError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
