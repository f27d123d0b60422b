// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny loopback server for the Chromium tests: serves fixed HTML pages by path and counts
/// every connection it accepts — including ones that never send HTTP (a TLS handshake to a host
/// the browser was told lives here), which is how a test sees that a request reached "the
/// network".
///
/// Blocking socket calls run on a thread of the server's own, never on the concurrency pool.
final class LocalPageServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    private let listener: Int32
    private let record = Locked<(connections: Int, paths: [String])>((0, []))

    /// Starts serving `pages` (path → HTML body); other paths get 404.
    init(pages: [String: String] = [:]) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        var reuse: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = socket
        Thread.detachNewThread { [self] in acceptLoop(pages: pages) }
    }

    /// `http://127.0.0.1:{port}{path}`.
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// How many connections were accepted so far.
    var connectionCount: Int { record.withLock { $0.connections } }

    /// The paths of the HTTP requests received so far.
    var requestedPaths: [String] { record.withLock { $0.paths } }

    /// The path ``barrier()`` requests.
    static let barrierPath = "/.barrier"

    /// Makes a request of its own and waits for the answer. The server takes connections one at a
    /// time in the order they came, so once this is answered, every connection made before it has
    /// been counted: what ``connectionCount`` says then is final for everything before.
    func barrier() async throws {
        _ = try await URLSession(configuration: .ephemeral).data(from: url(Self.barrierPath))
    }

    /// Stops accepting.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop(pages: [String: String]) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                break
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            record.withLock { $0.connections += 1 }
            serve(connection, pages: pages)
        }
        close(listener)
    }

    private func serve(_ connection: Int32, pages: [String: String]) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 16384 {
            let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            received += buffer[..<count]
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let text = String(decoding: received, as: UTF8.self)
        let requestLine = text.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return }  // not HTTP: counted, dropped
        let path = String(parts[1].split(separator: "?", maxSplits: 1).first ?? "")
        record.withLock { $0.paths.append(path) }
        let (status, body) = pages[path].map { ("200 OK", $0) } ?? ("404 Not Found", "not found")
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n\(body)"
        _ = Array(response.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
