// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// The kernel's table of TCP sockets: who owns the client's end of a connection to the listener.
///
/// On Linux it asks `NETLINK_SOCK_DIAG` for the one socket with the connection's 4-tuple seen
/// from the client (an exact lookup, a single request and reply, a few microseconds) and reads
/// `idiag_uid`; where netlink is not available it reads `/proc/net/tcp` or `/proc/net/tcp6`.
/// Elsewhere, and when neither can be read, the answer is ``PeerSocketOwner/unknown``. A port to
/// another system fills in ``owner(ofPeerOf:)`` here.
package struct KernelSocketTable: PeerSocketOwnerLookup {
    /// The real table.
    package init() {}

    /// Who owns the peer's end of `connection`: netlink, else `/proc/net`.
    package func owner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner {
        if let owner = Self.netlinkOwner(ofPeerOf: connection) { return owner }
        return Self.procNetOwner(ofPeerOf: connection) ?? .unknown
    }
}

extension KernelSocketTable {
    // MARK: - NETLINK_SOCK_DIAG

    // The numbers and layouts of <linux/netlink.h>, <linux/sock_diag.h> and
    // <linux/inet_diag.h>, which Glibc's module does not bring in.
    private static let sockDiagByFamily: UInt16 = 20  // SOCK_DIAG_BY_FAMILY
    private static let netlinkError: UInt16 = 2  // NLMSG_ERROR
    private static let netlinkRequest: UInt16 = 1  // NLM_F_REQUEST
    private static let tcpListen: UInt8 = 10  // TCP_LISTEN
    /// struct nlmsghdr.
    private static let headerSize = 16
    /// struct inet_diag_req_v2.
    private static let requestSize = 56
    /// struct inet_diag_msg, up to and including idiag_inode.
    private static let messageSize = 72
    /// In struct inet_diag_msg: where idiag_state, the socket id (struct inet_diag_sockid),
    /// idiag_uid and idiag_inode are.
    private static let stateOffset = 1
    private static let socketIDOffset = 4
    private static let uidOffset = 64
    private static let inodeOffset = 68

    /// What one exact lookup found.
    private enum NetlinkAnswer {
        case found(uid: UInt32, inode: UInt32)
        case noSuchSocket
    }

    /// The owner by `NETLINK_SOCK_DIAG`; `nil` when netlink cannot answer here.
    ///
    /// "No such socket" is believed only once the listener's own end of the connection is
    /// found the same way: a kernel without `inet_diag` also answers `ENOENT`.
    package static func netlinkOwner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner? {
        guard let socket = NetlinkSocket.open(protocol: NetlinkSocket.socketDiagnostics) else { return nil }
        switch lookUp(connection, on: socket, sequence: 1) {
        case .found(let uid, let inode)?:
            return inode == 0 ? .closedByItsProgram : .user(uid)
        case .noSuchSocket?:
            guard case .found? = lookUp(connection.reversed, on: socket, sequence: 2) else { return nil }
            return .notLocal
        case nil:
            return nil
        }
    }

    /// Asks for the socket whose local end is `connection`'s peer and whose remote end is
    /// the listener; `nil` when the kernel gives no usable answer.
    private static func lookUp(
        _ connection: ConnectionEnds, on socket: borrowing NetlinkSocket, sequence: UInt32
    ) -> NetlinkAnswer? {
        let family = connection.family == .ipv4 ? NetlinkSocket.internetFamily : NetlinkSocket.internet6Family
        var request = [UInt8]()
        request.reserveCapacity(headerSize + requestSize)
        append(UInt32(headerSize + requestSize), to: &request)  // nlmsg_len
        append(sockDiagByFamily, to: &request)  // nlmsg_type
        append(netlinkRequest, to: &request)  // nlmsg_flags: one socket, not a dump
        append(sequence, to: &request)  // nlmsg_seq
        append(UInt32(0), to: &request)  // nlmsg_pid: the kernel
        request += [family, NetlinkSocket.tcpProtocol, 0, 0]  // sdiag_family, sdiag_protocol, idiag_ext, pad
        append(UInt32.max, to: &request)  // idiag_states: any
        request += socketID(of: connection)
        // The kernel answers within the send; nothing to wait for.
        guard let reply = socket.exchange(request, maximum: 1024) else { return nil }
        let received = reply.count
        guard received >= headerSize + 4 else { return nil }
        let length = Int(load(UInt32.self, from: reply, at: 0))
        let type = load(UInt16.self, from: reply, at: 4)
        guard length <= received, load(UInt32.self, from: reply, at: 8) == sequence else { return nil }
        if type == netlinkError {
            let number = load(Int32.self, from: reply, at: headerSize)
            return number == -SystemError.noSuchEntry.number ? .noSuchSocket : nil
        }
        guard type == sockDiagByFamily, length >= headerSize + messageSize else { return nil }
        let message = Array(reply[headerSize..<length])
        // The kernel's lookup falls back to a listening socket on the peer's address and
        // port: only the very socket asked for counts.
        guard message[0] == family, message[stateOffset] != tcpListen,
            Array(message[socketIDOffset..<(socketIDOffset + 36)]) == Array(socketID(of: connection).prefix(36))
        else { return .noSuchSocket }
        return .found(
            uid: load(UInt32.self, from: message, at: uidOffset),
            inode: load(UInt32.self, from: message, at: inodeOffset))
    }

