import Foundation
import Testing
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `webauth` waiting for a provider that takes its connection and never answers: the wait
/// must cost no CPU, however long the request timeout.
@Suite("webauth waiting for a silent provider, run as processes")
struct SilentProviderProcessTests {
    @Test func fiveSecondsWaitingForASilentIssuerCostUnderAFifthOfASecondOfCPU() async throws {
        // Takes the request and answers only when the server shuts down.
        let silent: LoopbackHTTPServer.Handler = { _ in
            try? await Task.sleep(for: .seconds(3600))
            return .json("{}")
        }
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await LoopbackHTTPServer.withServer(handler: silent) { server in
            let login = try CLIProcess(
                ["login", "--issuer", server.baseURL.absoluteString, "--client-id", "x", "--no-browser"],
                environment: sandbox.environment)
            #expect(await eventually { await !server.requests.isEmpty }, "the discovery request arrives")
            let before = try Self.cpuTime(of: login.pid)
            try await Task.sleep(for: .seconds(5))
            let used = try Self.cpuTime(of: login.pid) - before
            login.send(SIGTERM)
            _ = try await login.waitForEnd()
            // FoundationNetworking's libcurl loop took about a core for as long as it waited.
            #expect(used < .milliseconds(200), "\(used) of CPU in 5 s of waiting")
        }
    }

    /// The user and system CPU time `pid` has used so far, from `/proc/PID/stat`.
    private static func cpuTime(of pid: pid_t) throws -> Duration {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command's name is in parentheses and may hold spaces: count fields after it.
        guard let end = stat.lastIndex(of: ")") else { throw CLITestError("unreadable: \(stat)") }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw CLITestError("unreadable: \(stat)")
        }
        let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
        return .milliseconds((user + system) * 1000 / ticksPerSecond)
    }
}
