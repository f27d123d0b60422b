// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// SO_PEERCRED and a second local user are what these tests exercise.
#if os(Linux)
    import Foundation
    import NIOCore
    import NIOPosix
    import WebAuthCore
    import Testing
    import WebAuthPlatform
    import WebAuthTestSupport

    @testable import WebAuthDesktop
    import WebAuthDesktopSocket

    #if canImport(Glibc)
        import Glibc
    #endif

    /// The line framing every desktop socket connection goes through.
    @Suite("Line framing of the desktop sockets")
    struct LineFramingTests {
        @Test func linesAreSplitAtNewlinesAndTheRestIsTheEndOfInput() {
            #expect(
                Self.frames(of: Array("one\ntwo\nrest".utf8), limit: 8) == [
                    .line(Array("one".utf8)), .line(Array("two".utf8)), .endOfInput(Array("rest".utf8)),
                ])
            #expect(Self.frames(of: [], limit: 8) == [.endOfInput([])])
        }

        @Test func aLineOverTheLimitIsReportedOnceAndEverythingAfterItDropped() {
            #expect(
                Self.frames(of: Array("12345678\n".utf8), limit: 8) == [.line(Array("12345678".utf8)), .endOfInput([])])
            #expect(Self.frames(of: Array("123456789\nnext\n".utf8), limit: 8) == [.tooLong])
            #expect(Self.frames(of: Array("123456789".utf8), limit: 8) == [.tooLong])
        }

        @Test func aLineArrivingInPiecesIsOneLine() {
            var decoder = LineFrameDecoder(limit: 16)
            var buffer = ByteBuffer(string: "com.exa")
            #expect(decoder.nextFrame(in: &buffer, atEnd: false) == nil)
            buffer.writeString("mple:/x\nmore")
            #expect(decoder.nextFrame(in: &buffer, atEnd: false) == .line(Array("com.example:/x".utf8)))
            #expect(decoder.nextFrame(in: &buffer, atEnd: false) == nil)
            #expect(decoder.nextFrame(in: &buffer, atEnd: true) == .endOfInput(Array("more".utf8)))
            #expect(decoder.nextFrame(in: &buffer, atEnd: true) == nil, "the end is reported once")
        }

        /// Every frame of `bytes` followed by the end of input: what a connection that sends
        /// `bytes` and stops yields.
        static func frames(of bytes: [UInt8], limit: Int) -> [SocketLine] {
            var decoder = LineFrameDecoder(limit: limit)
            var buffer = ByteBuffer(bytes: bytes)
            var frames: [SocketLine] = []
            while let frame = decoder.nextFrame(in: &buffer, atEnd: true) { frames.append(frame) }
            return frames
        }
    }

    extension DesktopIntegrationTests {
        /// The SwiftNIO server both desktop sockets run on, with a test's own logic above it.
        @Suite("Unix socket server bounds")
        struct UnixSocketServerTests {
            @Test func aConnectionFromAnotherUserIsClosedBeforeTheServerSeesIt() async throws {
                try #require(DesktopSocketCalls.effectiveUserID == 0, "a second user needs root")
                try await withEchoServer(open: true) { path, seen in
                    let stranger = try await runAsNobody(python: Self.client, arguments: [path])
                    #expect(stranger == "closed", "closed without an answer")
                    #expect(await exchange(path, "mine\n") == "got mine")
                    #expect(seen.lines == ["mine"], "the other user's line never reached the server")
                }
            }

            @Test func connectionsBeyondTheLimitAreClosedAtOnce() async throws {
                try await withEchoServer(maximumConnections: 2) { path, _ in
                    let clients = try (0..<3).map { _ in try DesktopSocketCalls.makeConnection(to: path) }
                    defer { clients.forEach(DesktopSocketCalls.close) }
                    // Real time is the point: the server accepts all three before the first
                    // answer frees a place, and a refused connection shows no event of its own.
                    try await Task.sleep(for: .milliseconds(300))
                    var answers: [String] = []
                    for (index, client) in clients.enumerated() {
                        answers.append(await exchange(on: client, "c\(index)\n"))
                    }
                    #expect(answers.filter { $0.hasPrefix("got c") }.count == 2, "\(answers)")
                    #expect(answers.filter { $0 == "<closed>" }.count == 1, "\(answers)")
                }
            }

            @Test func aConnectionWithoutALineInTimeIsClosedAndWhatItSentDropped() async throws {
                try await withEchoServer(firstLineTimeout: .milliseconds(300)) { path, seen in
                    let started = ContinuousClock.now
                    #expect(await exchange(path, "com.example:/cb?code=stalled", wait: .seconds(20)) == "<closed>")
                    #expect(ContinuousClock.now - started < .seconds(15))
                    // A peer that ends its input instead is answered. Before it, the server's logic
                    // saw nothing: the stalled connection never reached it, its partial line was not
                    // handed over as the end of input.
                    #expect(await exchange(path, "partial", endingInput: true) == "got end partial")
                    #expect(seen.lines == ["end partial"], "\(seen.lines)")
                }
            }

            @Test func aFirstLineAnsweredOnTheEventLoopNeverReachesTheLogicAndOthersArriveWhole() async throws {
                let immediate: UnixSocketServer.ImmediateAnswer = { first, peer in
                    guard first == .line(Array("ping".utf8)) else { return nil }
                    return Array("pong \(peer.userID)\n".utf8)
                }
                try await withEchoServer(immediate: immediate) { path, seen in
                    let connection = try DesktopSocketCalls.makeConnection(to: path)
                    defer { DesktopSocketCalls.close(connection) }
                    #expect(await exchange(on: connection, "ping\n") == "pong \(DesktopSocketCalls.effectiveUserID)")
                    #expect(
                        DesktopSocketCalls.readLine(connection, limit: 16, deadline: .now + .seconds(5))
                            == .endOfInput([]),
                        "closed after the answer")
                    #expect(await exchange(path, "other\n") == "got other")
                    #expect(await exchange(path, "partial", endingInput: true) == "got end partial")
                    #expect(seen.lines == ["other", "end partial"], "only the lines it declined reached the logic")
                }
            }

            @Test func closingTheServerEndsItsConnectionsAndLeavesNoDescriptor() async throws {
                // SwiftNIO's shared event loops open their descriptors once, on first use.
                try await withEchoServer { path, _ in #expect(await exchange(path, "warm\n") == "got warm") }
                let idle = Locked<Int32?>(nil)
                let served = Locked<String?>(nil)
                let started = ContinuousClock.now
                try await withEchoServer(firstLineTimeout: .seconds(60)) { path, _ in
                    served.withLock { $0 = path }
                    // A connection that never sends anything, still open when the server closes.
                    let connection = try DesktopSocketCalls.makeConnection(to: path)
                    idle.withLock { $0 = connection }
                    #expect(await exchange(path, "x\n") == "got x")
                    #expect(try descriptors(boundTo: path) >= 2, "the listener and the idle connection are seen")
                }
                #expect(ContinuousClock.now - started < .seconds(20), "closing did not wait for the idle connection")
                let connection = try #require(idle.withLock { $0 })
                #expect(
                    DesktopSocketCalls.readLine(connection, limit: 16, deadline: .now + .seconds(1)) == .endOfInput([]),
                    "the server closed it")
                DesktopSocketCalls.close(connection)
                // Only this server's sockets are counted: other tests open descriptors meanwhile.
                let path = try #require(served.withLock { $0 })
                #expect(await eventually(within: .seconds(10)) { (try? descriptors(boundTo: path)) == 0 })
            }

            @Test func listeningAtAPathRenamesTheSocketIntoPlaceOnlyOnceItAccepts() async throws {
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                let path = directory.path + "/s.sock"
                let pending = path + ".new"
                try Data("left by a writer that died".utf8).write(to: URL(fileURLWithPath: pending))
                let server = try await UnixSocketServer.listen(
                    at: path, pendingPath: pending,
                    limits: .init(maximumConnections: 2, maximumLineLength: 64, firstLineTimeout: .seconds(5)),
                    logger: .webAuthSilent, immediate: { _, _ in Array("here\n".utf8) }
                ).get()
                #expect(!FileManager.default.fileExists(atPath: pending), "the pending name is gone")
                #expect(try FileSystem.status(path, followingLinks: false).kind == .other, "a socket is at the path")
                #expect(try FileSystem.status(path, followingLinks: false).permissions & 0o777 == 0o600)
                #expect(await exchange(path, "anything\n") == "here")
                await server.closeUnserved()
            }

            @Test func aServerThatCannotListenOrCannotBeRenamedLeavesNothingBehind() async throws {
                let directory = try TemporaryDirectory()
                defer { directory.remove() }
                let limits = UnixSocketServer.Limits(
                    maximumConnections: 2, maximumLineLength: 64, firstLineTimeout: .seconds(5))
                // No directory for the pending name.
                let missing = directory.path + "/none/s.sock.new"
                await #expect(throws: UnixSocketServer.ListenFailure.self) {
                    _ = try await UnixSocketServer.listen(
                        at: directory.path + "/s.sock", pendingPath: missing, limits: limits, logger: .webAuthSilent
                    ).get()
                }
                // A directory with something in it where the socket goes: the rename fails.
                let occupied = directory.path + "/occupied"
                try FileManager.default.createDirectory(atPath: occupied + "/inside", withIntermediateDirectories: true)
                let pending = directory.path + "/occupied.new"
                await #expect(throws: UnixSocketServer.ListenFailure.self) {
                    _ = try await UnixSocketServer.listen(
                        at: occupied, pendingPath: pending, limits: limits, logger: .webAuthSilent
                    ).get()
                }
                #expect(!FileManager.default.fileExists(atPath: pending), "the pending socket was removed")
                #expect(FileManager.default.fileExists(atPath: occupied + "/inside"), "what was there is untouched")
            }

            // MARK: - The front door (a server with an immediate answer)

            /// Answers `ping` lines at once (`pong` and the peer's user), declines the rest.
            static let pingPong: UnixSocketServer.ImmediateAnswer = { first, peer in
                guard case .line(let line) = first, line.starts(with: Array("ping".utf8)) else { return nil }
                return Array("pong \(peer.userID)\n".utf8)
            }

            /// Answers every whole first line at once.
            static let answersEverything: UnixSocketServer.ImmediateAnswer = { first, _ in
                guard case .line = first else { return nil }
                return Array("answered\n".utf8)
            }

            @Test func aWholeFirstLineIsAnsweredAtTheFrontDoorWhileTheEventLoopIsBusy() async throws {
                let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
                do {
                    try await withEchoServer(immediate: Self.pingPong, group: loop) { path, seen in
                        #expect(await exchange(path, "warm\n") == "got warm", "the event loop serves what it declines")
                        // The event loop's one thread is held (everything else it does queues behind
                        // this): only the accepting thread can answer now.
                        let held = DispatchSemaphore(value: 0)
                        loop.next().execute { held.wait() }
                        defer { held.signal() }
                        #expect(await exchange(path, "ping\n") == "pong \(DesktopSocketCalls.effectiveUserID)")
                        #expect(seen.lines == ["warm"], "the answered line never reached the logic")
                    }
                } catch {
                    try? await loop.shutdownGracefully()
                    throw error
                }
                try await loop.shutdownGracefully()
            }

            @Test func aLineSentInPiecesAfterTheAcceptIsFramedAndAnsweredOnTheEventLoop() async throws {
                try await withEchoServer(immediate: Self.pingPong) { path, seen in
                    for (first, rest, answer) in [
                        ("pi", "ng\n", "pong \(DesktopSocketCalls.effectiveUserID)"),
                        ("oth", "er\n", "got other"),
                    ] {
                        let connection = try DesktopSocketCalls.makeConnection(to: path)
                        defer { DesktopSocketCalls.close(connection) }
                        DesktopSocketCalls.writeAll(connection, Array(first.utf8), deadline: .now + .seconds(5))
                        // Real time is the point: the accepting thread reads the first piece alone
                        // and hands the connection to the event loop, which reads the rest.
                        try await Task.sleep(for: .milliseconds(100))
                        #expect(await exchange(on: connection, rest) == answer)
                    }
                    #expect(seen.lines == ["other"], "\(seen.lines)")
                }
            }

            @Test func aFirstLineOverTheLimitIsNotAnsweredAtTheDoorButRefusedAsTooLong() async throws {
                try await withEchoServer(immediate: Self.answersEverything) { path, seen in
                    let long = "ping" + String(repeating: "x", count: 1100)
                    #expect(await exchange(path, long + "\n") == "got <too long>")
                    #expect(await exchange(path, long) == "got <too long>", "without its newline too")
                    #expect(await exchange(path, "short\n") == "answered")
                    #expect(seen.lines == ["<too long>", "<too long>"])
                }
            }

            @Test func aConnectionFromAnotherUserIsClosedAtTheDoorUnanswered() async throws {
                try #require(DesktopSocketCalls.effectiveUserID == 0, "a second user needs root")
                // An answer for every line: only the peer check stands between the stranger and it.
                try await withEchoServer(open: true, immediate: Self.answersEverything) { path, seen in
                    let stranger = try await runAsNobody(python: Self.client, arguments: [path])
                    #expect(stranger == "closed", "closed without an answer")
                    #expect(await exchange(path, "mine\n") == "answered")
                    #expect(seen.lines.isEmpty)
                }
            }

            @Test func theDoorCountsConnectionsAgainstTheLimitUntilTheyClose() async throws {
                try await withEchoServer(maximumConnections: 2, immediate: Self.pingPong) { path, _ in
                    var silent = try (0..<2).map { _ in try DesktopSocketCalls.makeConnection(to: path) }
                    // Closed once: a number closed twice may by then be another test's socket.
                    defer { silent.forEach(DesktopSocketCalls.close) }
                    // Real time is the point: the two silent connections are accepted and handed
                    // to the event loop, where they hold both places.
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(await exchange(path, "ping\n") == "<closed>", "beyond the limit, even a ping")
                    for connection in silent { DesktopSocketCalls.close(connection) }
                    silent = []
                    #expect(
                        await eventually(within: .seconds(10)) {
                            await exchange(path, "ping\n") == "pong \(DesktopSocketCalls.effectiveUserID)"
                        }, "the places are free again once they close")
                }
            }

            @Test func aConnectionWithoutALineInTimeIsClosedByTheDoorsDeadline() async throws {
                try await withEchoServer(firstLineTimeout: .milliseconds(300), immediate: Self.pingPong) { path, seen in
                    let started = ContinuousClock.now
                    #expect(await exchange(path, "ping", wait: .seconds(20)) == "<closed>")
                    #expect(ContinuousClock.now - started < .seconds(15))
                    #expect(seen.lines.isEmpty, "\(seen.lines)")
                }
            }

            @Test func anAnswerLargerThanTheSocketTakesAtOnceArrivesWhole() async throws {
                let large = Array(repeating: UInt8(ascii: "a"), count: 1024 * 1024) + [UInt8(ascii: "\n")]
                let answer: UnixSocketServer.ImmediateAnswer = { _, _ in large }
                try await withEchoServer(immediate: answer) { path, _ in
                    let connection = try DesktopSocketCalls.makeConnection(to: path)
                    defer { DesktopSocketCalls.close(connection) }
                    DesktopSocketCalls.writeAll(connection, Array("ping\n".utf8), deadline: .now + .seconds(5))
                    let line = DesktopSocketCalls.readLine(
                        connection, limit: large.count, deadline: .now + .seconds(20))
                    #expect(line == .line(Array(large.dropLast())))
                    #expect(
                        DesktopSocketCalls.readLine(connection, limit: 16, deadline: .now + .seconds(5))
                            == .endOfInput([]), "closed after the answer")
                }
            }

            @Test func closingAServerWithADoorLeavesNoDescriptor() async throws {
                let served = Locked<String?>(nil)
                let idle = Locked<Int32?>(nil)
                try await withEchoServer(firstLineTimeout: .seconds(60), immediate: Self.pingPong) { path, _ in
                    served.withLock { $0 = path }
                    let connection = try DesktopSocketCalls.makeConnection(to: path)
                    idle.withLock { $0 = connection }
                    #expect(await exchange(path, "ping\n") == "pong \(DesktopSocketCalls.effectiveUserID)")
                    #expect(await exchange(path, "x\n") == "got x")
                }
                let connection = try #require(idle.withLock { $0 })
                #expect(
                    DesktopSocketCalls.readLine(connection, limit: 16, deadline: .now + .seconds(10))
                        == .endOfInput([]),
                    "the server closed the idle connection")
                DesktopSocketCalls.close(connection)
                let path = try #require(served.withLock { $0 })
                #expect(await eventually(within: .seconds(10)) { (try? descriptors(boundTo: path)) == 0 })
            }

            // MARK: - Helpers

            /// What the test's server logic saw: each connection's first frame.
            final class Seen: Sendable {
                private let recorded = Locked<[String]>([])
                var lines: [String] { recorded.withLock { $0 } }
                func record(_ line: String) { recorded.withLock { $0.append(line) } }
            }

            /// Runs `body` with a server whose logic answers a connection's first line with
            /// `got {line}` (`got end {bytes}` for an ended input), then closes the server and
            /// waits for its connections to end.
            private func withEchoServer(
                open: Bool = false, maximumConnections: Int = 8, firstLineTimeout: Duration = .seconds(30),
                immediate: UnixSocketServer.ImmediateAnswer? = nil,
                group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                _ body: (String, Seen) async throws -> Void
            ) async throws {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "webauth-uss-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
                defer { try? FileManager.default.removeItem(at: directory) }
                let path = directory.appendingPathComponent("s.sock").path
                let descriptor = try DesktopSocketCalls.makeBoundSocket(at: path)
                if open { try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: path) }
                let server = try await UnixSocketServer.start(
                    descriptor: descriptor,
                    limits: .init(
                        maximumConnections: maximumConnections, maximumLineLength: 1024,
                        firstLineTimeout: firstLineTimeout),
                    logger: .webAuthSilent, immediate: immediate, group: group
                ).get()
                let seen = Seen()
                let running = Task {
                    await server.run(cancellingConnectionsAtClose: true) { connection in
                        try? await connection.executeThenClose { inbound, outbound in
                            var lines = inbound.makeAsyncIterator()
                            let reply: String
                            switch try await lines.next() {
                            case .line(let bytes): reply = String(decoding: bytes, as: UTF8.self)
                            case .endOfInput(let bytes): reply = "end " + String(decoding: bytes, as: UTF8.self)
                            case .tooLong: reply = "<too long>"
                            case nil: reply = "<nothing>"
                            }
                            seen.record(reply)
                            try await outbound.write(ByteBuffer(string: "got \(reply)\n"))
                        }
                    }
                }
                do {
                    try await body(path, seen)
                } catch {
                    server.requestClose()
                    await running.value
                    throw error
                }
                server.requestClose()
                await running.value
            }

            /// How many of this process's descriptors are Unix sockets whose own address is `path`:
            /// a server's listener and the connections it accepted, which take the listener's
            /// address. Asked of each descriptor (`getsockname`), not read from `/proc/net/unix`,
            /// whose lines can be skipped while other tests open and close sockets.
            private func descriptors(boundTo path: String) throws -> Int {
                try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { name in
                    guard let descriptor = Int32(name) else { return false }
                    return socketPath(of: descriptor) == path
                }
            }

            /// The path a Unix socket descriptor is bound to, or `nil` for anything else.
            private func socketPath(of descriptor: Int32) -> String? {
                var address = sockaddr_un()
                var length = socklen_t(MemoryLayout<sockaddr_un>.size)
                let named = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                }
                guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
                return withUnsafeBytes(of: address.sun_path) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
            }

            /// Connects to `path`, sends `text` (then ends its input if asked), and returns the
            /// answer line or `<closed>`.
            private func exchange(
                _ path: String, _ text: String, endingInput: Bool = false, wait: Duration = .seconds(10)
            ) async -> String {
                guard let descriptor = try? DesktopSocketCalls.makeConnection(to: path) else {
                    return "<no connection>"
                }
                defer { DesktopSocketCalls.close(descriptor) }
                return await exchange(on: descriptor, text, endingInput: endingInput, wait: wait)
            }

            private func exchange(
                on descriptor: Int32, _ text: String, endingInput: Bool = false, wait: Duration = .seconds(10)
            ) async -> String {
                await withCheckedContinuation { continuation in
                    // Blocking reads run on a thread of their own, off the test's threads.
                    Thread.detachNewThread {
                        DesktopSocketCalls.writeAll(descriptor, Array(text.utf8), deadline: .now + .seconds(5))
                        if endingInput { shutdown(descriptor, Int32(SHUT_WR)) }
                        let answer: String
                        switch DesktopSocketCalls.readLine(descriptor, limit: 4096, deadline: .now + wait) {
                        case .line(let line): answer = String(decoding: line, as: UTF8.self)
                        case .endOfInput(let rest) where rest.isEmpty: answer = "<closed>"
                        case .failed: answer = "<closed>"
                        default: answer = "<no answer>"
                        }
                        continuation.resume(returning: answer)
                    }
                }
            }

            /// A client in Python: connects to argv[1], sends a line, prints what comes back
            /// (`closed` when the server closed or reset the connection without an answer).
            static let client = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX)
                s.connect(sys.argv[1])
                s.settimeout(10)
                try:
                    s.sendall(b"stranger\\n")
                    data = s.recv(100)
                    sys.stdout.write(repr(data) if data else "closed")
                except socket.timeout:
                    sys.stdout.write("timeout")
                except OSError:
                    sys.stdout.write("closed")
                """

            /// Runs `python3 -c script arguments` as the user `nobody` and returns its output.
            private func runAsNobody(python script: String, arguments: [String]) async throws -> String {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments =
                    ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script] + arguments
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let data = await withCheckedContinuation { continuation in
                    Thread.detachNewThread {
                        continuation.resume(returning: output.fileHandleForReading.readDataToEndOfFile())
                    }
                }
                process.waitUntilExit()
                return String(decoding: data, as: UTF8.self)
            }
        }
    }
#endif
