// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix

/// A deliberately plain HTTP client, for tests and benchmarks that play a browser (or an
/// attacker) against a loopback server: it sends exactly the bytes it is given and reads
/// everything the server sends until it closes.
///
/// It runs on SwiftNIO's shared event loops (`ClientBootstrap`), never blocking the concurrency
/// pool.
public enum RawHTTPClient {
    /// A response as text.
    public struct Response: Sendable {
        /// The status code, or 0 when the server closed without a status line.
        public var status: Int
        /// Everything the server sent.
        public var raw: String
        /// The bytes the server sent.
        private let received: [UInt8]
        /// The body, after the blank line; a chunked one (`Transfer-Encoding: chunked`, as
        /// nginx answers) decoded, and as sent when its chunks are malformed.
        public var body: String {
            let separator = Array("\r\n\r\n".utf8)
            guard let start = received.indices.first(where: { received[$0...].starts(with: separator) }) else {
                return ""
            }
            let payload = Array(received[(start + separator.count)...])
            let codings = headers("Transfer-Encoding").flatMap { $0.lowercased().split(separator: ",") }
            guard codings.contains(where: { $0.trimmingCharacters(in: .whitespaces) == "chunked" }),
                let decoded = Self.dechunked(payload)
            else { return String(decoding: payload, as: UTF8.self) }
            return String(decoding: decoded, as: UTF8.self)
        }
        /// A response from everything the server sent.
        package init(_ received: [UInt8]) {
            self.received = received
            raw = String(decoding: received, as: UTF8.self)
            let statusLine = raw.prefix { $0 != "\r" }.split(separator: " ")
            status = statusLine.count >= 2 ? Int(statusLine[1]) ?? 0 : 0
        }

        /// The value of the first header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers(name).first
        }

        /// The data of a chunked body (RFC 9112 §7.1): each chunk's size in hexadecimal (any
        /// extension after `;` ignored), CR LF, its bytes, CR LF, up to the chunk of size 0;
        /// `nil` when it is cut short or malformed.
        static func dechunked(_ bytes: [UInt8]) -> [UInt8]? {
            var data: [UInt8] = []
            var index = 0
            while true {
                guard let lineEnd = bytes[index...].indices.first(where: { bytes[$0...].starts(with: [13, 10]) })
                else { return nil }
                let sizeField = bytes[index..<lineEnd].prefix { $0 != UInt8(ascii: ";") }
                let sizeText = String(decoding: sizeField, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                guard let size = Int(sizeText, radix: 16), size >= 0 else { return nil }
                index = lineEnd + 2
                if size == 0 { return data }
                guard size <= bytes.count - index - 2, bytes[(index + size)...].starts(with: [13, 10]) else {
                    return nil
                }
                data += bytes[index..<(index + size)]
                index += size + 2
            }
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

    /// Sends `bytes` and reads until the server closes the connection (or `timeout` passes).
    /// The default only stops a hang: a loaded machine can take seconds to answer.
    ///
    /// A server that closes before it has read everything (an oversized request) still has
    /// its answer read.
    public static func exchange(
        port: Int, bytes: [UInt8], address: String = "127.0.0.1", timeout: Duration = .seconds(60)
    ) async throws -> Response {
        let connection = try await bootstrap().connect(to: socketAddress(address, port)) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        // The bound against a server that never closes: closing ends the reading below.
        let channel = connection.channel
        let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) {
            channel.close(promise: nil)
        }
        defer { deadline.cancel() }
        var received: [UInt8] = []
        try? await connection.executeThenClose { inbound, outbound in
            // A server that closes before it has read everything (an oversized request) cuts
            // the write short; what it answered is read all the same.
            try? await outbound.write(ByteBuffer(bytes: bytes))
            // A reset ends the reading too: what arrived before it is the answer.
            do {
                for try await buffer in inbound { received += buffer.readableBytesView }
            } catch {}
        }
        return Response(received)
    }

    /// Opens a connection and leaves it idle (or sends `partial` and stalls), as a slow or
    /// hostile client would. Close it with ``Connection/close()``.
    public static func connect(port: Int, sending partial: [UInt8] = [], address: String = "127.0.0.1")
        async throws -> Connection
    {
        let channel = try await bootstrap().connect(to: socketAddress(address, port)).get()
        if !partial.isEmpty { channel.writeAndFlush(ByteBuffer(bytes: partial), promise: nil) }
        return Connection(channel: channel)
    }

    /// An open client connection.
    public final class Connection: Sendable {
        let channel: any Channel
        init(channel: any Channel) { self.channel = channel }

        /// Closes the connection.
        public func close() { channel.close(promise: nil) }
    }

    /// Whether something accepts connections on `port` right now. It blocks the calling thread
    /// until the connection is made or refused.
    public static func isListening(port: Int, address: String = "127.0.0.1") -> Bool {
        guard let target = try? socketAddress(address, port),
            let channel = try? bootstrap().connect(to: target).wait()
        else { return false }
        channel.close(promise: nil)
        return true
    }

    /// A client bootstrap on the shared event loops.
    private static func bootstrap() -> ClientBootstrap {
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.seconds(10))
    }

    /// `address` (an IP address, no brackets) and `port`.
    private static func socketAddress(_ address: String, _ port: Int) throws -> SocketAddress {
        try SocketAddress(ipAddress: address, port: port)
    }
}
