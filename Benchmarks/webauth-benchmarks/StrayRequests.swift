// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import CNIOLinux
import Foundation
import WebAuthEmbeddedProvider
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The browser's callback request among stray requests to wrong paths, sent in one burst by a
/// single thread that drives every connection with `poll`, the way a load generator does.
///
/// The listener sees what one process per request would make it see — `count` connections,
/// each asking once for `/favicon.ico` or `/` with a valid `Host` field, and the callback's
/// connection after the first `callbackAfter` of them — only sooner after one another, so the
/// burst is at least as harsh. Nothing of it runs on the event loops of the process under test,
/// as nothing of a browser or of another program would. The answers are read once every request
/// is sent, so an answered connection lingers a little longer before its client closes it: the
/// listener closes as many connections either way. What the single thread spares is the
/// benchmark's own cost: a thread per request made 250 thread starts compete for the cores with
/// the listener being measured.
enum StrayRequests {
    /// How far a burst has come.
    enum Progress: Sendable {
        /// The callback's connection is about to be made, now.
        case callbackSent(ContinuousClock.Instant)
        /// Every request is answered, cut off or refused.
        case finished(strays: [Outcome], callback: Outcome)
    }

    /// What became of one request.
    struct Outcome: Sendable {
        /// The status code; 0 for a connection closed without an answer, -1 for one that could
        /// not be made.
        var status = -1
        /// When the server had answered and closed, for a request that got an answer.
        var answered: ContinuousClock.Instant?
    }

    /// Starts `count` stray requests and the callback request for `callbackTarget`, sent after
    /// the first `callbackAfter` strays, on a thread of their own. The stream says
    /// ``Progress/callbackSent(_:)``, then ``Progress/finished(strays:callback:)``. The burst
    /// stops by itself: a connection not closed by the server within `timeout` counts as cut off.
    static func start(
        port: Int, count: Int, callbackTarget: String, callbackAfter: Int, timeout: Duration = .seconds(60)
    ) -> AsyncStream<Progress> {
        let (progress, continuation) = AsyncStream.makeStream(of: Progress.self)
        Thread.detachNewThread {
            let targets = (0..<count).map { $0.isMultiple(of: 2) ? "/favicon.ico" : "/" }
            var order = Array(targets.indices)
            order.insert(count, at: min(callbackAfter, count))
            let outcomes = run(port: port, targets: targets + [callbackTarget], order: order, timeout: timeout) {
                if $0 == count { continuation.yield(.callbackSent(.now)) }
            }
            continuation.yield(.finished(strays: Array(outcomes.dropLast()), callback: outcomes[count]))
            continuation.finish()
        }
        return progress
    }

    /// Connects and sends every request in `order` (indices into `targets`), telling `sending`
    /// before each, then reads every answer until the server closes.
    private static func run(
        port: Int, targets: [String], order: [Int], timeout: Duration, sending: (Int) -> Void
    ) -> [Outcome] {
        var outcomes = [Outcome](repeating: Outcome(), count: targets.count)
        var received = [[UInt8]](repeating: [], count: targets.count)
        var waiting: [pollfd] = []
        var owner: [Int32: Int] = [:]
        for index in order {
            let request = RawHTTPClient.getRequest(port: port, target: targets[index])
            sending(index)
            if let descriptor = openSocket(port: port) {
                // A request this small fits the socket's send buffer whole; a failed send (the
                // server closed already) shows as a connection closed without an answer.
                _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                outcomes[index].status = 0
                owner[descriptor] = index
                waiting.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
            }
        }
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !waiting.isEmpty, ContinuousClock.now < deadline {
            guard poll(&waiting, nfds_t(waiting.count), 100) > 0 else { continue }
            waiting.removeAll { entry in
                guard entry.revents != 0, let index = owner[entry.fd] else { return false }
                while true {
                    let count = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count > 0 {
                        received[index] += buffer[..<count]
                        continue
                    }
                    if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return false }
                    break  // closed by the server, or reset
                }
                outcomes[index].status = status(of: received[index])
                if outcomes[index].status > 0 { outcomes[index].answered = .now }
                _ = close(entry.fd)
                return true
            }
        }
        for entry in waiting { _ = close(entry.fd) }
        return outcomes
    }

    /// The status code of the answer `received`, or 0 without a status line. Read from the
    /// bytes, not through a `String`: this thread shares the cores with the listener it
    /// measures.
    private static func status(of received: [UInt8]) -> Int {
        let prefix = Array("HTTP/1.1 ".utf8)
        guard received.count >= prefix.count + 3, received.starts(with: prefix) else { return 0 }
        var status = 0
        for byte in received[prefix.count..<(prefix.count + 3)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return 0 }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return status
    }

    /// A blocking TCP connection to `127.0.0.1`:`port` that has sent `bytes`, or `nil`.
    static func openSocket(port: Int, sending bytes: [UInt8] = []) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0,
            bytes.isEmpty
                || bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                    == bytes.count
        else {
            _ = close(descriptor)
            return nil
        }
        return descriptor
    }
}
