// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Who owns the client's end of a connection to the listener, as far as the kernel says.
package enum PeerSocketOwner: Sendable, Hashable {
    /// A socket on this machine, opened by a process running as this user id.
    case user(UInt32)
    /// A socket on this machine that its program has closed already (the kernel keeps it for
    /// the end of the TCP exchange): it no longer says whose it was, and reports user 0.
    case closedByItsProgram
    /// No socket on this machine: the connection was relayed from outside the kernel (as
    /// WSL2's localhost forwarding does). The table was read and holds the listener's own end.
    case notLocal
    /// The socket table could not be read, or this platform has no lookup.
    case unknown

    /// Whether a callback may come over a connection whose client end this is, for a listener
    /// running as `ourUID`.
    ///
    /// Our own user and root may send it: a browser running as the person, `ssh -L` and an
    /// editor's port forwarding all connect as the person; root can read the session's memory
    /// anyway. Another user may not: they could have read the authorization URL on a process's
    /// command line, signed in as themselves, and sent the redirect (the person would then be
    /// signed in to the other user's account). Neither may a socket whose program closed it
    /// before the answer, since the kernel reports user 0 for it whoever opened it; a browser
    /// always waits for the answer. A connection no local socket makes is accepted: another
    /// local user always has a local socket.
    package func mayDeliverCallback(ourUID: UInt32) -> Bool {
        switch self {
        case .user(let uid): uid == ourUID || uid == 0
        case .closedByItsProgram: false
        case .notLocal, .unknown: true
        }
    }
}

/// Finds who owns the client's end of a connection to the loopback listener. The listener asks
/// once per connection, when its request would be taken as the callback, on its event loop; an
/// answer should therefore take microseconds, not milliseconds.
///
/// ``KernelSocketTable`` is the real one; a test gives the listener another.
package protocol PeerSocketOwnerLookup: Sendable {
    /// Who owns the peer's end of `connection`.
    func owner(ofPeerOf connection: ConnectionEnds) -> PeerSocketOwner
}

extension PeerSocketOwner {
    /// The owner for a log line: `uid 65534`, `closed by its program`.
    package var logDescription: String {
        switch self {
        case .user(let uid): "uid \(uid)"
        case .closedByItsProgram: "closed by its program"
        case .notLocal: "not on this machine"
        case .unknown: "unknown"
        }
    }
}
