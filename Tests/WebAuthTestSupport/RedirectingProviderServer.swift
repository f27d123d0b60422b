import Foundation
import NIOCore
import NIOPosix

/// A stand-in for an authorization server whose behaviour the test writes: a tiny HTTP/1.1
/// server on `127.0.0.1` that answers every `GET` by asking `route` where to redirect, like the
/// last step of a provider's login page.
///
/// Use it where ``AuthorizationPageServer``'s `code` + `state` redirect does not fit, such as an
/// implicit grant that returns `#access_token=…` or an OAuth 1.0a `oauth_token` callback:
///
/// ```swift
/// let server = try await RedirectingProviderServer.start { request in
///     request.path == "/authorize" ? "com.example.app:/done#access_token=abc" : nil   // nil: 404
/// }
/// defer { Task { await server.shutdown() } }
/// ```
public final class RedirectingProviderServer: Sendable {
    /// `http://127.0.0.1:{port}` (no trailing slash).
    public let baseURL: URL
    private let log: RedirectLog
    private let listener: any Channel
    private let acceptLoop: Task<Void, Never>

    private init(baseURL: URL, log: RedirectLog, listener: any Channel, acceptLoop: Task<Void, Never>) {
        self.baseURL = baseURL
        self.log = log
        self.listener = listener
        self.acceptLoop = acceptLoop
    }

    /// Starts a server on a port the system picks. `route` gets each request (with
    /// ``RecordedRequest/responseStatus`` 0) and returns the `Location` of a `302 Found`, or `nil`
    /// for `404 Not Found`.
    public static func start(
        route: @escaping @Sendable (RecordedRequest) -> String?
    ) async throws -> RedirectingProviderServer {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = server.channel.localAddress?.port, let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            try? await server.channel.close()
            throw RedirectingProviderServerError(description: "the listening socket has no port")
        }
        let log = RedirectLog()
        let acceptLoop = Task<Void, Never> {
            try? await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await serve(connection, route: route, log: log) }
                    }
                }
            }
        }
        return RedirectingProviderServer(baseURL: baseURL, log: log, listener: server.channel, acceptLoop: acceptLoop)
    }

    /// Every request received so far, oldest first, with what it was answered.
    public var requests: [RecordedRequest] {
        get async { await log.requests }
    }

    /// Stops listening and closes open connections. Safe to call more than once.
    public func shutdown() async {
        acceptLoop.cancel()
        try? await listener.close()
        await acceptLoop.value
    }

    private static func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, route: @Sendable (RecordedRequest) -> String?,
        log: RedirectLog
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var received = ByteBuffer()
            for try await chunk in inbound {
                received.writeImmutableBuffer(chunk)
                switch RequestHead.parse(received) {
                case .incomplete:
                    guard received.readableBytes > RequestHead.maximumSize else { continue }
                    try await outbound.write(Response.text(431, "Request Header Fields Too Large", "").serialized())
                    return
                case .invalid:
                    try await outbound.write(Response.text(400, "Bad Request", "malformed request").serialized())
                    return
                case .complete(let head):
                    let components = URLComponents(string: "http://127.0.0.1" + head.target)
                    var record = RecordedRequest(
                        method: head.method, target: head.target, path: components?.path ?? head.target,
                        queryItems: components?.queryItems ?? [], headerFields: head.headerFields, responseStatus: 0)
                    let response: Response
                    if head.method == "GET", let location = route(record) {
                        record.redirectLocation = location
                        response = Response(
                            status: 302, reason: "Found", headerFields: [.init(name: "Location", value: location)])
                    } else {
                        response = .text(404, "Not Found", "not found: \(record.path)")
                    }
                    record.responseStatus = response.status
                    await log.append(record)
                    try await outbound.write(response.serialized())
                    return
                }
            }
        }
    }
}

/// An error starting a ``RedirectingProviderServer``.
public struct RedirectingProviderServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}

/// The requests a ``RedirectingProviderServer`` received.
private actor RedirectLog {
    private(set) var requests: [RecordedRequest] = []

    func append(_ request: RecordedRequest) {
        requests.append(request)
    }
}
