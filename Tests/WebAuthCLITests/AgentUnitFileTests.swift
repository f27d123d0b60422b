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

/// The user units in `contrib/systemd`, checked by systemd itself.
@Suite("The agent's systemd units")
struct AgentUnitFileTests {
    static let unitDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("contrib/systemd").path

    @Test(
        "systemd-analyze verify --user finds nothing to say about webauth-agent.socket and .service",
        TestFixture.systemdAnalyze.required, .timeLimit(.minutes(1)))
    func unitsVerify() async throws {
        let socketUnit = Self.unitDirectory + "/webauth-agent.socket"
        let serviceUnit = Self.unitDirectory + "/webauth-agent.service"
        let service = try String(contentsOfFile: serviceUnit, encoding: .utf8)
        let socket = try String(contentsOfFile: socketUnit, encoding: .utf8)
        #expect(socket.contains("ListenStream="), "the socket unit listens on a stream socket")
        #expect(service.contains("agent run"), "the service runs the agent in the foreground")

        // A user with a runtime directory (%t) and a home (%h); systemd's check runs offline
        // against copies of the units. ExecStart names the installed program
        // (/usr/local/bin/webauth): where that is not installed, the copy names the program just
        // built instead, as the unit's comment tells people who installed elsewhere to do.
        var template = Array("/tmp/webauth-units-XXXXXX".utf8CString)
        let root = String(cString: try #require(mkdtemp(&template)))
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = root + "/home"
        let runtime = root + "/run"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let execStart = try #require(
            service.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }, "the service has ExecStart")
        let program = String(
            execStart.dropFirst("ExecStart=".count).drop { "-@:+!".contains($0) }.split(separator: " ").first ?? "")
        #expect(program.hasPrefix("/"), "ExecStart names the program by its absolute path")
        var copiedService = service
        if !FileManager.default.isExecutableFile(atPath: program.replacingOccurrences(of: "%h", with: home)) {
            copiedService = service.replacingOccurrences(
                of: "ExecStart=\(program) ", with: "ExecStart=\(CLIProcess.executable.path) ")
            #expect(copiedService != service)
        }
        try socket.write(toFile: root + "/webauth-agent.socket", atomically: true, encoding: .utf8)
        try copiedService.write(toFile: root + "/webauth-agent.service", atomically: true, encoding: .utf8)

        let analyze = try #require(
            ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        let result = try Subprocess.runToCompletion(
            analyze,
            ["verify", "--user", "--man=no", root + "/webauth-agent.socket", root + "/webauth-agent.service"],
            environment: [
                "HOME": home, "XDG_RUNTIME_DIR": runtime, "PATH": "/usr/bin:/bin", "SYSTEMD_LOG_LEVEL": "notice",
                "LANG": "C.UTF-8",
            ])
        #expect(Subprocess.exitCode(of: result.status) == 0, "\(result.standardError)")
        #expect(
            result.standardError.isEmpty && result.standardOutput.isEmpty,
            "systemd-analyze verify warned: \(result.standardError)\(result.standardOutput)")
    }
}
