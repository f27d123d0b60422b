// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import WebAuthCore
import WebAuthPlatform
import WebAuthProcess
import WebAuthTestSupport

@testable import WebAuthLoopback

/// A socket table that answers what the test says, and counts the questions.
private final class ScriptedSocketTable: PeerSocketOwnerLookup {
    private let state: Locked<(owner: PeerSocketOwner, asked: [ConnectionEnds])>

    init(_ owner: PeerSocketOwner) {
        state = Locked((owner, []))
    }

    var owner: PeerSocketOwner {
        get { state.withLock { $0.owner } }
        set { state.withLock { $0.owner = newValue } }
    }

    var asked: [ConnectionEnds] { state.withLock { $0.asked } }

    func owner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner {
        state.withLock { state in
            state.asked.append(connection)
            return state.owner
        }
    }
}

/// Whether a callback URL carries `state=expected`, as the session would check.
private let stateIsExpected: @Sendable (URL) -> Bool = { url in
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
        == "expected"
}

@Suite("Who may send a loopback callback")
struct CallbackSenderTests {
    @Test func ourUserAndRootMaySendTheCallbackAnotherUserMayNot() {
        let ours: UInt32 = 1000
        #expect(PeerSocketOwner.user(1000).mayDeliverCallback(ourUID: ours))
        #expect(PeerSocketOwner.user(0).mayDeliverCallback(ourUID: ours))
        #expect(!PeerSocketOwner.user(1001).mayDeliverCallback(ourUID: ours))
        #expect(!PeerSocketOwner.user(65534).mayDeliverCallback(ourUID: ours))
        #expect(!PeerSocketOwner.user(1000).mayDeliverCallback(ourUID: 0))
        #expect(PeerSocketOwner.user(0).mayDeliverCallback(ourUID: 0))
    }

    @Test func aSocketItsProgramClosedMayNotSendTheCallbackThoughTheKernelSaysRoot() {
        #expect(!PeerSocketOwner.closedByItsProgram.mayDeliverCallback(ourUID: 1000))
        #expect(!PeerSocketOwner.closedByItsProgram.mayDeliverCallback(ourUID: 0))
    }

    @Test func aConnectionFromOutsideTheKernelOrAnUnknownOneMaySendTheCallback() {
        #expect(PeerSocketOwner.notLocal.mayDeliverCallback(ourUID: 1000))
        #expect(PeerSocketOwner.unknown.mayDeliverCallback(ourUID: 1000))
    }

    @Test(arguments: [
        (PeerSocketOwner.user(UInt32(geteuid())), true), (.user(0), true), (.notLocal, true), (.unknown, true),
        (.user(UInt32(geteuid()) + 4242), false), (.closedByItsProgram, false),
    ])
    func theListenerDeliversTheCallbackOnlyWhenItsSenderMay(owner: PeerSocketOwner, delivered: Bool) async throws {
        let table = ScriptedSocketTable(owner)
        let listener = try await LoopbackReceiver(peerSockets: table)
            .listen(for: .loopback(), deciding: sessionVerdict(accepting: stateIsExpected))
        let reply = try await TestClient.exchange(
            TestClient.get("/callback?code=C&state=expected", host: listener.hostField), port: listener.port)
        if delivered {
            #expect(reply.status == 200)
            #expect(await listener.firstCallback() != nil)
        } else {
            #expect(reply.status == 403)
            #expect(reply.headers["referrer-policy"] == "no-referrer")
            #expect(reply.headers["cache-control"] == "no-store")
            #expect(reply.headers["content-security-policy"] == LoopbackResponse.contentSecurityPolicy)
            #expect(reply.body.contains("another user"))
            #expect(!reply.body.contains("state="))
        }
        await listener.close()
    }

