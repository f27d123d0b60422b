// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh private directory for one test, removed with everything in it afterwards.
@discardableResult
private func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let path = NSTemporaryDirectory() + "webauth-platform-\(UUID().uuidString)"
    try FileSystem.makeDirectory(path, mode: 0o700)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

@Suite("Descriptors and paths")
struct DescriptorTests {
    @Test("A file written whole reads back whole, and its status names its kind, owner and mode")
    func writeReadAndStatus() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/entry"
            let bytes = [UInt8]((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
            let output = try Descriptor.open(path, .write, [.create, .exclusive], mode: 0o600)
            try Descriptor.writeAll(output, bytes)
            Descriptor.close(output)

            let input = try Descriptor.open(path, .read, .noFollow)
            defer { Descriptor.close(input) }
            let status = try Descriptor.status(input)
            #expect(status == FileStatus(kind: .regular, owner: CurrentProcess.effectiveUserID, permissions: 0o600))
            #expect(try Descriptor.readAll(input, limit: .max) == bytes)
        }
    }

    @Test("readAll stops at its limit, so one byte more than allowed tells a file that is too large")
    func readAllStopsAtTheLimit() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/large"
            let output = try Descriptor.open(path, .write, .create)
            try Descriptor.writeAll(output, [UInt8](repeating: 7, count: 100))
            Descriptor.close(output)
            let input = try Descriptor.open(path, .read)
            defer { Descriptor.close(input) }
            #expect(try Descriptor.readAll(input, limit: 11).count == 11)
        }
    }

    @Test("Opening with noFollow refuses a symbolic link, with the error that names it")
    func noFollowRefusesALink() throws {
        try withTemporaryDirectory { directory in
            let target = directory + "/target"
            Descriptor.close(try Descriptor.open(target, .write, .create))
            #expect(symlink(target, directory + "/link") == 0)
            #expect(throws: SystemError.symbolicLink) { try Descriptor.open(directory + "/link", .read, .noFollow) }
            #expect(try FileSystem.status(directory + "/link").kind == .symbolicLink)
            #expect(try FileSystem.status(directory + "/link", followingLinks: true).kind == .regular)
            #expect(FileSystem.linkDestination(directory + "/link") == target)
        }
    }

    @Test("A missing file is noSuchEntry, an existing directory alreadyExists, with the C library's text")
    func errorsAreNamed() throws {
        try withTemporaryDirectory { directory in
            #expect(throws: SystemError.noSuchEntry) { try FileSystem.removeFile(directory + "/missing") }
            #expect(throws: SystemError.alreadyExists) { try FileSystem.makeDirectory(directory, mode: 0o700) }
            #expect(SystemError.noSuchEntry.description == "No such file or directory")
        }
    }

    @Test("Every descriptor the layer makes is close-on-exec")
    func descriptorsAreCloseOnExec() throws {
        try withTemporaryDirectory { directory in
            let file = try Descriptor.open(directory + "/file", .write, .create)
            let pipe = try Pipe.make()
            let pair = try Pipe.socketPair()
            let copy = try Descriptor.duplicate(file)
            let anonymous = try FileSystem.anonymousFile(name: "webauth-test", directory: directory)
            defer {
                for descriptor in [file, pipe.read, pipe.write, pair.0, pair.1, copy, anonymous] { close(descriptor) }
            }
            for descriptor in [file, pipe.read, pipe.write, pair.0, pair.1, copy, anonymous] {
                #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(descriptor)")
            }
            #expect(copy >= 3)
        }
    }

    @Test("An anonymous file has no name in its directory and reads back what was written")
    func anonymousFileHasNoName() throws {
        try withTemporaryDirectory { directory in
            let descriptor = try FileSystem.anonymousFile(name: "webauth-test", directory: directory)
            defer { Descriptor.close(descriptor) }
            try Descriptor.writeAll(descriptor, Array("input".utf8))
            try Descriptor.rewind(descriptor)
            #expect(try Descriptor.readAll(descriptor, limit: 100) == Array("input".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }

    @Test("A second open file cannot take a flock the first holds until it is released")
    func flockExcludesASecondOpenFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/lock"
            let first = try Descriptor.open(path, .read, .create)
            let second = try Descriptor.open(path, .read)
            defer { for descriptor in [first, second] { Descriptor.close(descriptor) } }
            #expect(try FileLock.tryLock(first))
            #expect(try !FileLock.tryLock(second))
            FileLock.unlock(first)
            #expect(try FileLock.tryLock(second))
        }
    }

    @Test("Waiting for a readable descriptor times out on an empty pipe and sees data and hang-ups")
    func waitingForInput() throws {
        let pipe = try Pipe.make()
        defer { Descriptor.close(pipe.read) }
        #expect(try Descriptor.waitUntilReadable([pipe.read], timeout: .milliseconds(10)) == [false])
        try Descriptor.writeAll(pipe.write, [1])
        #expect(try Descriptor.waitUntilReadable([pipe.read], timeout: nil) == [true])
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try Descriptor.read(pipe.read, into: &buffer) == 1)
        Descriptor.close(pipe.write)
        #expect(Descriptor.wait(pipe.read, forWriting: false, deadline: .now + .seconds(5)))
        #expect(try Descriptor.read(pipe.read, into: &buffer) == 0)
    }
}

@Suite("Sockets and processes")
struct SocketAndProcessTests {
    @Test("A Unix socket connects within its deadline, names its listener's user, and carries bytes both ways")
    func localSocketRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/socket"
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(listener) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            #expect(bound == 0)
            #expect(listen(listener, 1) == 0)

