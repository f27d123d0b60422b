// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOEmbedded
import Testing
import WebAuthCore
import WebAuthPlatform

@testable import WebAuthLoopback

/// A socket table that names one owner for every connection.
private struct OwnerTable: PeerSocketOwnerLookup {
    let owner: PeerSocketOwner

    func owner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner { owner }
}

/// Records the output half-closes a connection asks for and lets them go no further: an
/// `EmbeddedChannel` knows only whole closes, and a real socket stays open after one.
private final class HalfCloseRecorder: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer

    private(set) var outputClosed = false

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        outputClosed = true
        promise?.succeed(())
    }
}

/// One listener's core on an `EmbeddedEventLoop`, its connections `EmbeddedChannel`s on the same
/// loop: no socket, and no clock but the loop's, which only ``advance(by:)`` moves. Everything
/// runs on the test's thread, as the loop asks.
private final class EmbeddedListener {
    /// The port the listener is bound to, as far as its router knows.
    static let port = 5000

    let loop = EmbeddedEventLoop()
    let core: ListenerCore
    let server: EmbeddedChannel
    let callbacks: AsyncStream<ReceivedCallback>
    let released: ListenerCore.Released
    let log = LogStore()
    /// Every URL the session was asked about, and its verdict, in order.
    let asked = Locked<[(url: URL, verdict: CallbackVerdict)]>([])
    let readTimeout: TimeAmount
    private var connectionCount = 0

    init(
        configuration: LoopbackReceiver.Configuration = .init(readTimeout: .seconds(5)),
        owner: PeerSocketOwner = .user(UInt32(geteuid())),
        accepting test: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) {
        let (callbacks, continuation) = AsyncStream.makeStream(
            of: ReceivedCallback.self, bufferingPolicy: .bufferingNewest(1))
        self.callbacks = callbacks
        released = ListenerCore.Released()
        readTimeout = TimeAmount(configuration.readTimeout)
        let verdict = sessionVerdict(accepting: test)
        let asked = self.asked
        core = ListenerCore(
            settings: ListenerCore.Settings(
                configuration: configuration,
                decide: { url in
                    let decided = verdict(url)
                    asked.withLock { $0.append((url, decided)) }
                    return decided
                },
                peerSockets: OwnerTable(owner: owner), ourUID: UInt32(geteuid()), continuation: continuation,
                released: released, logger: log.logger, eventLoop: loop))
        server = EmbeddedChannel(loop: loop)
        let router = LoopbackRequestRouter(callback: Callback.loopback().boundToPort(Self.port))!
        core.didBind(server: server, router: router)
    }

    /// `Host` as a browser sends it to this listener.
    var hostField: String { "127.0.0.1:\(Self.port)" }

    /// A connection the server accepted: the listener's handler in its pipeline, active.
    func connect() throws -> Connection {
        let recorder = HalfCloseRecorder()
        let channel = EmbeddedChannel(handlers: [recorder, ConnectionHandler(core: core)], loop: loop)
        connectionCount += 1
        channel.localAddress = try SocketAddress(ipAddress: "127.0.0.1", port: Self.port)
        channel.remoteAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 40_000 + connectionCount)
        channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: Self.port), promise: nil)
        loop.run()
        return Connection(channel: channel, recorder: recorder)
    }

    /// Moves the loop's clock on, running what falls due.
    func advance(by amount: TimeAmount) {
        loop.advanceTime(by: amount)
    }

    /// Whether the listening socket was closed.
    var serverClosed: Bool {
        let closed = Locked(false)
        server.closeFuture.whenComplete { _ in closed.withLock { $0 = true } }
        loop.run()
        return closed.withLock { $0 }
    }

    /// The `connection` numbers of the log lines with `message`, in order.
    func connections(_ message: String) -> [String] { log.connections(message) }

    struct Connection {
        let channel: EmbeddedChannel
        fileprivate let recorder: HalfCloseRecorder

        var isOpen: Bool { channel.isActive }
        /// Whether the handler shut its output down, to linger.
        var outputClosed: Bool { recorder.outputClosed }

        func send(_ text: String) throws {
            try channel.writeInbound(ByteBuffer(string: text))
            channel.embeddedEventLoop.run()
        }

        /// Everything written to the client so far.
        func written() throws -> RawReply {
            var bytes: [UInt8] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
            return RawReply(bytes: bytes, clientTimedOut: false)
        }
    }
}

@Suite("Loopback connection handler on the event loop's clock")
struct ConnectionHandlerTests {
    @Test func aHeadInPiecesIsAnsweredOnceCompleteAndItsConnectionClosesAtOnce() throws {
        let listener = EmbeddedListener()
        let connection = try listener.connect()
        try connection.send("GET /favicon.ico HTTP/1.1\r\nHo")
        #expect(try connection.written().bytes.isEmpty, "half a head is not answered")
        #expect(connection.isOpen)
        try connection.send("st: \(listener.hostField)\r\nAccept: text/html\r\n\r\n")
        let reply = try connection.written()
        #expect(reply.status == 404)
        #expect(reply.headers["connection"] == "close")
        #expect(!connection.isOpen, "nothing followed the head: the answer closes the connection")
        #expect(!connection.outputClosed)
        #expect(listener.asked.withLock { $0.isEmpty }, "a stray path is not the session's to decide")
    }

