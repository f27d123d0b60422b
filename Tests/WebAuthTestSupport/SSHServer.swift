// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A real OpenSSH server on 127.0.0.1 for one test: Debian's `sshd` on a free port, with a host
/// key and one authorized client key made for it in a private temporary directory, public-key
/// login only (no PAM, no password), and Unix-socket forwarding allowed. The client side is
/// Debian's `ssh` in batch mode with a known-hosts file of its own, so nothing in `~/.ssh` is
/// read or written.
///
/// ```swift
/// try await SSHServer.withServer { server in
///     let forward = try server.forward(remote: server.directory + "/agent.sock", to: localSocket)
///     try await forward.waitUntilListening()
///     let result = try await server.run(["env", "-i", "HOME=/nonexistent", webauth, "token"])
///     await forward.stop()
/// }
/// ```
///
/// The "far side" is this machine reached through sshd: commands run as this user, in a fresh
/// login session with sshd's own environment. Give them an empty one with `env -i` (see
/// ``farSideEnvironment(home:)``). `StrictModes` is off: the keys live in a 0700 directory of
/// this user's under `/tmp`, whose world-writable parent OpenSSH's strict check rejects.
public final class SSHServer: Sendable {
    /// The private directory holding the keys, the configuration and the known-hosts file;
    /// sockets a test forwards may go here too. Removed by ``stop()``.
    public let directory: String
    /// The port sshd listens on (127.0.0.1 only).
    public let port: Int
    /// The user the client logs in as: this process's own.
    public let user: String
    private let process: Subprocess

    /// `sshd`, found in `/usr/sbin` or on `PATH`; `nil` when OpenSSH's server is not installed.
    public static var serverExecutable: String? {
        let searchPath = "/usr/sbin:/sbin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return TestBrowsers.executablePath(named: "sshd", searchPath: searchPath)
    }

    /// `ssh`, `ssh-keygen`: OpenSSH's client programs on `PATH` (or in `/usr/bin`).
    static func clientExecutable(_ name: String) -> String? {
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin:/bin"
        return TestBrowsers.executablePath(named: name, searchPath: searchPath)
    }

    private init(directory: String, port: Int, user: String, process: Subprocess) {
        self.directory = directory
        self.port = port
        self.user = user
        self.process = process
    }

