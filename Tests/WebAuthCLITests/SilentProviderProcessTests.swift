// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthEmbeddedProvider
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `webauth` and a provider it cannot reach: waiting for one that takes its connection and never
/// answers costs no CPU, and a connection that fails says why in words.
@Suite("webauth and a provider it cannot reach, run as processes")
struct SilentProviderProcessTests {
    @Test func fiveSecondsWaitingForASilentIssuerCostUnderAFifthOfASecondOfCPU() async throws {
        // Takes the request and answers only when the server shuts down.
        let silent: LoopbackHTTPServer.Handler = { _ in
            // Real time is the point: an answer that never comes while the client waits.
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
            // Real time is the point: CPU measured over five seconds of waiting.
            try await Task.sleep(for: .seconds(5))
            let used = try Self.cpuTime(of: login.pid) - before
            login.send(SIGTERM)
            _ = try await login.waitForEnd()
            // FoundationNetworking's libcurl loop took about a core for as long as it waited.
            #expect(used < .milliseconds(200), "\(used) of CPU in 5 s of waiting")
        }
    }

    @Test func httpsToAPlainHTTPServerSaysTheHandshakeFailedAndTheCodeOnlyWithVerbose() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        // A plain HTTP server takes the TLS greeting for the start of a request head, and
        // closes the connection when no head comes.
        let plainHTTP = LoopbackHTTPServer.Limits(connectionLifetime: .milliseconds(300))
        let answer: LoopbackHTTPServer.Handler = { _ in .json("{}") }
        try await LoopbackHTTPServer.withServer(limits: plainHTTP, handler: answer) { server in
            let issuer = server.baseURL.absoluteString.replacingOccurrences(of: "http://", with: "https://")
            let arguments = ["login", "--issuer", issuer, "--client-id", "x", "--no-browser"]
            let plain = try await CLIProcess.run(arguments, environment: sandbox.environment)
            #expect(plain.status == 11)
            #expect(
                plain.stderr.contains(
                    "/.well-known/openid-configuration: the TLS handshake failed (is it an http:// server, not https://?)"
                ),
                "\(plain.stderr)")
            #expect(!plain.stderr.contains("libcurl"), "the raw code only with --verbose")
            let verbose = try await CLIProcess.run(arguments + ["--verbose"], environment: sandbox.environment)
            #expect(verbose.status == 11)
            #expect(verbose.stderr.contains("libcurl error 35"), "\(verbose.stderr)")
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