    @Test func aConnectionWithoutACompleteHeadIsClosedAtTheReadTimeoutWithoutAnAnswer() throws {
        let listener = EmbeddedListener()
        let connection = try listener.connect()
        try connection.send("GET /callback?code=slow HTTP/1.1\r\nHost: \(listener.hostField)\r\n")
        listener.advance(by: listener.readTimeout - .nanoseconds(1))
        #expect(connection.isOpen, "closed before its deadline")
        listener.advance(by: .nanoseconds(1))
        #expect(!connection.isOpen, "open past its deadline")
        #expect(try connection.written().bytes.isEmpty)
        #expect(listener.connections("timed out") == ["0"])

        // With no connection left the timer is gone; the next connection still meets its deadline.
        let next = try listener.connect()
        listener.advance(by: listener.readTimeout)
        #expect(!next.isOpen)
        #expect(listener.connections("timed out") == ["0", "1"])
    }

    @Test func oneTimerClosesEachConnectionAtItsOwnDeadline() throws {
        let listener = EmbeddedListener()
        let first = try listener.connect()
        try first.send("GET /")
        listener.advance(by: .seconds(2))
        let second = try listener.connect()
        try second.send("GET /")
        listener.advance(by: .seconds(3))
        #expect(!first.isOpen)
        #expect(second.isOpen, "the second connection's deadline is two seconds later")
        listener.advance(by: .seconds(2))
        #expect(!second.isOpen)
        #expect(listener.connections("timed out") == ["0", "1"])
    }

    @Test func bytesAfterTheHeadMakeTheAnsweredConnectionLingerUntilItsDeadline() throws {
        let listener = EmbeddedListener()
        let lingering = try listener.connect()
        try lingering.send(TestClient.get("/favicon.ico", host: listener.hostField) + "GET /")
        #expect(try lingering.written().status == 404)
        #expect(lingering.outputClosed, "the output is shut down, so the client reads the whole answer")
        #expect(lingering.isOpen, "the connection lingers for its client to close")
        try lingering.send("more bytes, read and dropped")
        #expect(try lingering.written().bytes.isEmpty)
        // The answer gave it a new deadline, a read timeout from then.
        listener.advance(by: listener.readTimeout - .nanoseconds(1))
        #expect(lingering.isOpen)
        listener.advance(by: .nanoseconds(1))
        #expect(!lingering.isOpen)
        #expect(listener.connections("timed out") == ["0"])
    }

    @Test func aHeadOverTheLimitIsAnswered431AndLingers() throws {
        let listener = EmbeddedListener(configuration: .init(maxHeaderBytes: 1024, readTimeout: .seconds(5)))
        let longLine = try listener.connect()
        try longLine.send(
            TestClient.get("/callback?code=\(String(repeating: "a", count: 2000))", host: listener.hostField))
        #expect(try longLine.written().status == 431)
        #expect(longLine.outputClosed)

        // A head that never ends is cut off at the limit too, in whichever read crosses it.
        let endless = try listener.connect()
        try endless.send("GET /callback?code=1 HTTP/1.1\r\nHost: \(listener.hostField)\r\n")
        for _ in 0..<2 { try endless.send("X-More: \(String(repeating: "c", count: 400))\r\n") }
        #expect(try endless.written().bytes.isEmpty, "under the limit: still reading")
        try endless.send("X-More: \(String(repeating: "c", count: 400))\r\n")
        #expect(try endless.written().status == 431)
        #expect(listener.asked.withLock { $0.isEmpty })

        listener.advance(by: listener.readTimeout)
        #expect(!longLine.isOpen)
        #expect(!endless.isOpen)
    }

