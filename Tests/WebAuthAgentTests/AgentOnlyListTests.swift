// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The list of agent-only profiles beside the agent's socket is read as the profile index is:
/// the person's own regular file, not writable by others, never a link or a FIFO.
@Suite("The agent-only list")
struct AgentOnlyListTests {
    @Test(.timeLimit(.minutes(1)))
    func onlyThePersonsOwnRegularFileIsRead() throws {
        var template = Array("/tmp/webauth-list-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = AgentOnlyProfiles(socketPath: directory + "/agent.sock")
        list.write(["work", "home"])
        #expect(list.names() == ["work", "home"])

        chmod(list.path, 0o666)
        #expect(list.names().isEmpty, "writable by others")
        chmod(list.path, 0o600)
        chown(list.path, 65534, 65534)
        #expect(list.names().isEmpty, "another user's")
        chown(list.path, 0, 0)
        #expect(list.names() == ["work", "home"])

        let real = directory + "/elsewhere"
        try FileManager.default.moveItem(atPath: list.path, toPath: real)
        symlink(real, list.path)
        #expect(list.names().isEmpty, "a link")
        unlink(list.path)

        // A FIFO would block a plain read forever; it is refused at once.
        try #require(mkfifo(list.path, 0o600) == 0)
        #expect(list.names().isEmpty, "a FIFO")
        #expect(!list.contains("work"))
    }
}
