// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import WebAuthPlatform

/// The two pipes of Chromium's `--remote-debugging-pipe`: the browser reads commands on *its*
/// descriptor 3 and writes replies and events on *its* descriptor 4, each message a JSON text
/// ended by a NUL byte.
///
/// Blocking reads and writes happen on two threads of the pipe's own, never on the concurrency
/// pool: a blocked cooperative thread would starve every task in the process. The reader hands
/// each complete message to `onMessage` and reports the end of the stream once to `onClose`.
///
/// Life cycle: ``make()`` creates the pipes (close-on-exec, so no other child inherits them);
/// ``childDescriptors`` go to the browser at 3 and 4; ``start(onMessage:onClose:)`` closes the
/// child's ends here and starts the threads; ``close()`` stops both threads.
final class DevToolsPipe: Sendable {
    /// The descriptors to install in the browser: its command input (3) and reply output (4).
    let childDescriptors: [Int32: Int32]

    private let commandWrite: Int32
    private let replyRead: Int32
    private let wakeRead: Int32
    private let state: Locked<State>
    /// Counts queued messages (and the final wake-up when closing) for the writer thread.
    private let queued = DispatchSemaphore(value: 0)

    private struct State: Sendable {
        var outgoing: [Data] = []
        var closing = false
        var started = false
        var childEnds: [Int32]
        var wakeWrite: Int32
    }

    private init(commandRead: Int32, commandWrite: Int32, replyRead: Int32, replyWrite: Int32, wake: (Int32, Int32)) {
        childDescriptors = [3: commandRead, 4: replyWrite]
        self.commandWrite = commandWrite
        self.replyRead = replyRead
        wakeRead = wake.0
        state = Locked(State(childEnds: [commandRead, replyWrite], wakeWrite: wake.1))
    }

    /// Creates the command and reply pipes, and a third one whose closing wakes the reader.
    static func make() throws(DevToolsError) -> DevToolsPipe {
        var made: [(Int32, Int32)] = []
        for _ in 0..<3 {
            do {
                made.append(try Pipe.make())
            } catch {
                for (read, write) in made {
                    Descriptor.close(read)
                    Descriptor.close(write)
                }
                throw .closed("cannot create a pipe: \(error)")
            }
        }
        return DevToolsPipe(
            commandRead: made[0].0, commandWrite: made[0].1, replyRead: made[1].0, replyWrite: made[1].1,
            wake: made[2])
    }

    /// Closes the browser's ends here (it has its own copies now) and starts reading and writing.
    ///
    /// - Parameters:
    ///   - onMessage: Called on the reader thread with each message, in order.
    ///   - onClose: Called once on the reader thread when the stream ends, with the reason.
    func start(onMessage: @escaping @Sendable (Data) -> Void, onClose: @escaping @Sendable (String) -> Void) {
        let childEnds = state.withLock { state -> [Int32] in
            state.started = true
            defer { state.childEnds = [] }
            return state.childEnds
        }
        for descriptor in childEnds { Descriptor.close(descriptor) }

        let replyRead = replyRead
        let wakeRead = wakeRead
        Thread.detachNewThread {
            let reason = Self.readLoop(replyRead: replyRead, wakeRead: wakeRead, onMessage: onMessage)
            Descriptor.close(replyRead)
            Descriptor.close(wakeRead)
            onClose(reason)
        }
        Thread.detachNewThread { [self] in
            writeLoop()
        }
    }

    /// Queues `message` (without its NUL) for the browser. Never blocks.
    func send(_ message: Data) {
        let accepted = state.withLock { state -> Bool in
            guard !state.closing else { return false }
            state.outgoing.append(message)
            return true
        }
        if accepted { queued.signal() }
    }

    /// Stops both threads and closes every descriptor. Safe to call more than once, and before
    /// ``start(onMessage:onClose:)`` (when the browser could not be started).
    func close() {
        let (wasClosing, started, childEnds, wakeWrite) = state.withLock { state in
            defer {
                state.closing = true
                state.childEnds = []
                state.wakeWrite = -1
            }
            return (state.closing, state.started, state.childEnds, state.wakeWrite)
        }
        guard !wasClosing else { return }
        for descriptor in childEnds { Descriptor.close(descriptor) }
        // Closing the wake pipe's write end is seen by the reader's poll as a hang-up.
        if wakeWrite >= 0 { Descriptor.close(wakeWrite) }
        if started {
            queued.signal()  // the writer sees `closing` and closes the command pipe itself
        } else {
            for descriptor in [commandWrite, replyRead, wakeRead] { Descriptor.close(descriptor) }
        }
    }

    // MARK: - The threads

    /// Reads until end of stream, an error, or a wake-up; returns why it stopped.
    private static func readLoop(
        replyRead: Int32, wakeRead: Int32, onMessage: @Sendable (Data) -> Void
    ) -> String {
        var framer = DevToolsMessageFramer()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let ready: [Bool]
            do {
                ready = try Descriptor.waitUntilReadable([replyRead, wakeRead], timeout: nil)
            } catch {
                return "poll failed: \(error)"
            }
            if ready[1] { return "closed by webauth" }
            guard ready[0] else { continue }
            let count: Int
            do {
                count = try Descriptor.read(replyRead, into: &buffer)
            } catch  where error == .wouldBlock {
                continue
            } catch {
                return "read failed: \(error)"
            }
            if count == 0 { return "the browser closed its end" }
            let messages = buffer.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if framer.overflowed { return "a message exceeded \(DevToolsMessageFramer.maximumMessageSize) bytes" }
            for message in messages { onMessage(message) }
        }
    }

    /// Writes queued messages, each followed by a NUL, until closed or the browser goes away.
    private func writeLoop() {
        // A write to a pipe whose reader has gone raises SIGPIPE, which would end the whole
        // process. Blocked on this thread only, it stays pending here (and is discarded when the
        // thread ends) while write() returns EPIPE.
        CurrentProcess.blockBrokenPipeSignalOnThisThread()

        var broken = false
        while true {
            queued.wait()
            let next = state.withLock { state -> Data? in
                state.outgoing.isEmpty ? nil : state.outgoing.removeFirst()
            }
            guard let next else { break }  // only `close()` signals without queueing
            if broken { continue }
            var bytes = [UInt8](next)
            bytes.append(0)
            do {
                try Descriptor.writeAll(commandWrite, bytes)
            } catch {
                broken = true  // EPIPE: the browser is gone; the reader reports the end
            }
        }
        Descriptor.close(commandWrite)
    }
}
