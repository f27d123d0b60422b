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
/// The program's own files (the package's build directory, `/usr`) stay visible read-write as
/// on the host: this isolates credentials, not code. Needs root (see
/// ``TestFixture/mountNamespace``).
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
    /// standard input from `input` when given. Returns the exit status and the output; the
    /// container is gone when this returns.
    public static func run(
        _ command: [String], socket: String, environment: [String: String] = [:], input: String? = nil,
        timeout: Duration = .seconds(60)
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
            root=$1; socket=$2; shift 2
            mount -t tmpfs -o mode=0755,size=16m webauth-container "$root"
            mkdir -p "$root/run" "$root/home/run"
            chmod 0700 "$root/home/run"
            : > "$root/run/agent.sock"
            mount --bind "$socket" "$root/run/agent.sock"
            for hidden in /tmp /var/tmp /root /home /run/user; do
                if [ -d "$hidden" ]; then mount -t tmpfs -o mode=0755,size=1m webauth-hidden "$hidden"; fi
            done
            cd "$root/home"
            exec env -i "$@"
            """
        let arguments = [
            "--mount", "--net", "--propagation", "private", "/bin/sh", "-c", script, "container", root, socket,
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