    /// struct inet_diag_sockid for the client's socket: its source is the peer, its
    /// destination the listener, any interface, no cookie.
    private static func socketID(of connection: ConnectionEnds) -> [UInt8] {
        func padded(_ address: [UInt8]) -> [UInt8] { address + [UInt8](repeating: 0, count: 16 - address.count) }
        var id = [UInt8]()
        id.reserveCapacity(48)
        append(connection.peerPort.bigEndian, to: &id)  // idiag_sport
        append(connection.localPort.bigEndian, to: &id)  // idiag_dport
        id += padded(connection.peerAddress)  // idiag_src
        id += padded(connection.localAddress)  // idiag_dst
        append(UInt32(0), to: &id)  // idiag_if
        append(UInt32.max, to: &id)  // idiag_cookie: INET_DIAG_NOCOOKIE
        append(UInt32.max, to: &id)
        return id
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes += $0 }
    }

    private static func load<Value: FixedWidthInteger>(_: Value.Type, from bytes: [UInt8], at offset: Int) -> Value {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Value.self) }
    }

    // MARK: - /proc/net/tcp

    /// The owner by `/proc/net/tcp` (or `tcp6`); `nil` when the file cannot be read or does
    /// not hold the listener's own end of the connection.
    package static func procNetOwner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner? {
        guard let table = readWhole(connection.family == .ipv4 ? "/proc/net/tcp" : "/proc/net/tcp6") else {
            return nil
        }
        // Each line: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt
        // uid timeout inode …, an address being the kernel's `%08X` of each 32-bit word as
        // stored (network order read as a native integer), a port `%04X`.
        let peer = procNetEndpoint(connection.peerAddress, connection.peerPort)
        let local = procNetEndpoint(connection.localAddress, connection.localPort)
        var ourEndSeen = false
        for line in table.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count >= 10 else { continue }
            let (from, to) = (fields[1], fields[2])
            if from.elementsEqual(peer), to.elementsEqual(local) {
                guard let uid = UInt32(String(decoding: fields[7], as: UTF8.self)),
                    let inode = UInt64(String(decoding: fields[9], as: UTF8.self))
                else { return nil }
                return inode == 0 ? .closedByItsProgram : .user(uid)
            }
            if from.elementsEqual(local), to.elementsEqual(peer) { ourEndSeen = true }
        }
        return ourEndSeen ? .notLocal : nil
    }

    /// `ADDRESS:PORT` as `/proc/net/tcp` writes it.
    private static func procNetEndpoint(_ address: [UInt8], _ port: UInt16) -> [UInt8] {
        var text = ""
        for word in stride(from: 0, to: address.count, by: 4) {
            let value = load(UInt32.self, from: address, at: word)
            text += hex(UInt64(value), digits: 8)
        }
        return Array((text + ":" + hex(UInt64(port), digits: 4)).utf8)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The whole of a `/proc` file (whose size `stat` does not tell).
    private static func readWhole(_ path: String) -> [UInt8]? {
        guard let descriptor = try? Descriptor.open(path, .read) else { return nil }
        defer { Descriptor.close(descriptor) }
        return try? Descriptor.readAll(descriptor, limit: .max)
    }
}
