// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
package import NIOCore

/// The two ends of a TCP connection to the loopback listener, as the kernel's socket table
/// names them: the client's end (the *peer*) and the listener's own.
package struct ConnectionEnds: Sendable, Hashable {
    /// The address family of both ends.
    package enum Family: Sendable, Hashable {
        case ipv4, ipv6
    }

    /// The address family of both ends.
    package let family: Family
    /// The peer's address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    package let peerAddress: [UInt8]
    /// The peer's port.
    package let peerPort: UInt16
    /// The listener's address, in network byte order.
    package let localAddress: [UInt8]
    /// The listener's port.
    package let localPort: UInt16

    /// The ends of a connection whose addresses are both IPv4 or both IPv6; `nil` otherwise.
    package init?(peer: SocketAddress, local: SocketAddress) {
        switch (peer, local) {
        case (.v4(let peer), .v4(let local)):
            family = .ipv4
            peerAddress = withUnsafeBytes(of: peer.address.sin_addr) { Array($0) }
            localAddress = withUnsafeBytes(of: local.address.sin_addr) { Array($0) }
            peerPort = UInt16(bigEndian: peer.address.sin_port)
            localPort = UInt16(bigEndian: local.address.sin_port)
        case (.v6(let peer), .v6(let local)):
            family = .ipv6
            peerAddress = withUnsafeBytes(of: peer.address.sin6_addr) { Array($0) }
            localAddress = withUnsafeBytes(of: local.address.sin6_addr) { Array($0) }
            peerPort = UInt16(bigEndian: peer.address.sin6_port)
            localPort = UInt16(bigEndian: local.address.sin6_port)
        default:
            return nil
        }
    }

    /// The same connection seen from the other side: the listener's end as the peer.
    package var reversed: ConnectionEnds {
        ConnectionEnds(
            family: family, peerAddress: localAddress, peerPort: localPort, localAddress: peerAddress,
            localPort: peerPort)
    }

    private init(family: Family, peerAddress: [UInt8], peerPort: UInt16, localAddress: [UInt8], localPort: UInt16) {
        self.family = family
        self.peerAddress = peerAddress
        self.peerPort = peerPort
        self.localAddress = localAddress
        self.localPort = localPort
    }
}