    @Test func malformedBytesAndBodiesAreTurnedAwayAndTheSessionIsNotAsked() throws {
        let listener = EmbeddedListener()
        let tls = try listener.connect()
        try tls.channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1]))
        #expect(try tls.written().status == 400)
        for garbage in [
            "hello there\r\n\r\n", "GET /callback?code=1 HTTP/1.1\nHost: x\n\n",
            "GET http://\(listener.hostField)/callback?code=1 HTTP/1.1\r\nHost: \(listener.hostField)\r\n\r\n",
            "GET /callback?code=1 HTTP/1.1\r\nHost: \(listener.hostField)\r\n folded\r\n\r\n",
            TestClient.get("/callback?code=1", host: listener.hostField, extra: "Content-Length: 5\r\n") + "hello",
            TestClient.get("/callback?code=1", host: listener.hostField, extra: "Transfer-Encoding: chunked\r\n")
                + "0\r\n\r\n",
        ] {
            let connection = try listener.connect()
            try connection.send(garbage)
            #expect(try connection.written().status == 400, "\(garbage)")
        }
        let post = try listener.connect()
        try post.send(
            TestClient.get("/callback?code=1", host: listener.hostField, method: "POST", extra: "Content-Length: 3\r\n")
                + "a=b")
        let postReply = try post.written()
        #expect(postReply.status == 405)
        #expect(postReply.headers["allow"] == "GET, HEAD")
        #expect(listener.asked.withLock { $0.isEmpty })
    }

    @Test func atTheLimitAnAnsweredConnectionIsEvictedFirstThenTheOldestWaiting() throws {
        let listener = EmbeddedListener(configuration: .init(readTimeout: .seconds(600), maxConnections: 3))
        let oldestWaiting = try listener.connect()  // 0
        try oldestWaiting.send("GET /")
        let lingering = try listener.connect()  // 1: answered, lingering
        try lingering.send(TestClient.get("/favicon.ico", host: listener.hostField) + "GET /")
        let nextWaiting = try listener.connect()  // 2: the limit is reached
        try nextWaiting.send("GET /")
        #expect(listener.connections("evicted a connection").isEmpty)

        var newer: [EmbeddedListener.Connection] = []
        for _ in 0..<3 { newer.append(try listener.connect()) }
        #expect(listener.connections("evicted a connection") == ["1", "0", "2"])
        #expect(!lingering.isOpen && !oldestWaiting.isOpen && !nextWaiting.isOpen)
        #expect(try oldestWaiting.written().bytes.isEmpty)
        #expect(try nextWaiting.written().bytes.isEmpty)
        #expect(newer.allSatisfy { $0.isOpen })

        // The browser's request still gets through, evicting the oldest of the newer ones.
        let browser = try listener.connect()
        #expect(!newer[0].isOpen && newer[1].isOpen)
        try browser.send(TestClient.get("/callback?code=1", host: listener.hostField))
        #expect(try browser.written().status == 200)
    }

    @Test func theAcceptedCallbackIsDecidedOnceAnsweredAndHandedOnAsDecided() async throws {
        let (callbacks, accepted) = try Self.acceptedCallbackExchange()
        var yielded: [ReceivedCallback] = []
        for await callback in callbacks { yielded.append(callback) }
        #expect(accepted != nil)
        #expect(yielded.count == 1)
        #expect(yielded.first == accepted, "the session receives the callback its verdict carried")
    }

    /// Runs a listener to its callback on the embedded loop, and returns what it yielded and
    /// what the session accepted; everything on the loop stays on this thread.
    private static func acceptedCallbackExchange() throws -> (AsyncStream<ReceivedCallback>, ReceivedCallback?) {
        let listener = EmbeddedListener(accepting: { $0.query?.contains("state=good") == true })
        let stalled = try listener.connect()
        try stalled.send("GET /")

        let forged = try listener.connect()
        try forged.send(TestClient.get("/callback?code=FORGED&state=bad", host: listener.hostField))
        let refusal = try forged.written()
        #expect(refusal.status == 400)
        #expect(refusal.body.contains("This sign-in response was not expected"))
        #expect(!refusal.text.contains("FORGED"))
        #expect(!listener.released.isReleased, "a refused callback does not end the listening")

        let real = try listener.connect()
        try real.send(
            TestClient.get("/callback?error=access_denied&error_description=no&state=good", host: listener.hostField))
        let answer = try real.written()
        #expect(answer.status == 200)
        #expect(answer.body.contains("access_denied"), "the failure page reads the accepted callback's parameters")
        #expect(!real.isOpen)

        let asked = listener.asked.withLock { $0 }
        #expect(
            asked.map { $0.url.query } == [
                "code=FORGED&state=bad", "error=access_denied&error_description=no&state=good",
            ])
        #expect(asked.map { $0.verdict.isAccepted } == [false, true], "each callback request is decided once")
        #expect(listener.released.isReleased)
        #expect(listener.serverClosed)
        #expect(!stalled.isOpen, "the other connections are closed")

        // Nothing is answered any more: a later connection is closed at once.
        let late = try listener.connect()
        #expect(!late.isOpen)
        return (listener.callbacks, asked.last?.verdict.accepted)
    }

    @Test func anotherUsersCallbackIsRefused403WithoutAskingTheSession() throws {
        let listener = EmbeddedListener(owner: .user(UInt32(geteuid()) + 4242))
        let connection = try listener.connect()
        try connection.send(TestClient.get("/callback?code=THEIRS", host: listener.hostField))
        #expect(try connection.written().status == 403)
        #expect(listener.asked.withLock { $0.isEmpty })
        #expect(!listener.released.isReleased)
    }
}
