// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform
import WebAuthProcess

/// A valid token as a whole process, beside the floor of any program: oidc-agent's C client
/// `oidc-token`, and the smallest programs of each kind, built here (a C "hello" linked
/// dynamically, a Swift one linked with `-static-executable` and one with `-static-stdlib`).
/// Every command runs in turn, round after round, so that the machine's load falls on all of
/// them alike; then eight of each at once. `WEBAUTH_BENCHMARK_BASELINE` names another `webauth`
/// executable to measure in the same rounds, reading the same file store (a build before a
/// change, say).
enum FloorBenchmarks {
    /// One command's figures: wall time and CPU time (user and system, from `wait4`) per call,
    /// the same when eight run at once, and the median peak resident memory under GNU time.
    struct Row {
        var label: String
        var command: CLIBenchmarks.TimedCommand
        var wall = Figures()
        var cpu = Figures()
        var concurrentWall = Figures()
        var peakKiB: Int?
    }

    static let fileLabel = "webauth token, file store"
    static let agentLabel = "webauth token, through webauth agent"
    static let oidcLabel = "oidc-token (oidc-agent)"
    static let cHelloLabel = "C hello, dynamic (cc -O2)"
    static let staticExecutableLabel = "Swift hello, -static-executable"
    static let staticStdlibLabel = "Swift hello, -static-stdlib"

    /// Prints the token-at-the-floor table, with the targets beside the figures.
    static func printFigures(webauth: String, rounds: Int = 300, concurrentRounds: Int = 40) async throws {
        let directory = try CLIBenchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hellos = try buildHellos(in: directory)
        try await AgentBenchmarks.withTokenSetup(webauth: webauth) { setup in
            var rows = [Row(label: fileLabel, command: setup.file), Row(label: agentLabel, command: setup.agent)]
            if let oidcToken = setup.oidcToken { rows.insert(Row(label: oidcLabel, command: oidcToken), at: 0) }
            // Another build of webauth beside this one, measured in the same rounds.
            if let baseline = ProcessInfo.processInfo.environment["WEBAUTH_BENCHMARK_BASELINE"], !baseline.isEmpty {
                var command = setup.file
                command.executable = baseline
                command.label = "\(fileLabel), WEBAUTH_BENCHMARK_BASELINE"
                rows.append(Row(label: command.label, command: command))
            }
            rows += hellos.map { Row(label: $0.label, command: $0.command) }
            try measure(&rows, rounds: rounds, concurrentRounds: concurrentRounds, scratch: directory)
            let agentCPU = try agentCPUPerRequest(setup, scratch: directory)
            printTable(rows, hellosMissing: hellos.count < 3, agentCPU: agentCPU)
        }
    }

    // MARK: Building the floors

    /// The hello programs this machine can build: `cc` for C, `swiftc` for Swift.
    static func buildHellos(in directory: String) throws -> [(label: String, command: CLIBenchmarks.TimedCommand)] {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        try "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n"
            .write(toFile: directory + "/hello.c", atomically: true, encoding: .utf8)
        try "print(\"hello\")\n".write(toFile: directory + "/hello.swift", atomically: true, encoding: .utf8)
        var builds: [(String, String, [String])] = []
        if let cc = CLIBenchmarks.executable(named: "cc", in: searchPath) {
            builds.append((cHelloLabel, cc, ["-O2", "-o", directory + "/hello-c", directory + "/hello.c"]))
        }
        if let swiftc = CLIBenchmarks.executable(named: "swiftc", in: searchPath) {
            for (label, flag, name) in [
                (staticExecutableLabel, "-static-executable", "hello-static-executable"),
                (staticStdlibLabel, "-static-stdlib", "hello-static-stdlib"),
            ] {
                builds.append((label, swiftc, ["-O", flag, "-o", directory + "/" + name, directory + "/hello.swift"]))
            }
        }
        return try builds.map { label, compiler, arguments in
            let built = try Subprocess.runToCompletion(compiler, arguments, environment: ["PATH": searchPath])
            guard Subprocess.exitCode(of: built.status) == 0, let output = arguments.firstIndex(of: "-o") else {
                throw BenchmarkFailure("building the \(label) failed: \(built.standardError)")
            }
            let command = CLIBenchmarks.TimedCommand(
                label: label, executable: arguments[output + 1], arguments: [], environment: [:], input: nil,
                expectedOutput: { $0 == "hello\n" })
            return (label, command)
        }
    }

    // MARK: Measuring

    /// A started child: its process ID, when it was started, and the file its output goes to.
    struct Started {
        var pid: pid_t
        var started: ContinuousClock.Instant
        var output: Int32
    }

