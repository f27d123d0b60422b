import Foundation
import Synchronization
import WebAuthCore
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starting Firefox and finding its WebDriver BiDi endpoint.
///
/// Firefox has no pipe transport for WebDriver BiDi: `--remote-debugging-port=0` makes it listen
/// on a loopback TCP port of the system's choosing and print
/// `WebDriver BiDi listening on ws://127.0.0.1:PORT` on its standard error, which goes to a
/// private file (mode 0600 in a 0700 directory) that a dedicated thread watches — never a
/// thread of Swift's cooperative pool.
enum FirefoxLauncher {
    /// How waiting for the endpoint ended.
    enum EndpointWait: Sendable, Hashable {
        case ready(host: String, port: Int)
        case exited
        case timedOut
        case cancelled
    }

    /// The command-line arguments: `--profile DIR --no-remote --remote-debugging-port=0
    /// [--headless] EXTRA… about:blank`.
    static func arguments(profile: URL, headless: Bool, extra: [String]) -> [String] {
        var arguments = ["--profile", profile.path, "--no-remote", "--remote-debugging-port=0"]
        if headless { arguments.append("--headless") }
        return arguments + extra + ["about:blank"]
    }

    /// The BiDi endpoint announced in Firefox's output, if it is there and on a loopback address.
    static func parseEndpoint(_ output: String) -> (host: String, port: Int)? {
        let marker = "WebDriver BiDi listening on ws://"
        guard let start = output.range(of: marker)?.upperBound else { return nil }
        let rest = output[start...].prefix { !$0.isWhitespace && $0 != "/" }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.lowercased() == "localhost" { host = "127.0.0.1" }
        guard AuthorizationURLPolicy.isLoopback(host: host) else { return nil }
        return (host, port)
    }

    /// Waits on a dedicated thread until `outputFile` announces the endpoint, `process` exits,
    /// `timeout` passes, or the calling task is cancelled.
    static func waitForEndpoint(outputFile: String, process: Subprocess, timeout: Duration) async -> EndpointWait {
        let cancelled = CancellationFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<EndpointWait, Never>) in
                Thread.detachNewThread {
                    let deadline = ContinuousClock.now + timeout
                    while true {
                        let exited = process.hasExited
                        if let endpoint = parseEndpoint(readPrefix(of: outputFile)) {
                            continuation.resume(returning: .ready(host: endpoint.host, port: endpoint.port))
                            return
                        }
                        if exited {
                            continuation.resume(returning: .exited)
                            return
                        }
                        if cancelled.isSet {
                            continuation.resume(returning: .cancelled)
                            return
                        }
                        if ContinuousClock.now >= deadline {
                            continuation.resume(returning: .timedOut)
                            return
                        }
                        usleep(5_000)
                    }
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// The first 256 KiB of `path` as text (empty if unreadable).
    static func readPrefix(of path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 256 << 10)) ?? nil
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    /// The last `count` non-empty lines of `path`, each cut to 200 characters, for error messages.
    static func outputTail(of path: String, lines count: Int = 3) -> String {
        let lines = readPrefix(of: path).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.suffix(count).map { String($0.prefix(200)) }.joined(separator: " | ")
    }

    /// Creates an empty private output file (mode 0600) named like ephemeral profiles
    /// (`firefox_output-<pid>-<random>`), so the stale-profile sweep removes it if this process dies.
    static func makeOutputFile(environment: [String: String]) throws(WebAuthenticationSessionError) -> URL {
        let base = try BrowserProfile.ephemeralBase(environment: environment)
        let name = "firefox_output-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        let file = base.appendingPathComponent(name)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .browserLaunchFailed("cannot create \(file.path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        return file
    }

    /// The executable to run: `executable` as an absolute path, or looked up in `searchPath`
    /// (`firefox`, then `firefox-esr`, when `executable` is `nil`).
    static func resolve(executable: String?, searchPath: String?) -> String? {
        if let executable, executable.contains("/") {
            return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil
        }
        let names = executable.map { [$0] } ?? FirefoxBrowser.executableNames
        for name in names {
            for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// A flag set from a cancellation handler and read by a plain thread.
    final class CancellationFlag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }
}