    @Test func aRefusedSenderLeavesTheSessionWaitingForTheRightOne() async throws {
        let table = ScriptedSocketTable(.user(UInt32(geteuid()) + 4242))
        let log = LogStore()
        let asked = Locked(0)
        let listener = try await LoopbackReceiver(logger: log.logger, peerSockets: table)
            .listen(
                for: .loopback(),
                deciding: sessionVerdict { url in
                    asked.withLock { $0 += 1 }
                    return stateIsExpected(url)
                })
        let foreign = try await TestClient.exchange(
            TestClient.get("/callback?code=THEIRS&state=expected", host: listener.hostField), port: listener.port)
        #expect(foreign.status == 403)
        #expect(asked.withLock { $0 } == 0, "the session is not even asked")

        table.owner = .user(UInt32(geteuid()))
        let own = try await TestClient.exchange(
            TestClient.get("/callback?code=OURS&state=expected", host: listener.hostField), port: listener.port)
        #expect(own.status == 200)
        #expect(await listener.firstCallback()?.query?.contains("code=OURS") == true)
        await listener.close()

        let warnings = log.all.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("uid \(UInt32(geteuid()) + 4242)") == true)
        for line in log.all {
            #expect(!line.contains("THEIRS") && !line.contains("OURS") && !line.contains("expected"), "\(line)")
        }
    }

    @Test func theListenerAsksTheTableOnlyForARequestThatWouldBeTheCallback() async throws {
        let table = ScriptedSocketTable(.user(UInt32(geteuid())))
        let listener = try await LoopbackReceiver(peerSockets: table).listen(
            for: .loopback(), deciding: sessionVerdict(accepting: stateIsExpected))
        let port = listener.port
        let host = listener.hostField
        #expect(try await TestClient.exchange(TestClient.get("/favicon.ico", host: host), port: port).status == 404)
        #expect(
            try await TestClient.exchange(TestClient.get("/callback", host: "evil.example"), port: port).status == 400)
        #expect(
            try await TestClient.exchange(TestClient.get("/callback", host: host, method: "HEAD"), port: port).status
                == 200)
        #expect(table.asked.isEmpty)

        let reply = try await TestClient.exchange(TestClient.get("/callback?state=expected", host: host), port: port)
        #expect(reply.status == 200)
        #expect(await listener.firstCallback() != nil)
        await listener.close()
        let ends = try #require(table.asked.first)
        #expect(table.asked.count == 1)
        #expect(ends.family == .ipv4)
        #expect(ends.localAddress == [127, 0, 0, 1] && ends.peerAddress == [127, 0, 0, 1])
        #expect(Int(ends.localPort) == port && ends.peerPort != ends.localPort)
    }
}

