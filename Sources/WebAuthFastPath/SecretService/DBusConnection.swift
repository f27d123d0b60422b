#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connection to a D-Bus bus over its Unix socket, authenticated as this user (`EXTERNAL`: the
/// bus checks the socket's peer credentials), with every step bounded by one deadline. Blocking
/// and single-threaded: the fast path does one thing at a time.
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

    /// Connects to `address`, authenticates and says `Hello` (the bus drops a connection that
    /// sends anything else first); `nil` when any of it fails or `deadline` passes.
    package init?(_ address: DBusAddress, deadline: ContinuousClock.Instant) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.deadline = deadline
        guard Self.connect(descriptor, to: address.socket), authenticate() else {
            closeDescriptor(descriptor)
            return nil
        }
        let hello = nextSerial()
        guard
            send(
                DBusMessage.methodCall(
                    serial: hello, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "Hello")),
            reply(to: hello)?.kind == .methodReturn
        else {
            closeDescriptor(descriptor)
            return nil
        }
    }

    /// Closes the socket.
    package func close() {
        closeDescriptor(descriptor)
    }

    /// A new serial for a message to send.
    package mutating func nextSerial() -> UInt32 {
        serial += 1
        return serial
    }

    /// Writes `bytes` whole; `false` on an error or when the deadline passes.
    package func send(_ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            guard wait(for: Int16(POLLOUT)) else { return false }
            // MSG_NOSIGNAL: a bus that hung up is a failed send, not a SIGPIPE ending the program.
            let count = bytes[written...].withUnsafeBytes {
                sendBytes(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                written += count
            } else if count < 0, errno != EINTR, errno != EAGAIN {
                return false
            }
        }
        return true
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

    private static func connect(_ descriptor: Int32, to socket: DBusAddress.Socket) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch socket {
        case .path(let path): name = Array(path.utf8)
        case .abstract(let abstract): name = [0] + Array(abstract.utf8)  // a leading NUL: abstract
        }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: name)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (name.first == 0 ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connectDescriptor(descriptor, $0, length) }
        }
        // A Unix socket connects at once or not at all; from here on, nothing blocks past the
        // deadline.
        guard result == 0 else { return false }
        let flags = fcntl(descriptor, F_GETFL)
        return flags >= 0 && fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
    }

    /// The `EXTERNAL` exchange: a NUL, `AUTH EXTERNAL <uid in hex>`, the bus's `OK <guid>`,
    /// `BEGIN`.
    private mutating func authenticate() -> Bool {
        let uid = Array(String(geteuid()).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        guard send([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8)), let line = readLine(), line.hasPrefix("OK ")
        else { return false }
        return send(Array("BEGIN\r\n".utf8))
    }

    /// One line of the authentication exchange, without its `\r\n`.
    private mutating func readLine() -> String? {
        while true {
            if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = received[..<end]
                received.removeSubrange(...end)
                return String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
            }
            guard received.count < 512, receive() else { return nil }
        }
    }

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
        while true {
            guard wait(for: Int16(POLLIN)) else { return false }
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                received += buffer[..<count]
                return true
            }
            if count == 0 || (errno != EINTR && errno != EAGAIN) { return false }
        }
    }

    /// Waits until the socket is ready for `events`; `false` when the deadline passes first or
    /// the socket fails.
    private func wait(for events: Int16) -> Bool {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32((left / .milliseconds(1)).rounded(.up)))
            if ready > 0 { return entry.revents & (events | Int16(POLLHUP)) != 0 }
            if ready < 0, errno != EINTR { return false }
        }
    }
}

// The C library's functions, under names the connection's own methods do not shadow.
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}

private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, bytes, count, flags)
}

private func connectDescriptor(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}