    /// Starts `command` with standard input from `input` (default `/dev/null`), standard output
    /// into `output` (an open file, emptied first) and standard error into `errorPath`.
    static func start(
        _ command: CLIBenchmarks.TimedCommand, output: Int32, errorPath: String, input: String = "/dev/null"
    ) throws -> Started {
        _ = ftruncate(output, 0)
        _ = lseek(output, 0, SEEK_SET)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let arguments = [command.executable] + command.arguments
        let environment = command.environment.map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let status = posix_spawn(&pid, command.executable, &actions, nil, &argv, &envp)
        guard status == 0 else { throw BenchmarkFailure("cannot start \(command.executable): errno \(status)") }
        return Started(pid: pid, started: started, output: output)
    }

    /// Waits for `child`; its wall time, CPU time, and whether its exit status and output are
    /// what `command` expects.
    static func finish(_ child: Started, _ command: CLIBenchmarks.TimedCommand) throws -> (Duration, Duration) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(child.pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let wall = ContinuousClock.now - child.started
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        let count = pread(child.output, &bytes, bytes.count, 0)
        let output = String(decoding: bytes[..<max(0, count)], as: UTF8.self)
        guard Subprocess.exitCode(of: status) == 0, command.expectedOutput(output) else {
            throw BenchmarkFailure("\(command.label) failed (status \(status))")
        }
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return (wall, duration(usage.ru_utime) + duration(usage.ru_stime))
    }

    /// Measures every row: five warm-up calls each, `rounds` rounds of one call of each (in an
    /// order that turns each round), `concurrentRounds` rounds of eight calls of each at once,
    /// then peak memory.
    static func measure(_ rows: inout [Row], rounds: Int, concurrentRounds: Int, scratch: String) throws {
        let errorPath = scratch + "/standard-error"
        let outputs = try (0..<8).map { index -> Int32 in
            let descriptor = open(scratch + "/output-\(index)", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw BenchmarkFailure("cannot open an output file in \(scratch)") }
            return descriptor
        }
        defer { for descriptor in outputs { close(descriptor) } }
        for row in rows {
            for _ in 0..<5 {
                _ = try finish(try start(row.command, output: outputs[0], errorPath: errorPath), row.command)
            }
        }
        for round in 0..<rounds {
            for offset in 0..<rows.count {
                let index = (round + offset) % rows.count
                let (wall, cpu) = try finish(
                    try start(rows[index].command, output: outputs[0], errorPath: errorPath), rows[index].command)
                rows[index].wall.add(wall)
                rows[index].cpu.add(cpu)
            }
        }
        for round in 0..<concurrentRounds {
            for offset in 0..<rows.count {
                let index = (round + offset) % rows.count
                for wall in try eightAtOnce(rows[index].command, outputs: outputs, errorPath: errorPath) {
                    rows[index].concurrentWall.add(wall)
                }
            }
        }
        for index in rows.indices { rows[index].peakKiB = try peakKiB(rows[index].command, scratch: scratch) }
    }

    /// Eight calls of `command` started together, each on a thread of its own that starts it
    /// and waits for it: the wall time of each.
    static func eightAtOnce(_ command: CLIBenchmarks.TimedCommand, outputs: [Int32], errorPath: String) throws
        -> [Duration]
    {
        let results = Locked<[Result<Duration, any Error>]>([])
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for output in outputs {
            ready.enter()
            done.enter()
            Thread.detachNewThread {
                ready.leave()
                go.wait()
                let result = Result { try finish(try start(command, output: output, errorPath: errorPath), command).0 }
                results.withLock { $0.append(result) }
                done.leave()
            }
        }
        ready.wait()
        for _ in outputs { go.signal() }
        done.wait()
        return try results.withLock { $0 }.map { try $0.get() }
    }

