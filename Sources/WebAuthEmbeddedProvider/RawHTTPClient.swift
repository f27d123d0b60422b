import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A deliberately plain HTTP client over POSIX sockets, for tests and benchmarks that play a
/// browser (or an attacker) against a loopback listener: it sends exactly the bytes it is given.
///
/// Blocking socket calls run on their own threads, never on the concurrency pool.
public enum RawHTTPClient {
    /// A response as text.
    public struct Response: Sendable {
        /// The status code, or 0 when the server closed without a status line.
        public var status: Int
        /// Everything the server sent.
        public var raw: String
        /// The body, after the blank line.
        public var body: String {
            raw.range(of: "\r\n\r\n").map { String(raw[$0.upperBound...]) } ?? ""
        }
        /// A response from everything the server sent.
        package init(_ received: [UInt8]) {
            raw = String(decoding: received, as: UTF8.self)
            let statusLine = raw.prefix { $0 != "\r" }.split(separator: " ")
            status = statusLine.count >= 2 ? Int(statusLine[1]) ?? 0 : 0
        }

        /// The value of the first header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            for line in raw.components(separatedBy: "\r\n").dropFirst() {
                if line.isEmpty { break }
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    /// Sends `GET target` with a `Host` header (default `127.0.0.1:port`) and reads the reply.
    public static func get(
        port: Int, target: String, host: String? = nil, address: String = "127.0.0.1"
    ) async throws -> Response {
        try await exchange(
            port: port, bytes: getRequest(port: port, target: target, host: host, address: address), address: address)
    }

    /// The bytes ``get(port:target:host:address:)`` sends.
    package static func getRequest(port: Int, target: String, host: String? = nil, address: String = "127.0.0.1")
        -> [UInt8]
    {
        let hostLine = host.map { $0.isEmpty ? "" : "Host: \($0)\r\n" } ?? "Host: \(address):\(port)\r\n"
        return Array("GET \(target) HTTP/1.1\r\n\(hostLine)User-Agent: webauth-tests\r\nAccept: text/html\r\n\r\n".utf8)
    }

    /// Sends `bytes` and reads until the server closes the connection (or `timeout` passes with
    /// nothing read). The default only stops a hang: a loaded machine can take seconds to answer.
    public static func exchange(
        port: Int, bytes: [UInt8], address: String = "127.0.0.1", timeout: Duration = .seconds(60)
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try exchangeBlocking(port: port, bytes: bytes, address: address, timeout: timeout) })
            }
        }
    }

    /// Opens a connection and leaves it idle (or sends `partial` and stalls), as a slow or
    /// hostile client would. Close it with ``Connection/close()``.
    public static func connect(port: Int, sending partial: [UInt8] = [], address: String = "127.0.0.1") throws
        -> Connection
    {
        let descriptor = try openSocket(port: port, address: address)
        if !partial.isEmpty {
            _ = partial.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        return Connection(descriptor: descriptor)
    }

    /// An open client connection.
    public final class Connection: Sendable {
        let descriptor: Int32
        init(descriptor: Int32) { self.descriptor = descriptor }

        /// Closes the connection.
        public func close() { _ = Glibc.close(descriptor) }
    }

    /// Whether something accepts connections on `port` right now.
    public static func isListening(port: Int, address: String = "127.0.0.1") -> Bool {
        guard let descriptor = try? openSocket(port: port, address: address) else { return false }
        _ = Glibc.close(descriptor)
        return true
    }

    private static func exchangeBlocking(port: Int, bytes: [UInt8], address: String, timeout: Duration) throws
        -> Response
    {
        let descriptor = try openSocket(port: port, address: address)
        defer { _ = Glibc.close(descriptor) }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            // The server may close early (an oversized request); read what it said anyway.
            if sent <= 0 { break }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return Response(received)
    }

    /// Opens a blocking TCP connection to `address`:`port`.
    package static func openSocket(port: Int, address: String) throws -> Int32 {
        let isIPv6 = address.contains(":")
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let result: Int32
        if isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, address, &socketAddress.sin6_addr)
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, address, &socketAddress.sin_addr)
            result = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            _ = Glibc.close(descriptor)
            throw POSIXError(.init(rawValue: code) ?? .ECONNREFUSED)
        }
        return descriptor
    }
}
