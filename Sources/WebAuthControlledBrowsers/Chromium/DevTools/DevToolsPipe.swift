import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
    private let state: Mutex<State>
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
        state = Mutex(State(childEnds: [commandRead, replyWrite], wakeWrite: wake.1))
    }

    /// Creates the command and reply pipes, and a third one whose closing wakes the reader.
    static func make() throws(DevToolsError) -> DevToolsPipe {
        var made: [(Int32, Int32)] = []
        for _ in 0..<3 {
            var descriptors: [Int32] = [-1, -1]
            let result = makeCloseOnExecPipe(&descriptors)
            guard result == 0 else {
                let reason = String(cString: strerror(errno))
                for (read, write) in made {
                    _ = closeDescriptor(read)
                    _ = closeDescriptor(write)
                }
                throw .closed("cannot create a pipe: \(reason)")
            }
            made.append((descriptors[0], descriptors[1]))
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
        for descriptor in childEnds { _ = closeDescriptor(descriptor) }

        let replyRead = replyRead
        let wakeRead = wakeRead
        Thread.detachNewThread {
            let reason = Self.readLoop(replyRead: replyRead, wakeRead: wakeRead, onMessage: onMessage)
            _ = closeDescriptor(replyRead)
            _ = closeDescriptor(wakeRead)
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
        for descriptor in childEnds { _ = closeDescriptor(descriptor) }
        // Closing the wake pipe's write end is seen by the reader's poll as a hang-up.
        if wakeWrite >= 0 { _ = closeDescriptor(wakeWrite) }
        if started {
            queued.signal()  // the writer sees `closing` and closes the command pipe itself
        } else {
            for descriptor in [commandWrite, replyRead, wakeRead] { _ = closeDescriptor(descriptor) }
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
            var descriptors = [
                pollfd(fd: replyRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return "poll failed: \(String(cString: strerror(errno)))"
            }
            if descriptors[1].revents != 0 { return "closed by webauth" }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(replyRead, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return "read failed: \(String(cString: strerror(errno)))"
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
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)

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
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(commandWrite, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    broken = true  // EPIPE: the browser is gone; the reader reports the end
                    break
                }
                offset += written
            }
        }
        _ = closeDescriptor(commandWrite)
    }
}

/// `pipe2(fds, O_CLOEXEC)`: a pipe whose ends are close-on-exec from the start, so that a child
/// another thread spawns at the same moment cannot inherit them (and keep the browser's end of
/// the stream open). Swift's Glibc module does not export the GNU `pipe2`, so it is looked up in
/// the C library; where there is none (Darwin), `pipe` then `FD_CLOEXEC`.
private func makeCloseOnExecPipe(_ descriptors: inout [Int32]) -> Int32 {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    if let symbol = UnsafeRawPointer(bitPattern: pipe2Address) {
        let pipe2 = unsafeBitCast(symbol, to: Pipe2.self)
        return descriptors.withUnsafeMutableBufferPointer { pipe2($0.baseAddress, Int32(O_CLOEXEC)) }
    }
    let result = pipe(&descriptors)
    if result == 0 { for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) } }
    return result
}

/// The address of the C library's `pipe2`, or 0. (An address as an integer is `Sendable`; the
/// global is initialised once, thread-safely, and never changes.)
private let pipe2Address: Int = {
    #if os(Linux)
        return Int(bitPattern: dlsym(dlopen(nil, RTLD_NOW), "pipe2"))
    #else
        return 0
    #endif
}()

/// `close(2)`, named apart from the pipe's own `close()`.
@inline(__always)
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(descriptor)
    #elseif canImport(Musl)
        Musl.close(descriptor)
    #else
        Darwin.close(descriptor)
    #endif
}
