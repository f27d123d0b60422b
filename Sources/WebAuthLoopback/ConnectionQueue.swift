// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Some of a listener's open connections, in order, as a list threaded through the connections
/// themselves: adding, removing and taking the first cost the same however many are open, and
/// cost no allocation.
///
/// Confined, like the connections, to the listener's event loop.
///
/// A connection is in at most one queue. It is held strongly by the queue's ``first`` or by its
/// predecessor's `queueNext`; the backward links (`queuePrevious`, `last`) are `unowned` so that
/// the list holds no reference cycle, and they only ever point at connections still in the
/// queue, which the forward links keep alive: ``remove(_:)`` clears every link of the connection
/// it takes out. (Checked `unowned`, not `unowned(unsafe)`: were that ever broken, the process
/// would stop at the dangling link instead of reading freed memory an attacker's connections
/// could have refilled.)
struct ConnectionQueue: Sequence {
    /// The first connection, if any.
    private(set) var first: ConnectionHandler?
    private unowned var last: ConnectionHandler?
    /// How many connections the queue holds.
    private(set) var count = 0

    /// Whether the queue holds no connection.
    var isEmpty: Bool { count == 0 }

    /// Adds `connection`, which is in no queue, at the end.
    mutating func append(_ connection: ConnectionHandler) {
        insert(connection, after: last)
    }

    /// Adds `connection`, which is in no queue, after the last connection admitted before it,
    /// keeping a queue in admission order. Connections usually arrive in that order, so the
    /// search from the end stops at once.
    mutating func insertInAdmissionOrder(_ connection: ConnectionHandler) {
        var predecessor = last
        while let candidate = predecessor, candidate.id > connection.id { predecessor = candidate.queuePrevious }
        insert(connection, after: predecessor)
    }

    /// Takes `connection`, which is in this queue, out.
    mutating func remove(_ connection: ConnectionHandler) {
        let previous = connection.queuePrevious
        let next = connection.queueNext
        if let previous { previous.queueNext = next } else { first = next }
        if let next { next.queuePrevious = previous } else { last = previous }
        connection.queuePrevious = nil
        connection.queueNext = nil
        count -= 1
    }

    /// Takes every connection out, front to back (without the nested releases that dropping a
    /// long chain of forward links at once would make).
    mutating func removeAll() {
        while let connection = first { remove(connection) }
    }

    private mutating func insert(_ connection: ConnectionHandler, after predecessor: ConnectionHandler?) {
        let successor = if let predecessor { predecessor.queueNext } else { first }
        connection.queuePrevious = predecessor
        connection.queueNext = successor
        if let predecessor { predecessor.queueNext = connection } else { first = connection }
        if let successor { successor.queuePrevious = connection } else { last = connection }
        count += 1
    }

    /// Goes through the connections from the front. It moves on before handing a connection
    /// out, so the loop's body may remove the connection it is given (and only that one).
    struct Iterator: IteratorProtocol {
        fileprivate var upcoming: ConnectionHandler?

        mutating func next() -> ConnectionHandler? {
            guard let connection = upcoming else { return nil }
            upcoming = connection.queueNext
            return connection
        }
    }

    func makeIterator() -> Iterator {
        Iterator(upcoming: first)
    }
}
