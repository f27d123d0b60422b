// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform
package import WebAuthTokenFiles

/// A connection to a D-Bus bus over its Unix socket, opened as ``SessionBusSocket`` opens it —
/// a bus of this user's or root's, with the address's GUID, authenticated as this user
/// (`EXTERNAL`: the bus checks the socket's peer credentials) — with every step, the connect
/// included, bounded by one deadline. Single-threaded: the fast path does one thing at a time.
///
/// ```swift
/// guard var bus = DBusConnection(address, deadline: .now + .seconds(2)) else { return nil }
/// defer { bus.close() }
/// let serial = bus.nextSerial()
/// guard bus.send(DBusMessage.methodCall(serial: serial, …)), let reply = bus.reply(to: serial) else { return nil }
/// ```
package struct DBusConnection {
    private let descriptor: Int32
    private let deadline: ContinuousClock.Instant
    private var received: [UInt8] = []
    private var serial: UInt32 = 0

    /// Connects to `address`, checks and authenticates (``SessionBusSocket``), and says `Hello`
    /// (the bus drops a connection that sends anything else first); `nil` when any of it fails
    /// or `deadline` passes.
    package init?(_ address: DBusAddress, deadline: ContinuousClock.Instant) {
        guard case .success(let descriptor) = SessionBusSocket.open(address, deadline: deadline) else { return nil }
        self.descriptor = descriptor
        self.deadline = deadline
        let hello = nextSerial()
        guard
            send(
                Array("BEGIN\r\n".utf8)
                    + DBusMessage.methodCall(
                        serial: hello, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus", member: "Hello")),
            reply(to: hello)?.kind == .methodReturn
        else {
            Descriptor.close(descriptor)
            return nil
        }
    }

    /// Closes the socket.
    package func close() {
        Descriptor.close(descriptor)
    }

    /// A new serial for a message to send.
    package mutating func nextSerial() -> UInt32 {
        serial += 1
        return serial
    }

    /// Writes `bytes` whole; `false` on an error or when the deadline passes.
    package func send(_ bytes: [UInt8]) -> Bool {
        LocalSocket.sendAll(descriptor, bytes, deadline: deadline)
    }

    /// The reply to the call sent with `serial` (a method return or an error); the messages
    /// before it — signals such as `NameAcquired`, replies to other calls — are skipped. `nil`
    /// on a malformed message, a closed connection or the deadline.
    package mutating func reply(to serial: UInt32) -> DBusMessage? {
        while true {
            guard let message = nextMessage() else { return nil }
            if message.kind == .methodReturn || message.kind == .error, message.replySerial == serial {
                return message
            }
        }
    }

    // MARK: -

    /// The next whole message.
    private mutating func nextMessage() -> DBusMessage? {
        while true {
            if received.count >= DBusMessage.fixedHeaderSize {
                guard let size = DBusMessage.size(ofMessageStartingWith: received[...]) else { return nil }
                if received.count >= size {
                    let bytes = Array(received[..<size])
                    received.removeSubrange(..<size)
                    return DBusMessage(parsing: bytes)
                }
            }
            guard receive() else { return nil }
        }
    }

    /// Reads what has arrived into ``received``; `false` at the end, on an error or when the
    /// deadline passes.
    private mutating func receive() -> Bool {
        guard let bytes = LocalSocket.receive(descriptor, maximum: 16 * 1024, deadline: deadline) else { return false }
        received += bytes
        return true
    }
}
