// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// The session bus's socket, opened only as far as the stores trust it: the one check both the
/// fast path (before it reads the keyring over D-Bus) and the keyring store (before it runs
/// `secret-tool`, which goes wherever `DBUS_SESSION_BUS_ADDRESS` points) make.
///
/// 1. A non-blocking connect, retried while the listener's queue is full, given up at the
///    deadline: a listener that never accepts cannot hold a call.
/// 2. The listener's credentials (`SO_PEERCRED`, taken when it started listening): this user's
///    or root's. Another user who binds a stale `unix:abstract=` or `/tmp` bus address would
///    otherwise choose the tokens handed to git, kubectl or the terminal.
/// 3. The `EXTERNAL` authentication up to the bus's `OK <guid>`, which must equal the
///    address's `guid=` when it names one.
///
/// After ``open(_:deadline:)`` the socket is non-blocking and waits for `BEGIN`: the caller
/// goes on with the D-Bus protocol, or closes it.
///
/// ```swift
/// switch SessionBusSocket.open(address, deadline: .now + .seconds(2)) {
/// case .success(let descriptor): …  // send "BEGIN\r\n", then messages
/// case .failure(let refusal): print(refusal.description)
/// }
/// ```
package enum SessionBusSocket {
    /// Why a bus is not used.
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// No socket could be made, or the connection failed or was refused.
        case unreachable
        /// The deadline passed before the bus accepted the connection or answered.
        case timedOut
        /// The bus is run by another user.
        case otherUser(UInt32)
        /// The bus's `OK` named another GUID than the address.
        case otherGUID
        /// The bus did not accept this user's `EXTERNAL` authentication, or answered garbage.
        case rejected

        /// The reason, in words; nothing the bus sent is quoted.
        package var description: String {
            switch self {
            case .unreachable: "the session bus cannot be reached"
            case .timedOut: "the session bus did not answer in time"
            case .otherUser(let uid):
                "the session bus is run by user \(uid), not by this user (\(CurrentProcess.effectiveUserID))"
            case .otherGUID: "the session bus is not the one DBUS_SESSION_BUS_ADDRESS names (its guid differs)"
            case .rejected: "the session bus refused this user's authentication"
            }
        }
    }

    /// Connects to `address`, checks who listens and authenticates, all before `deadline`; the
    /// socket (close-on-exec, non-blocking) waiting for `BEGIN`, or why not.
    package static func open(
        _ address: DBusAddress, deadline: ContinuousClock.Instant
    ) -> Result<Int32, Refusal> {
        let socket: LocalSocket.Address =
            switch address.socket {
            case .path(let path): .path(path)
            case .abstract(let name): .abstract(name)
            }
        let descriptor: Int32
        do {
            descriptor = try LocalSocket.connect(socket, deadline: deadline)
        } catch {
            return .failure(error == .timedOut ? .timedOut : .unreachable)
        }
        let result = peerIsTrusted(descriptor).flatMap {
            authenticate(descriptor, guid: address.guid, deadline: deadline)
        }
        if case .failure = result { Descriptor.close(descriptor) }
        return result.map { descriptor }
    }

    /// Whether `uid` may run the buses the stores use: this user, or root.
    package static func isTrustedOwner(_ uid: UInt32) -> Bool {
        uid == CurrentProcess.effectiveUserID || uid == 0
    }

    // MARK: -

    private static func peerIsTrusted(_ descriptor: Int32) -> Result<Void, Refusal> {
        guard let uid = LocalSocket.peerUserID(descriptor) else { return .failure(.unreachable) }
        return isTrustedOwner(uid) ? .success(()) : .failure(.otherUser(uid))
    }

    /// A NUL, `AUTH EXTERNAL <uid in hex>`, and the bus's `OK <guid>` line — with nothing after
    /// it: a bus says nothing more before `BEGIN`.
    private static func authenticate(
        _ descriptor: Int32, guid expected: String?, deadline: ContinuousClock.Instant
    ) -> Result<Void, Refusal> {
        let uid = Array(String(CurrentProcess.effectiveUserID).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        let request = [0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8)
        guard LocalSocket.sendAll(descriptor, request, deadline: deadline) else {
            return .failure(ContinuousClock.now < deadline ? .unreachable : .timedOut)
        }
        var line: [UInt8] = []
        while !line.contains(UInt8(ascii: "\n")) {
            guard line.count < 512 else { return .failure(.rejected) }
            guard let bytes = LocalSocket.receive(descriptor, maximum: 512, deadline: deadline) else {
                return .failure(ContinuousClock.now < deadline ? .unreachable : .timedOut)
            }
            line += bytes
        }
        guard line.last == UInt8(ascii: "\n"), line.starts(with: Array("OK ".utf8)) else { return .failure(.rejected) }
        let said = String(decoding: line.dropFirst(3).dropLast().filter { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        if let expected, said != expected { return .failure(.otherGUID) }
        return .success(())
    }
}