    /// The median peak resident memory of `command` over ten runs under GNU time (`nil` without
    /// `/usr/bin/time`): GNU time starts it from a small process, so the figure is the
    /// command's own.
    static func peakKiB(_ command: CLIBenchmarks.TimedCommand, runs: Int = 10, scratch: String) throws -> Int? {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { return nil }
        var peaks: [Int] = []
        for _ in 0..<runs {
            let report = scratch + "/time"
            let completion = try Subprocess.runToCompletion(
                time, ["-f", "%M", "-o", report, command.executable] + command.arguments,
                environment: command.environment)
            guard Subprocess.exitCode(of: completion.status) == 0,
                let text = try? String(contentsOfFile: report, encoding: .utf8),
                let kib = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw BenchmarkFailure("\(command.label) under GNU time failed: \(completion.standardError)") }
            peaks.append(kib)
        }
        return peaks.sorted()[peaks.count / 2]
    }

    /// The CPU time (user and system) each agent spends on one request: its `/proc` counters
    /// over 200 sequential calls, divided by 200; `nil` for an agent that is not running.
    static func agentCPUPerRequest(_ setup: AgentBenchmarks.TokenSetup, scratch: String) throws
        -> (webauth: Double?, oidcAgent: Double?)
    {
        let output = open(scratch + "/agent-output", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw BenchmarkFailure("cannot open an output file in \(scratch)") }
        defer { close(output) }
        func perRequest(_ command: CLIBenchmarks.TimedCommand, _ pid: pid_t) throws -> Double? {
            guard let before = cpuMilliseconds(of: pid) else { return nil }
            let calls = 200
            for _ in 0..<calls {
                _ = try finish(try start(command, output: output, errorPath: scratch + "/standard-error"), command)
            }
            guard let after = cpuMilliseconds(of: pid) else { return nil }
            return (after - before) / Double(calls)
        }
        return (
            try perRequest(setup.agent, setup.agentProcess),
            try setup.oidcToken.flatMap { command in try setup.oidcAgentProcess.flatMap { try perRequest(command, $0) }
            }
        )
    }

    /// A process's user and system time so far, in milliseconds, from `/proc/PID/stat`.
    static func cpuMilliseconds(of pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    // MARK: The table

    static func printTable(_ rows: [Row], hellosMissing: Bool, agentCPU: (webauth: Double?, oidcAgent: Double?)) {
        func row(_ label: String) -> Row? { rows.first { $0.label == label } }
        let oidc = row(oidcLabel)
        let cHello = row(cHelloLabel)
        func ratio(_ value: Double, _ base: Double?) -> String {
            base.map { String(format: "%6.2f", value / $0) } ?? "     –"
        }
        func milliseconds(_ value: Double) -> String { String(format: "%7.2f ms", value) }
        print(
            "a valid token, whole process: every command in turn, \(rows.first?.wall.samples.count ?? 0) rounds; "
                + "eight at once, \(rows.first.map { $0.concurrentWall.samples.count / 8 } ?? 0) rounds "
                + "(medians; CPU: user + system of the call, from wait4; peak: GNU time's maxrss)")
        print(
            "".padding(toLength: 40, withPad: " ", startingAt: 0)
                + "     median  ÷ oidc ÷ C hello         CPU   peak MiB   8 at once  ÷ oidc")
        for entry in rows {
            let median = entry.wall.median
            let concurrent = entry.concurrentWall.median
            let peak = entry.peakKiB.map { String(format: "%10.1f", Double($0) / 1024) } ?? "         –"
            print(
                entry.label.padding(toLength: 40, withPad: " ", startingAt: 0) + milliseconds(median) + "  "
                    + ratio(median, oidc?.wall.median) + "    " + ratio(median, cHello?.wall.median) + "  "
                    + milliseconds(entry.cpu.median) + peak + "  " + milliseconds(concurrent) + "  "
                    + ratio(concurrent, oidc?.concurrentWall.median))
        }
        if oidc == nil { print("oidc-token: not installed (Debian's oidc-agent package)") }
        if hellosMissing { print("some hello floors were not built: cc and swiftc are needed on PATH") }
        if let webauth = agentCPU.webauth {
            let other = agentCPU.oidcAgent.map { String(format: "; oidc-agent %.3f ms", $0) } ?? ""
            print(
                String(
                    format: "the agent's CPU per request (its /proc counters over 200 calls): webauth agent %.3f ms",
                    webauth) + other)
        }

        // The targets of "a token at the floor", each with today's figure.
        guard let file = row(fileLabel), let agent = row(agentLabel) else { return }
        func verdict(_ name: String, _ value: Double, atMost target: Double, _ unit: String) -> String {
            let met = value <= target
            let by = met ? "" : String(format: ", missed by %.0f%%", (value / target - 1) * 100)
            let figures = String(format: "%.2f", value) + unit + " (target ≤ " + String(format: "%.2f", target) + unit
            return "  " + (met ? "met    " : "MISSED ") + name + ": " + figures + by + ")"
        }
        print("targets:")
        if let oidc {
            for (name, entry) in [("file store", file), ("through the agent", agent)] {
                print(verdict("\(name), ÷ oidc-token", entry.wall.median / oidc.wall.median, atMost: 0.9, "×"))
                print(
                    verdict(
                        "\(name), 8 at once, ÷ oidc-token",
                        entry.concurrentWall.median / oidc.concurrentWall.median, atMost: 0.9, "×"))
            }
        } else {
            print("  (the ratios to oidc-token need oidc-agent installed)")
        }
        for (name, entry) in [("file store", file), ("through the agent", agent)] {
            if let peak = entry.peakKiB {
                print(verdict("\(name), peak memory", Double(peak) / 1024, atMost: 4, " MiB"))
            }
        }
        print(
            verdict(
                "through the agent ÷ file store, 8 at once", agent.concurrentWall.median / file.concurrentWall.median,
                atMost: 1, "×"))
        print("")
    }
}
