// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthAgent
import WebAuthAgentProtocol
import WebAuthPlatform
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a client checks before it connects to an agent's socket, and how long it waits to be
/// connected: a socket that is not the person's is refused at once, and a listener that accepts
/// nothing stalls no caller for more than a few seconds.
@Suite("The agent's socket, as a client sees it")
struct AgentSocketTrustTests {
    static let user: UInt32 = 1000
    static let socket = FileStatus(kind: .other, owner: user, permissions: 0o600)
    static let directory = FileStatus(kind: .directory, owner: user, permissions: 0o700)

    @Test func thePersonsOwnSocketInAPrivateOrStickyDirectoryIsAsked() {
        #expect(AgentSocketTrust.problem(socket: Self.socket, directory: Self.directory, user: Self.user) == nil)
        // systemd's and sshd's sockets: root's runtime directory, or /tmp with its sticky bit.
        let rootsSocket = FileStatus(kind: .other, owner: 0, permissions: 0o600)
        #expect(AgentSocketTrust.problem(socket: rootsSocket, directory: Self.directory, user: Self.user) == nil)
        let sticky = FileStatus(kind: .directory, owner: 0, permissions: 0o1777)
        #expect(AgentSocketTrust.problem(socket: Self.socket, directory: sticky, user: Self.user) == nil)
    }

    @Test func aSocketThatCouldBeAnotherUsersIsNotAsked() {
        let cases: [(FileStatus, FileStatus, AgentSocketTrust.Problem)] = [
            (FileStatus(kind: .symbolicLink, owner: Self.user, permissions: 0o777), Self.directory, .socketIsLink),
            (FileStatus(kind: .regular, owner: Self.user, permissions: 0o600), Self.directory, .notASocket),
            (FileStatus(kind: .other, owner: 65534, permissions: 0o600), Self.directory, .socketOwner(65534)),
            (
                FileStatus(kind: .other, owner: Self.user, permissions: 0o666), Self.directory,
                .socketWritableByOthers(0o666)
            ),
            (
                Self.socket, FileStatus(kind: .symbolicLink, owner: Self.user, permissions: 0o777),
                .directoryNotDirectory
            ),
            (Self.socket, FileStatus(kind: .directory, owner: 65534, permissions: 0o700), .directoryOwner(65534)),
            (
                Self.socket, FileStatus(kind: .directory, owner: Self.user, permissions: 0o777),
                .directoryWritableByOthers(0o777)
            ),
            (
                Self.socket, FileStatus(kind: .directory, owner: 0, permissions: 0o770),
                .directoryWritableByOthers(0o770)
            ),
        ]
        for (socket, directory, problem) in cases {
            #expect(
                AgentSocketTrust.problem(socket: socket, directory: directory, user: Self.user) == problem,
                "\(socket) in \(directory)")
        }
        #expect(AgentSocketTrust.Problem.directoryWritableByOthers(0o777).description.contains("0777"))
    }

    /// A private directory for one test, removed when it ends.
    static func withDirectory(_ body: (String) async throws -> Void) async throws {
        var template = Array("/tmp/webauth-trust-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    @Test func aClientSendsNothingToASocketAnotherUserOwnsOrCouldReplace() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/agent.sock"
            let listener = try LocalSocket.bindForListening(at: path, mode: 0o600)
            defer { Descriptor.close(listener) }
            try #require(listen(listener, 8) == 0)

            chown(path, 65534, 65534)
            #expect(
                AgentConnection.exchange(AgentRequest(.status), path: path)
                    == .failure(.untrusted(.socketOwner(65534))))
            chown(path, 0, 0)
            chmod(path, 0o666)
            #expect(
                AgentConnection.exchange(AgentRequest(.status), path: path)
                    == .failure(.untrusted(.socketWritableByOthers(0o666))))
            chmod(path, 0o600)
            chmod(directory, 0o777)
            #expect(
                AgentConnection.exchange(AgentRequest(.status), path: path)
                    == .failure(.untrusted(.directoryWritableByOthers(0o777))))
            chmod(directory, 0o700)
            let link = directory + "/link.sock"
            symlink(path, link)
            #expect(AgentConnection.exchange(AgentRequest(.status), path: link) == .failure(.untrusted(.socketIsLink)))
            // Nothing was accepted: no request reached the listener.
            var pending = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            #expect(poll(&pending, 1, 0) == 0, "no connection was made to it")
            #expect(
                AgentConnection.exchange(AgentRequest(.status), path: directory + "/none.sock") == .failure(.noAgent))
        }
    }

    @Test(
        "A listener whose queue is full stalls a client only for the connect deadline, not the answer's minute",
        .timeLimit(.minutes(1)))
    func aFullQueueIsGivenUpOnAfterTheConnectDeadline() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/agent.sock"
            let listener = try LocalSocket.bindForListening(at: path, mode: 0o600)
            defer { Descriptor.close(listener) }
            try #require(listen(listener, 0) == 0)
            // Fill the queue: connections nobody accepts, until the kernel refuses another.
            var held: [Int32] = []
            defer { for descriptor in held { Descriptor.close(descriptor) } }
            while held.count < 64 {
                guard
                    let descriptor = try? LocalSocket.connect(
                        .path(path), deadline: ContinuousClock.now + .milliseconds(50))
                else { break }
                held.append(descriptor)
            }
            try #require(held.count < 64, "the queue filled")
            let started = ContinuousClock.now
            let result = AgentConnection.exchange(
                AgentRequest(.token, profile: "work"), path: path, timeout: AgentProtocol.confirmationTimeout)
            let waited = started.duration(to: .now)
            #expect(result == .failure(.noAnswer))
            // The real time is the point: the connect deadline is 5 s, the confirmation's 65 s.
            #expect(waited >= AgentProtocol.connectTimeout - .milliseconds(100))
            #expect(waited < AgentProtocol.connectTimeout + .seconds(10), "\(waited)")
        }
    }
}
