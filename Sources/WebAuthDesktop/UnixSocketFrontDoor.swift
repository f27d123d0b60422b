// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if os(Linux)
    import Foundation
    import Logging
    import NIOCore
    import NIOPosix
    import WebAuthPlatform

    extension UnixSocketServer {
        /// The accepting thread of a server with an immediate answer: it takes each connection
        /// as the kernel queued it, before SwiftNIO makes a channel of it, and answers there what
        /// can be answered at once.
        ///
        /// For each connection, in the order and with the bounds of the event loop's path: the
        /// connection limit (a connection beyond it is closed at once), the peer check (another
        /// user — or root, unless served — is closed at once), then reads that do not wait. When
        /// they give a whole first line within the line limit and the server's
        /// ``UnixSocketServer/ImmediateAnswer`` answers it, the answer is sent and the connection
        /// closed: an accept, a peer check, a read, a send and a close, no channel, no pipeline,
        /// no event-loop registration. A connection whose line has not arrived whole waits here,
        /// in the thread's own `poll`, for at most ``patience``. Anything else — a line still
        /// not whole by then, a line too long, the end of input, a line the answer declines —
        /// goes to the event loop as a channel with the same framing, the same first-line
        /// deadline (counted from the accept) and the same handover, the bytes read here passed
        /// on first; so does the rest of an answer the socket could not take at once.
        final class FrontDoor: Sendable {
            private let limits: Limits
            private let timeout: TimeAmount
            private let logger: Logger
            private let immediate: ImmediateAnswer
            private let group: any EventLoopGroup
            private let served: OpenConnections
            /// Gives a connection with its first line to the server's logic.
            private let handToLogic: @Sendable (any Channel, Peer) throws -> Void
            /// The pipe that wakes the thread to stop: `requestClose` writes to it once.
            private let wake: (read: Int32, write: Int32)
            private let closing = Locked(false)
            private let closedPromise: EventLoopPromise<Void>

            /// Completed once the thread has closed the listening socket.
            var closed: EventLoopFuture<Void> { closedPromise.futureResult }

            init(
                limits: Limits, timeout: TimeAmount, logger: Logger, immediate: @escaping ImmediateAnswer,
                group: any EventLoopGroup, served: OpenConnections,
                handOver: @escaping @Sendable (any Channel, Peer) throws -> Void
            ) throws(SystemError) {
                self.limits = limits
                self.timeout = timeout
                self.logger = logger
                self.immediate = immediate
                self.group = group
                self.served = served
                self.handToLogic = handOver
                self.wake = try Pipe.make()
                self.closedPromise = group.next().makePromise()
            }

            /// Listens on `descriptor` and starts the thread; `whenClosed` runs on it once it
            /// has closed the listening socket.
            func open(_ descriptor: Int32, whenClosed: @escaping @Sendable () -> Void) -> EventLoopFuture<Void> {
                do {
                    try AcceptingSocket.listen(descriptor, backlog: 128)
                } catch {
                    Descriptor.close(descriptor)
                    closeWake()
                    closedPromise.succeed()
                    return group.next().makeFailedFuture(error)
                }
                Thread.detachNewThread { [self] in
                    acceptUntilClosed(descriptor)
                    Descriptor.close(descriptor)
                    closeWake()
                    whenClosed()
                    closedPromise.succeed()
                }
                return group.next().makeSucceededVoidFuture()
            }

            /// Wakes the thread to stop accepting; it closes the listening socket.
            func requestClose() {
                let first = closing.withLock { closing in
                    defer { closing = true }
                    return !closing
                }
                if first { try? Descriptor.writeAll(wake.write, [1]) }
            }

            private func closeWake() {
                Descriptor.close(wake.read)
                Descriptor.close(wake.write)
            }

            /// A connection at the door whose first line has not arrived whole yet.
            private struct Waiting {
                var connection: Int32
                var peer: Peer
                var place: OpenConnections.Place
                var accepted: NIODeadline
                /// What it sent so far: part of a line, within the limit.
                var earlier: [UInt8]
            }

            /// Accepts and serves connections until woken.
            private func acceptUntilClosed(_ listening: Int32) {
                // One buffer for every read here: a whole line and one byte more.
                let buffer = UnsafeMutableRawBufferPointer.allocate(
                    byteCount: limits.maximumLineLength + 1, alignment: 1)
                defer { buffer.deallocate() }
                var waiting: [Waiting] = []
                while true {
                    let oldest = waiting.first.map { $0.accepted + Self.patience }
                    let timeout = oldest.map { Duration.nanoseconds(max(0, ($0 - NIODeadline.now()).nanoseconds)) }
                    let ready: [Bool]
                    do {
                        ready = try Descriptor.waitUntilReadable(
                            [listening, wake.read] + waiting.map(\.connection), timeout: timeout)
                    } catch {
                        // Not expected (`poll` fails for want of memory, say): try again shortly
                        // rather than spin.
                        logger.debug("cannot wait for connections: \(error)")
                        Thread.sleep(forTimeInterval: 0.05)
                        continue
                    }
                    if ready.count > 1, ready[1] {
                        for connection in waiting {
                            connection.place.release()
                            Descriptor.close(connection.connection)
                        }
                        return
                    }
                    // The connections that sent more, then those that waited long enough here.
                    var still: [Waiting] = []
                    let now = NIODeadline.now()
                    for (index, connection) in waiting.enumerated() {
                        let isReady = ready.count > index + 2 && ready[index + 2]
                        guard let left = isReady ? read(connection, buffer: buffer) : connection else { continue }
                        if left.accepted + Self.patience > now {
                            still.append(left)
                        } else {
                            handOver(left)
                        }
                    }
                    waiting = still
                    guard ready.first == true else { continue }
                    accepting: while true {
                        switch AcceptingSocket.accept(listening) {
                        case .connection(let connection):
                            if let left = serve(connection, buffer: buffer) { waiting.append(left) }
                        case .noneWaiting:
                            break accepting
                        case .failed(let reason):
                            // Out of descriptors, say: the connection stays queued; wait a
                            // little instead of spinning on it.
                            logger.debug("cannot accept a connection: \(reason)")
                            _ = try? Descriptor.waitUntilReadable([wake.read], timeout: .milliseconds(50))
                            break accepting
                        }
                    }
                }
            }

            /// How long a connection may wait at the door for its first line before the event loop
            /// takes it: a client that connected, and checked who listens, but was not given the
            /// processor again before it sent its line.
            static let patience = TimeAmount.milliseconds(20)

            /// Serves the accepted `connection`: at once when it can, else on the event loop; the
            /// connection, when its first line has not arrived yet.
            private func serve(_ connection: Int32, buffer: UnsafeMutableRawBufferPointer) -> Waiting? {
                let accepted = NIODeadline.now()
                guard let place = served.reserve(limit: limits.maximumConnections) else {
                    logger.debug("refused a connection beyond the limit")
                    Descriptor.close(connection)
                    return nil
                }
                guard let credentials = AcceptingSocket.peer(connection),
                    UnixSocketServer.isServed(
                        Peer(processID: credentials.processID, userID: credentials.userID), limits)
                else {
                    logger.debug("refused a connection from another user")
                    place.release()
                    Descriptor.close(connection)
                    return nil
                }
                let peer = Peer(processID: credentials.processID, userID: credentials.userID)
                return read(
                    Waiting(connection: connection, peer: peer, place: place, accepted: accepted, earlier: []),
                    buffer: buffer)
            }

            /// Reads what `waiting` sent since, without waiting: answers its first line when it is
            /// whole and the immediate answer gives one, hands it to the event loop when the line
            /// is whole but declined, too long, or its input ended; else it waits on.
            private func read(_ waiting: Waiting, buffer: UnsafeMutableRawBufferPointer) -> Waiting? {
                let room = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(buffer.count - waiting.earlier.count)])
                let count: Int
                switch AcceptingSocket.receiveWithoutWaiting(waiting.connection, into: room) {
                case .bytes(let received):
                    count = received
                case .nothingYet:
                    return waiting
                case .end:
                    // The event loop reads the end too, and hands over what came before it.
                    handOver(waiting)
                    return nil
                case .failed:
                    waiting.place.release()
                    Descriptor.close(waiting.connection)
                    return nil
                }
                var waiting = waiting
                waiting.earlier += UnsafeRawBufferPointer(rebasing: buffer[..<count])
                let bytes = waiting.earlier
                guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
                    guard bytes.count > limits.maximumLineLength else { return waiting }
                    handOver(waiting)
                    return nil
                }
                guard newline <= limits.maximumLineLength,
                    let answer = immediate(.line(Array(bytes[..<newline])), waiting.peer)
                else {
                    handOver(waiting)
                    return nil
                }
                let sent = answer.withUnsafeBytes { AcceptingSocket.sendWithoutWaiting(waiting.connection, $0) }
                if let sent, sent < answer.count {
                    finish(waiting.connection, place: waiting.place, rest: Array(answer[sent...]))
                } else {
                    // All sent, or the peer is gone.
                    waiting.place.release()
                    Descriptor.close(waiting.connection)
                }
                return nil
            }

            /// Hands `waiting` to the event loop as a channel, what was read of it here passed on
            /// first, with the first line's deadline counted from its accept.
            private func handOver(_ waiting: Waiting) {
                let (peer, place, earlier) = (waiting.peer, waiting.place, waiting.earlier)
                let limits = limits
                let handToLogic = handToLogic
                let served = served
                let immediate = immediate
                let deadline = waiting.accepted + timeout
                ClientBootstrap(group: group)
                    .channelOption(.allowRemoteHalfClosure, value: true)
                    .channelInitializer { channel in
                        channel.closeFuture.whenComplete { _ in place.release(channel) }
                        guard served.attach(channel) else {
                            return channel.eventLoop.makeFailedFuture(Refused.stopping)
                        }
                        return channel.eventLoop.makeCompletedFuture {
                            try UnixSocketServer.frame(
                                channel, peer: peer, limits: limits,
                                deadline: FirstLineDeadline(deadline: deadline), earlier: earlier,
                                immediate: immediate, handOver: handToLogic)
                        }
                    }
                    .withConnectedSocket(waiting.connection)
                    .whenFailure { _ in place.release() }
            }

            /// Writes `rest`, the part of an answer the socket could not take at once, from the
            /// event loop, then closes the connection.
            private func finish(_ connection: Int32, place: OpenConnections.Place, rest: [UInt8]) {
                ClientBootstrap(group: group)
                    .channelOption(.autoRead, value: false)
                    .channelInitializer { channel in
                        channel.closeFuture.whenComplete { _ in place.release(channel) }
                        return channel.eventLoop.makeSucceededVoidFuture()
                    }
                    .withConnectedSocket(connection)
                    .whenComplete { result in
                        switch result {
                        case .success(let channel):
                            channel.writeAndFlush(ByteBuffer(bytes: rest)).whenComplete { _ in
                                channel.close(promise: nil)
                            }
                        case .failure:
                            place.release()
                        }
                    }
            }
        }
    }
#endif
