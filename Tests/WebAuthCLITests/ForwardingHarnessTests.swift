// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthProcess
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The harnesses the agent's forwarding tests stand on, checked on their own with a plain
/// Unix-socket echo server: a forwarded socket and a container's bind-mounted socket reach the
/// program behind them, the far side starts with nothing of this machine's, and a cut
/// connection is seen as one.
@Suite("Forwarding harnesses", .serialized)
struct ForwardingHarnessTests {
    @Test(
        "A socket forwarded with ssh -R answers on the far side, whose environment is empty, until the connection is cut",
        TestFixture.openSSH.required, .timeLimit(.minutes(2)))
    func sshForwardingReachesTheLocalSocket() async throws {
        try await SSHServer.withServer { server in
            let echo = try EchoServer(path: server.directory + "/local.sock")
            defer { echo.stop() }
            let remote = server.directory + "/far/agent.sock"
            try FileManager.default.createDirectory(
                atPath: server.directory + "/far/home", withIntermediateDirectories: true)
            let forward = try server.forward(remote: remote, to: echo.path)
            try await forward.waitUntilListening()

            let farSide =
                ["env", "-i"] + SSHServer.farSideEnvironment(home: server.directory + "/far/home") + [
                    "/usr/bin/python3", "-c", EchoServer.clientScript, remote, "ping",
                ]
            let answered = try await server.run(farSide)
            #expect(answered.status == 0, "\(answered.stderr) \(server.log)")
            #expect(answered.stdout == "echo ping\n")

            let environment = try await server.run(
                ["env", "-i"] + SSHServer.farSideEnvironment(home: server.directory + "/far/home") + ["/usr/bin/env"])
            #expect(environment.stdout.contains("HOME=\(server.directory)/far/home\n"))
            #expect(!environment.stdout.contains("SSH_"), "env -i leaves none of sshd's variables")

            await forward.kill()
            let cut = try await server.run(farSide)
            #expect(cut.status != 0, "the forwarded socket no longer answers once the connection is gone")
            #expect(cut.stdout.isEmpty)
        }
    }

    @Test(
        "A container reaches the socket it is given and nothing of the host's temporary files or network",
        TestFixture.mountNamespace.required, .timeLimit(.minutes(1)))
    func containerReachesOnlyTheGivenSocket() async throws {
        var template = Array("/tmp/webauth-harness-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let echo = try EchoServer(path: directory + "/local.sock")
        defer { echo.stop() }
        try "host secret".write(toFile: directory + "/host-file", atomically: true, encoding: .utf8)

        let answered = try await IsolatedContainer.run(
            ["/bin/sh", "-c", #"/usr/bin/python3 -c "$0" "$WEBAUTH_AGENT_SOCK" ping"#, EchoServer.clientScript],
            socket: echo.path)
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(answered.stdout == "echo ping\n")

        let looked = try await IsolatedContainer.run(
            [
                "/bin/sh", "-c",
                #"set -e; test ! -e "$0"; test -z "$(ls -A /tmp)"; test ! -e "$XDG_STATE_HOME"; "#
                    + #"test "$(grep -c : /proc/net/dev)" = 1; grep -q 'lo:' /proc/net/dev"#,
                directory + "/host-file",
            ], socket: echo.path)
        #expect(looked.status == 0, "host files, a store or a network were visible: \(looked.stderr)")
    }
}

/// A Unix-socket server (Debian's python3) that answers each connection's first line `x` with
/// `echo x` and closes it.
final class EchoServer: Sendable {
    let path: String
    private let process: Subprocess

    /// The client: connects to `argv[1]`, sends `argv[2]`, prints the answer.
    static let clientScript = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(sys.argv[1])
        s.sendall(sys.argv[2].encode() + b"\\n")
        print(s.makefile().readline().strip())
        """

    init(path: String) throws {
        self.path = path
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(16)
            while True:
                c, _ = s.accept()
                line = c.makefile().readline().strip()
                c.sendall(("echo " + line + "\\n").encode()); c.close()
            """
        process = try Subprocess(
            executable: "/usr/bin/python3", arguments: ["-c", script, path], environment: ["PATH": "/usr/bin:/bin"])
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: path) {
            guard ContinuousClock.now < deadline, !process.hasExited else {
                throw CLITestError("the echo server did not start")
            }
            // Real time is the point: a synchronous start that waits for python3 to bind.
            usleep(20_000)
        }
    }

    func stop() {
        process.send(SIGKILL)
        unlink(path)
    }
}