    /// Starts a server, runs `body` with it, and stops it however `body` ends.
    public static func withServer<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (SSHServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Makes the keys and the configuration, starts `sshd -D` on a free port, and returns once
    /// a client has logged in (at most `timeout`).
    public static func start(timeout: Duration = .seconds(30)) async throws -> SSHServer {
        guard let sshd = serverExecutable else {
            throw SSHServerError("sshd is not installed (apt-get install openssh-server)")
        }
        guard let keygen = clientExecutable("ssh-keygen") else { throw SSHServerError("ssh-keygen is not installed") }
        var template = Array("/tmp/webauth-sshd-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SSHServerError("mkdtemp failed") }
        let directory = String(cString: made)
        do {
            // sshd refuses to start without its privilege-separation directory (made by the
            // package's service on a booted system, absent in a container).
            if geteuid() == 0, !FileManager.default.fileExists(atPath: "/run/sshd") {
                try FileManager.default.createDirectory(
                    atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            }
            for key in ["host_key", "client_key"] {
                let made = try Subprocess.runToCompletion(
                    keygen, ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", "\(directory)/\(key)"],
                    environment: ["PATH": "/usr/bin:/bin"])
                guard Subprocess.exitCode(of: made.status) == 0 else {
                    throw SSHServerError("ssh-keygen failed: \(made.standardError)")
                }
            }
            try FileManager.default.copyItem(
                atPath: "\(directory)/client_key.pub", toPath: "\(directory)/authorized_keys")
            let user = Self.currentUserName()
            var lastFailure = ""
            // A free port is found by binding port 0 and letting it go; another process may take
            // it in between, so a failed start is tried again on a new port.
            for _ in 0..<5 {
                let port = try freeLoopbackPort()
                try configuration(directory: directory, port: port)
                    .write(toFile: "\(directory)/sshd_config", atomically: true, encoding: .utf8)
                let hostKey = try String(contentsOfFile: "\(directory)/host_key.pub", encoding: .utf8)
                    .split(separator: " ").prefix(2).joined(separator: " ")
                try "[127.0.0.1]:\(port) \(hostKey)\n"
                    .write(toFile: "\(directory)/known_hosts", atomically: true, encoding: .utf8)
                let log = "\(directory)/sshd.log"
                let process = try Subprocess(
                    executable: sshd, arguments: ["-D", "-e", "-f", "\(directory)/sshd_config"],
                    environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], standardError: .file(log))
                let server = SSHServer(directory: directory, port: port, user: user, process: process)
                if await server.waitUntilReady(timeout: timeout) { return server }
                lastFailure = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                await process.terminate()
            }
            throw SSHServerError("sshd did not start: \(lastFailure)")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Stops sshd (and every session it started) and removes the directory.
    public func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What sshd wrote (errors only): for a failure's message.
    public var log: String {
        (try? String(contentsOfFile: "\(directory)/sshd.log", encoding: .utf8)) ?? ""
    }

    /// The `ssh` arguments before the destination: this server's port and key, batch mode, the
    /// private known-hosts file with strict checking, no configuration file, bounded waits.
    public var clientOptions: [String] {
        [
            "-F", "none", "-p", String(port), "-i", "\(directory)/client_key",
            "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
            "-o", "UserKnownHostsFile=\(directory)/known_hosts", "-o", "GlobalKnownHostsFile=/dev/null",
            "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5",
            "-o", "ServerAliveCountMax=2", "-o", "LogLevel=ERROR",
        ]
    }

    /// `user@127.0.0.1`.
    public var destination: String { "\(user)@127.0.0.1" }

    /// An environment for the far side with nothing of this machine's sign-ins: `HOME` and the
    /// XDG directories (state, config, data, cache, runtime) all in `home`, which the caller
    /// made empty; a plain `PATH`; no D-Bus session. As `env -i` arguments: `["env", "-i"] +
    /// farSideEnvironment(home:) + [program, …]`.
    public static func farSideEnvironment(home: String) -> [String] {
        [
            "HOME=\(home)", "XDG_STATE_HOME=\(home)/.local/state", "XDG_CONFIG_HOME=\(home)/.config",
            "XDG_DATA_HOME=\(home)/.local/share", "XDG_CACHE_HOME=\(home)/.cache", "XDG_RUNTIME_DIR=\(home)/run",
            "PATH=/usr/bin:/bin", "NO_COLOR=1",
        ]
    }

    /// Runs `command` on the far side through a new ssh connection and returns its exit status
    /// and output; standard input from `input` when given. The arguments are quoted for the
    /// remote shell, so each reaches the program as one argument.
    public func run(
        _ command: [String], input: String? = nil, timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        guard let ssh = Self.clientExecutable("ssh") else { throw SSHServerError("ssh is not installed") }
        let arguments = clientOptions + [destination, Self.remoteCommand(command)]
        return try await CapturedRun.run(
            ssh, arguments, environment: Self.clientEnvironment, input: input, directory: directory, timeout: timeout)
    }

    /// Starts `ssh -N -R remote:local`: a connection that only forwards the far side's Unix
    /// socket `remote` to the local socket `local` (`ExitOnForwardFailure`, an existing socket
    /// file at `remote` replaced). Stop it with ``Forward/stop()``, or kill it with
    /// ``Forward/kill()`` to cut the connection.
    public func forward(remote: String, to local: String) throws -> Forward {
        guard let ssh = Self.clientExecutable("ssh") else { throw SSHServerError("ssh is not installed") }
        let log = "\(directory)/forward-\(UUID().uuidString).log"
        let process = try Subprocess(
            executable: ssh,
            arguments: clientOptions + [
                "-N", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes", "-R", "\(remote):\(local)",
                destination,
            ],
            environment: Self.clientEnvironment, standardError: .file(log))
        return Forward(process: process, remotePath: remote, log: log)
    }

    /// One `ssh -R` connection (see ``SSHServer/forward(remote:to:)``).
    public final class Forward: Sendable {
        private let process: Subprocess
        /// The far side's socket path.
        public let remotePath: String
        private let logPath: String

        init(process: Subprocess, remotePath: String, log: String) {
            self.process = process
            self.remotePath = remotePath
            self.logPath = log
        }

        /// The ssh client's process ID.
        public var pid: pid_t { process.pid }

        /// What the ssh client wrote on standard error.
        public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        /// Waits until sshd listens on the far side's socket (the socket file exists: sshd binds
        /// and listens in one step), at most `timeout`; throws with ssh's messages when the
        /// connection ended or the time passed. Checked without connecting, so the program
        /// behind the local socket sees no stray connection.
        public func waitUntilListening(timeout: Duration = .seconds(30)) async throws {
            let remotePath = remotePath
            let listening = await eventually(within: timeout) {
                var info = stat()
                return process.hasExited || (lstat(remotePath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK)
            }
            if process.hasExited { throw SSHServerError("ssh -R ended: \(log)") }
            if listening { return }
            throw SSHServerError("the forwarded socket \(remotePath) did not appear: \(log)")
        }

        /// Ends the connection as a dropped network would: `SIGKILL` to the ssh client.
        public func kill() async {
            process.send(SIGKILL)
            await process.waitForExit()
        }

        /// Ends the connection normally.
        public func stop() async { await process.terminate() }
    }

    // MARK: - Helpers

    /// The ssh client's environment: no agent, no display (so no askpass), a plain `PATH`, and
    /// `HOME` at the server's directory so `~/.ssh` is never this user's.
    private static var clientEnvironment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LANG": "C.UTF-8"]
    }

    /// `command` as one string for the remote shell, each argument single-quoted.
    public static func remoteCommand(_ command: [String]) -> String {
        command.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }.joined(separator: " ")
    }

    private static func configuration(directory: String, port: Int) -> String {
        """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(directory)/host_key
        PidFile none
        AuthorizedKeysFile \(directory)/authorized_keys
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        UsePAM no
        PermitRootLogin prohibit-password
        StrictModes no
        AllowStreamLocalForwarding yes
        StreamLocalBindUnlink yes
        X11Forwarding no
        PrintMotd no
        PrintLastLog no
        MaxStartups 100:30:200
        LogLevel ERROR

        """
    }

    /// Whether a client can log in (and run `true`) yet.
    private func waitUntilReady(timeout: Duration) async -> Bool {
        var ready = false
        _ = await eventually(within: timeout) {
            if process.hasExited { return true }
            ready = (try? await run(["true"], timeout: .seconds(10)))?.status == 0
            return ready
        }
        return ready
    }

    private static func currentUserName() -> String {
        if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? "root"
    }

    private static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SSHServerError("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw SSHServerError("cannot bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Whether a Unix socket at `path` accepts a connection now.
public func unixSocketAccepts(_ path: String) -> Bool {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        buffer.copyBytes(from: bytes)
        buffer[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
        }
    }
}

/// The OpenSSH harness could not do what a test asked.
public struct SSHServerError: Error, CustomStringConvertible {
    /// What went wrong, with the programs' own messages.
    public let description: String
    init(_ description: String) { self.description = description }
}