            let client = try LocalSocket.connect(.path(path), deadline: .now + .seconds(5))
            defer { Descriptor.close(client) }
            let server = accept(listener, nil, nil)
            defer { close(server) }
            #expect(LocalSocket.peerUserID(client) == CurrentProcess.effectiveUserID)
            #expect(LocalSocket.sendAll(client, Array("AUTH\r\n".utf8), deadline: .now + .seconds(5)))
            var buffer = [UInt8](repeating: 0, count: 16)
            #expect(try Descriptor.read(server, into: &buffer) == 6)
            try Descriptor.writeAll(server, Array("OK\r\n".utf8))
            #expect(LocalSocket.receive(client, maximum: 64, deadline: .now + .seconds(5)) == Array("OK\r\n".utf8))
            #expect(
                LocalSocket.receive(client, maximum: 64, deadline: .now + .milliseconds(20)) == nil,
                "nothing more: the deadline")
        }
    }

    @Test("Connecting where nothing listens is unreachable, not a wait, and says that nothing listens")
    func connectingToNothingIsUnreachable() throws {
        try withTemporaryDirectory { directory in
            #expect(throws: LocalSocket.ConnectFailure.unreachable(.noSuchEntry)) {
                try LocalSocket.connect(.path(directory + "/nobody"), deadline: .now + .seconds(5))
            }
            let bound = try LocalSocket.bindForListening(at: directory + "/not-listening", mode: 0o600)
            defer { Descriptor.close(bound) }
            let refused = #expect(throws: LocalSocket.ConnectFailure.self) {
                try LocalSocket.connect(.path(directory + "/not-listening"), deadline: .now + .seconds(5))
            }
            #expect(refused == .unreachable(.connectionRefused))
            #expect(refused?.isNothingListening == true)
            let tooLong = String(repeating: "x", count: LocalSocket.maximumPathLength + 1)
            let unfit = #expect(throws: LocalSocket.ConnectFailure.self) {
                try LocalSocket.connect(.path(tooLong), deadline: .now + .seconds(5))
            }
            #expect(unfit == .unreachable(.nameTooLong))
            #expect(unfit?.isNothingListening == false, "a name that does not fit is a mistake, not an absence")
        }
    }

    @Test("A socket bound for listening has its mode before anyone can connect, and names its peer to the server")
    func boundSocketModeAndPeerCredentials() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/server"
            let listener = try LocalSocket.bindForListening(at: path, mode: 0o600)
            defer { Descriptor.close(listener) }
            let status = try FileSystem.status(path)
            #expect(status.kind == .other)
            #expect(status.permissions == 0o600)
            #expect(status.owner == CurrentProcess.effectiveUserID)
            #expect(listen(listener, 1) == 0)

            let client = try LocalSocket.connect(.path(path), deadline: .now + .seconds(5))
            defer { Descriptor.close(client) }
            let server = accept(listener, nil, nil)
            defer { Descriptor.close(server) }
            #expect(server >= 0)
            let option = try #require(LocalSocket.peerCredentialsOption, "Linux has SO_PEERCRED")
            var credentials: LocalSocket.PeerCredentials = (0, 0, 0)
            var size = socklen_t(MemoryLayout<LocalSocket.PeerCredentials>.size)
            #expect(getsockopt(server, option.level, option.name, &credentials, &size) == 0)
            #expect(Int(size) == MemoryLayout<LocalSocket.PeerCredentials>.size)
            #expect(credentials.userID == CurrentProcess.effectiveUserID)
            #expect(credentials.processID == CurrentProcess.id)
        }
    }

    @Test("Binding where a file is, or at a path too long, fails and leaves nothing of its own behind")
    func bindingFailsCleanly() throws {
        try withTemporaryDirectory { directory in
            let taken = directory + "/taken"
            let file = try Descriptor.open(taken, .write, [.create, .exclusive], mode: 0o644)
            Descriptor.close(file)
            #expect(throws: SystemError.self) { try LocalSocket.bindForListening(at: taken, mode: 0o600) }
            #expect(try FileSystem.status(taken).kind == .regular, "the file that was there is untouched")
            #expect(try FileSystem.status(taken).permissions == 0o644)

            let tooLong = directory + "/" + String(repeating: "x", count: LocalSocket.maximumPathLength)
            #expect(throws: SystemError.nameTooLong) { try LocalSocket.bindForListening(at: tooLong, mode: 0o600) }
            #expect(!FileSystem.exists(tooLong))
        }
    }

    @Test("This process exists and is live; a process that has been reaped is gone")
    func processTable() async throws {
        #expect(OtherProcess.exists(CurrentProcess.id))
        #expect(ProcessTable.isLive(CurrentProcess.id))
        let child = try Foundation.Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
        child.waitUntilExit()
        #expect(OtherProcess.isGone(child.processIdentifier))
        #expect(!ProcessTable.isLive(child.processIdentifier))
    }

    @Test("A forwarded signal arrives as its number on the pipe")
    func signalForwarding() throws {
        let pipe = try Pipe.make()
        defer {
            Descriptor.close(pipe.read)
            Descriptor.close(pipe.write)
        }
        SignalForwarding.install([SIGUSR1], writingTo: pipe.write)
        defer { SignalForwarding.remove([SIGUSR1]) }
        // To the process, as a terminal's Ctrl-C is: a thread that does not block it takes it.
        kill(getpid(), SIGUSR1)
        try #require(Descriptor.wait(pipe.read, forWriting: false, deadline: .now + .seconds(5)))
        var buffer = [UInt8](repeating: 0, count: 1)
        #expect(try Descriptor.read(pipe.read, into: &buffer) == 1)
        #expect(Int32(buffer[0]) == SIGUSR1)
    }
}
