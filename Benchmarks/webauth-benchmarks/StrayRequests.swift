import Foundation
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Stray requests to wrong paths, sent in one burst by a single thread that drives every
/// connection with `poll`, the way a load generator does.
///
/// The listener sees what one thread per request would make it see — `count` connections, each
/// asking once for `/favicon.ico` or `/` with a valid `Host` field — only sooner after one
/// another, so the burst is at least as harsh. The answers are read once every request is sent,
/// so an answered connection lingers a little longer before its client closes it (and at the
/// connection cap it is evicted instead): the listener closes as many connections either way.
/// What the single thread spares is the benchmark's own cost: a thread per request made 250
/// thread starts compete for the cores with the listener being measured.
enum StrayRequests {
    /// How far a burst has come.
    enum Progress: Sendable {
        /// The first `underWay` requests are sent; the others follow at once.
        case underWay
        /// Every request is answered, cut off or refused.
        case finished([Outcome])
    }

    /// What became of one request.
    struct Outcome: Sendable {
        /// The status code; 0 for a connection closed without an answer, -1 for one that could
        /// not be made.
        var status = -1
        /// When the server had answered and closed, for a request that got an answer.
        var answered: ContinuousClock.Instant?
    }

    /// Starts `count` requests on a thread of their own. The stream says ``Progress/underWay``
    /// once `underWay` of them are sent, then ``Progress/finished(_:)``. The burst stops by
    /// itself: a connection not closed by the server within `timeout` counts as cut off.
    static func start(
        port: Int, count: Int, underWay: Int, timeout: Duration = .seconds(60)
    ) -> AsyncStream<Progress> {
        let (progress, continuation) = AsyncStream.makeStream(of: Progress.self)
        Thread.detachNewThread {
            let outcomes = run(port: port, count: count, timeout: timeout) { sent in
                if sent == min(underWay, count) { continuation.yield(.underWay) }
            }
            continuation.yield(.finished(outcomes))
            continuation.finish()
        }
        return progress
    }

    /// Connects and sends every request, then reads every answer until the server closes.
    private static func run(port: Int, count: Int, timeout: Duration, sent: (Int) -> Void) -> [Outcome] {
        var outcomes = [Outcome](repeating: Outcome(), count: count)
        var received = [[UInt8]](repeating: [], count: count)
        var waiting: [pollfd] = []
        var owner: [Int32: Int] = [:]
        sent(0)
        for index in 0..<count {
            let request = RawHTTPClient.getRequest(port: port, target: index.isMultiple(of: 2) ? "/favicon.ico" : "/")
            if let descriptor = openSocket(port: port) {
                // A request this small fits the socket's send buffer whole; a failed send (the
                // server closed already) shows as a connection closed without an answer.
                _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                outcomes[index].status = 0
                owner[descriptor] = index
                waiting.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
            }
            sent(index + 1)
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
                outcomes[index].status = RawHTTPClient.Response(received[index]).status
                if outcomes[index].status > 0 { outcomes[index].answered = .now }
                _ = close(entry.fd)
                return true
            }
        }
        for entry in waiting { _ = close(entry.fd) }
        return outcomes
    }

    /// A blocking TCP connection to `127.0.0.1`:`port`, or `nil`.
    private static func openSocket(port: Int) -> Int32? {
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
        guard result == 0 else {
            _ = close(descriptor)
            return nil
        }
        return descriptor
    }
}
