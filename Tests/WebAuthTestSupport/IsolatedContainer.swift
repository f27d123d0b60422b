// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A program run as in a container that is given one Unix socket and nothing else of this
/// machine's sign-ins: a fresh mount namespace and a fresh network namespace (`unshare --mount
/// --net`), where
///
/// - the socket is bind-mounted at `ROOT/run/agent.sock` inside a new, empty tmpfs `ROOT`
///   (under `/run`), which also holds the program's empty `HOME` and XDG directories;
/// - `/tmp`, `/var/tmp`, `/root`, `/home` and `/run/user` are covered by empty tmpfs mounts, so
///   no token file, profile index or other socket of the host is reachable;
/// - the network has only a loopback interface that is down: the program cannot reach a
///   provider, so every token it prints came through the socket.
///
/// The program's own files stay visible read-write as on the host — `/usr`, and each directory
/// named in `keeping` (the package's build directory), bound back at its own path when it lies
/// under one of the covered directories (a checkout in `/tmp`, say): this isolates credentials,
/// not code. Needs root (see ``TestFixture/mountNamespace``).
public enum IsolatedContainer {
    /// The path the socket has inside the container, for a root made at `root`.
    public static func socketPath(root: String) -> String { root + "/run/agent.sock" }

    /// Why containers cannot be made here, or `nil` when they can.
    public static func problem() async -> String? {
        if geteuid() != 0 { return "not root: only root can make mount namespaces here" }
        guard let unshare = TestBrowsers.executablePath(named: "unshare", searchPath: systemPath) else {
            return "no unshare (util-linux)"
        }
        do {
            let process = try Subprocess(
                executable: unshare,
                arguments: [
                    "--mount", "--net", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs probe /mnt",
                ],
                environment: ["PATH": systemPath], newProcessGroup: false)
            let status = await process.exitStatus()
            return Subprocess.exitCode(of: status) == 0 ? nil : "unshare --mount --net is not permitted here"
        } catch {
            return "unshare does not run: \(error)"
        }
    }

    /// Runs `command` (an absolute program path and its arguments) in a new container given the
    /// socket `socket`, with `WEBAUTH_AGENT_SOCK` naming it inside and `environment` added;
    /// standard input from `input` when given; `keeping` names directories the program needs
    /// that must stay visible at their paths. Returns the exit status and the output; the
    /// container is gone when this returns.
    public static func run(
        _ command: [String], socket: String, keeping: [String] = [], environment: [String: String] = [:],
        input: String? = nil, timeout: Duration = .seconds(60)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        guard let unshare = TestBrowsers.executablePath(named: "unshare", searchPath: systemPath) else {
            throw ContainerError("no unshare (util-linux)")
        }
        var template = Array("/run/webauth-container-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ContainerError("mkdtemp under /run failed") }
        let root = String(cString: made)
        // Output is collected outside the container's view, in a directory the host keeps.
        var outputTemplate = Array("/tmp/webauth-container-output-XXXXXX".utf8CString)
        guard let madeOutput = mkdtemp(&outputTemplate) else {
            rmdir(root)
            throw ContainerError("mkdtemp failed")
        }
        let outputDirectory = String(cString: madeOutput)
        defer {
            try? FileManager.default.removeItem(atPath: outputDirectory)
            rmdir(root)  // the tmpfs went with the namespace: only the empty mount point is left
        }
        var inside = [
            "HOME=\(root)/home", "XDG_STATE_HOME=\(root)/home/.local/state", "XDG_CONFIG_HOME=\(root)/home/.config",
            "XDG_DATA_HOME=\(root)/home/.local/share", "XDG_CACHE_HOME=\(root)/home/.cache",
            "XDG_RUNTIME_DIR=\(root)/home/run", "PATH=/usr/bin:/bin", "NO_COLOR=1",
            "WEBAUTH_AGENT_SOCK=\(socketPath(root: root))",
        ]
        inside += environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let script = """
            set -eu
            root=$1; socket=$2; keeping=$3; shift 3
            mount -t tmpfs -o mode=0755,size=16m webauth-container "$root"
            mkdir -p "$root/run" "$root/home/run" "$root/kept"
            chmod 0700 "$root/home/run"
            : > "$root/run/agent.sock"
            mount --bind "$socket" "$root/run/agent.sock"
            # Directories to keep: held inside the root while their parents are covered.
            count=0
            for kept in $keeping; do
                count=$((count + 1)); mkdir -p "$root/kept/$count"; mount --bind "$kept" "$root/kept/$count"
            done
            for hidden in /tmp /var/tmp /root /home /run/user; do
                if [ -d "$hidden" ]; then mount -t tmpfs -o mode=0755,size=1m webauth-hidden "$hidden"; fi
            done
            count=0
            for kept in $keeping; do
                count=$((count + 1))
                if [ ! -d "$kept" ]; then mkdir -p "$kept"; mount --bind "$root/kept/$count" "$kept"; fi
            done
            cd "$root/home"
            exec env -i "$@"
            """
        // The script splits the list at spaces: a directory whose path has one cannot be kept.
        if let spaced = keeping.first(where: { $0.contains(where: \.isWhitespace) }) {
            throw ContainerError("cannot keep \(spaced) visible: its path has a space")
        }
        let arguments = [
            "--mount", "--net", "--propagation", "private", "/bin/sh", "-c", script, "container", root, socket,
            keeping.joined(separator: " "),
        ]
        return try await CapturedRun.run(
            unshare, arguments + inside + command, environment: ["PATH": Self.systemPath], input: input,
            directory: outputDirectory, timeout: timeout)
    }

    private static let systemPath = "/usr/sbin:/usr/bin:/sbin:/bin"
}

/// The container harness could not do what a test asked.
public struct ContainerError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
