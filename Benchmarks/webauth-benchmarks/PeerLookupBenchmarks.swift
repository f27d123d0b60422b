// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import WebAuthLoopback

/// What asking the kernel who owns a connection's client end costs: the listener does it once
/// per connection whose request would be the callback, on its event loop.
enum PeerLookupBenchmarks {
    static func printFigures() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let (accepted, continuation) = AsyncStream.makeStream(of: (any Channel).self)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                continuation.yield(channel)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
        var iterator = accepted.makeAsyncIterator()
        guard let connection = await iterator.next(), let remote = connection.remoteAddress,
            let local = connection.localAddress, let ends = ConnectionEnds(peer: remote, local: local)
        else { throw CancellationError() }
        // A 4-tuple no socket has: the worst case, which asks netlink twice and reads /proc.
        let nowhere = ConnectionEnds(peer: try SocketAddress(ipAddress: "127.0.0.1", port: 1), local: local)!

        let table = KernelSocketTable()
        var lookups: [(String, () -> PeerSocketOwner?)] = [
            ("as the listener asks (netlink)", { table.owner(ofPeerOf: ends) })
        ]
        #if os(Linux)
            lookups.append(("netlink only", { KernelSocketTable.netlinkOwner(ofPeerOf: ends) }))
            lookups.append(("/proc/net/tcp only (the fallback)", { KernelSocketTable.procNetOwner(ofPeerOf: ends) }))
        #endif
        lookups.append(("a 4-tuple no socket has (netlink twice, then /proc)", { table.owner(ofPeerOf: nowhere) }))

        let sockets = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8))?.split(separator: "\n").count
        print(
            "who owns a connection's client end (microseconds per lookup; IPv4 sockets on the machine: \(sockets.map { "\($0 - 1)" } ?? "?"))"
        )
        print("".padding(toLength: 52, withPad: " ", startingAt: 0) + "   median      p90      p99      max  lookups/s")
        for (label, lookUp) in lookups {
            for _ in 0..<100 { _ = lookUp() }  // warm up
            var samples: [Duration] = []
            for _ in 0..<2000 {
                let started = ContinuousClock.now
                _ = lookUp()
                samples.append(ContinuousClock.now - started)
            }
            print(line(label, samples))
        }
        print("")
        try? await client.close()
        try? await connection.close()
        try? await server.close()
    }

    private static func line(_ label: String, _ samples: [Duration]) -> String {
        let sorted = samples.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }
            .sorted()
        func at(_ fraction: Double) -> Double {
            sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
        }
        let figures = [0.5, 0.9, 0.99, 1].map { String(format: "%8.1f", at($0)) }.joined(separator: " ")
        return
            "\(label.padding(toLength: 52, withPad: " ", startingAt: 0)) \(figures)  \(String(format: "%9.0f", 1e6 / at(0.5)))"
    }
}