#if os(Linux)
    /// A TCP server on a loopback address that hands over every connection it accepts and keeps it
    /// open until it is closed.
    private struct AcceptingServer {
        let server: any Channel
        let accepted: AsyncStream<any Channel>

        var port: Int { server.localAddress?.port ?? 0 }

        static func start(host: String) async throws -> AcceptingServer {
            let (accepted, continuation) = AsyncStream.makeStream(of: (any Channel).self)
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .childChannelInitializer { channel in
                    continuation.yield(channel)
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                .bind(host: host, port: 0).get()
            return AcceptingServer(server: server, accepted: accepted)
        }

        /// The ends of the next accepted connection, and its channel.
        func next() async throws -> (ConnectionEnds, any Channel) {
            var iterator = accepted.makeAsyncIterator()
            let channel = try #require(await iterator.next())
            let peer = try #require(channel.remoteAddress)
            let local = try #require(channel.localAddress)
            return (try #require(ConnectionEnds(peer: peer, local: local)), channel)
        }

        func close() async {
            try? await server.close()
        }
    }

    /// The answers of netlink, of `/proc/net`, and of the table as the listener asks it.
    private func lookUpEveryWay(_ ends: ConnectionEnds) -> [PeerSocketOwner?] {
        [
            KernelSocketTable.netlinkOwner(ofPeerOf: ends), KernelSocketTable.procNetOwner(ofPeerOf: ends),
            KernelSocketTable().owner(ofPeerOf: ends),
        ]
    }

    @Suite("The kernel's socket table")
    struct KernelSocketTableTests {
        @Test(arguments: ["127.0.0.1", "::1"])
        func aSocketWeOpenedIsFoundWithOurUser(host: String) async throws {
            let server = try await AcceptingServer.start(host: host)
            let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: host, port: server.port).get()
            let (ends, accepted) = try await server.next()
            #expect(Int(ends.peerPort) == client.localAddress?.port)
            #expect(lookUpEveryWay(ends) == Array(repeating: .user(UInt32(geteuid())), count: 3))
            try? await client.close()
            try? await accepted.close()
            await server.close()
        }

        @Test(.timeLimit(.minutes(1)), TestFixture.anotherUser.required, arguments: ["127.0.0.1", "::1"])
        func anotherUsersSocketIsFoundWithTheirUser(host: String) async throws {
            let server = try await AcceptingServer.start(host: host)
            let child = try AnotherUser.start(host: host, port: server.port, .hold)
            let (ends, accepted) = try await server.next()
            #expect(await AnotherUser.port(of: child) == Int(ends.peerPort))
            #expect(lookUpEveryWay(ends) == Array(repeating: .user(AnotherUser.uid), count: 3))
            try? await accepted.close()  // the client then exits
            _ = await child.exitStatus()
            await server.close()
        }

        @Test(.timeLimit(.minutes(1)), TestFixture.anotherUser.required)
        func anotherUsersSocketClosedByItsProgramIsNotTakenForRoots() async throws {
            let server = try await AcceptingServer.start(host: "127.0.0.1")
            let child = try AnotherUser.start(port: server.port, .close)
            let (ends, accepted) = try await server.next()
            _ = await child.exitStatus()
            // The kernel keeps the client's end for the rest of the TCP exchange, reported as user 0.
            #expect(lookUpEveryWay(ends) == Array(repeating: .closedByItsProgram, count: 3))
            try? await accepted.close()
            await server.close()
        }

        @Test func aFourTupleNoSocketHasIsUnknown() async throws {
            let server = try await AcceptingServer.start(host: "127.0.0.1")
            // A port nothing uses now: bound by the system for a moment, then released.
            let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0).get()
            let unused = try #require(probe.localAddress?.port)
            try await probe.close()
            let ends = try #require(
                ConnectionEnds(
                    peer: try SocketAddress(ipAddress: "127.0.0.1", port: unused),
                    local: try SocketAddress(ipAddress: "127.0.0.1", port: server.port)))
            #expect(lookUpEveryWay(ends) == [nil, nil, .unknown])
            await server.close()
        }

        @Test func aListeningSocketOnThePeersPortIsNotTakenForThePeer() async throws {
            // The kernel's exact lookup falls back to a listening socket on the peer's address and
            // port when no connection has the 4-tuple: that socket (root's here) is not the peer.
            let server = try await AcceptingServer.start(host: "127.0.0.1")
            let other = try await AcceptingServer.start(host: "127.0.0.1")
            let ends = try #require(
                ConnectionEnds(
                    peer: try SocketAddress(ipAddress: "127.0.0.1", port: server.port),
                    local: try SocketAddress(ipAddress: "127.0.0.1", port: other.port)))
            #expect(lookUpEveryWay(ends) == [nil, nil, .unknown])
            await server.close()
            await other.close()
        }
    }

#endif

@Suite("A loopback callback from another user")
struct CallbackFromAnotherUserTests {
    @Test(.timeLimit(.minutes(1)), TestFixture.anotherUser.required, arguments: [LoopbackHost.ipv4, .ipv6])
    func isRefusedAndThePersonsOwnCallbackStillCompletesTheSession(host: LoopbackHost) async throws {
        let log = LogStore()
        let listener = try await LoopbackReceiver(logger: log.logger)
            .listen(for: .loopback(host: host), deciding: sessionVerdict(accepting: stateIsExpected))

        // The other user read the URL on a command line: the right port, path and state.
        let (answer, errors) = try await AnotherUser.run(
            host: host.address, port: listener.port,
            .send(TestClient.get("/callback?code=THEIRS&state=expected", host: listener.hostField)))
        #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(answer) \(errors)")
        #expect(answer.contains("Referrer-Policy: no-referrer\r\n"))

        let own = try await TestClient.exchange(
            TestClient.get("/callback?code=OURS&state=expected", host: listener.hostField), host: host.address,
            port: listener.port)
        #expect(own.status == 200)
        let received = await listener.firstCallback()
        #expect(received?.query?.contains("code=OURS") == true)
        await listener.close()

        let warnings = log.all.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("uid \(AnotherUser.uid)") == true)
        #expect(!log.all.contains { $0.contains("THEIRS") || $0.contains("OURS") || $0.contains("state=") })
    }
}
