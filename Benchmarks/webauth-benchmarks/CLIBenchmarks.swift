import Foundation
import WebAuthOAuth
import WebAuthProcess
import WebAuthTokenStore

/// Figures for the `webauth` program itself, run as a person or a script runs it: the program
/// built next to this one (`swift build -c release` builds both).
enum CLIBenchmarks {
    /// The `webauth` executable beside this benchmark, if it has been built.
    static func webauthExecutable() -> String? {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let path = directory.appendingPathComponent("webauth").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// `webauth token` with a valid cached token in a file store: wall time per call and the
    /// largest peak resident set size of any call.
    ///
    /// Run before anything else starts a child process: the peak comes from
    /// `getrusage(RUSAGE_CHILDREN)`, which covers every child waited for so far.
    static func tokenCommand(webauth: String, runs: Int = 100) async throws -> (wall: Figures, peakKiB: Int) {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["XDG_STATE_HOME": home + "/state", "XDG_CONFIG_HOME": home + "/config", "HOME": home]

        let store = try FileTokenStore(directory: FileTokenStore.defaultDirectory(environment: environment))
        let tokens = TokenSet(
            accessToken: "benchmark-access-token", refreshToken: "benchmark-refresh-token",
            expiresAt: Date().addingTimeInterval(24 * 3600), scopes: ["openid", "profile"])
        try await store.save(StoredTokens(tokens: tokens, clientID: "benchmark"), profile: "default")

        var wall = Figures()
        for index in 0..<(runs + 5) {
            let started = ContinuousClock.now
            let completion = try Subprocess.runToCompletion(
                webauth, ["token", "--store", "file"], environment: environment)
            let elapsed = ContinuousClock.now - started
            guard Subprocess.exitCode(of: completion.status) == 0,
                completion.standardOutput == "benchmark-access-token\n"
            else {
                throw BenchmarkFailure("webauth token failed: \(completion.standardError)")
            }
            if index >= 5 { wall.add(elapsed) }  // the first runs warm the page cache
        }
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return (wall, usage.ru_maxrss)
    }

    /// `webauth demo --no-browser --json` end to end, split by the steps it reports.
    static func demo(webauth: String, runs: Int = 10) async throws -> (steps: [(String, Figures)], total: Figures) {
        let home = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = home + "/state"
        environment["XDG_CONFIG_HOME"] = home + "/config"

        var order: [String] = []
        var steps: [String: Figures] = [:]
        var total = Figures()
        for _ in 0..<runs {
            let started = ContinuousClock.now
            let completion = try Subprocess.runToCompletion(
                webauth, ["demo", "--no-browser", "--json"], environment: environment)
            total.add(ContinuousClock.now - started)
            guard Subprocess.exitCode(of: completion.status) == 0,
                let report = try? JSONDecoder().decode(DemoReport.self, from: Data(completion.standardOutput.utf8))
            else {
                throw BenchmarkFailure("webauth demo failed: \(completion.standardError)")
            }
            for step in report.steps {
                if steps[step.step] == nil { order.append(step.step) }
                steps[step.step, default: Figures()].add(.microseconds(Int64(step.milliseconds * 1000)))
            }
        }
        return (order.map { ($0, steps[$0] ?? Figures()) }, total)
    }

    /// What `webauth demo --json` prints (the part read here).
    struct DemoReport: Decodable {
        struct Step: Decodable {
            var step: String
            var milliseconds: Double
        }
        var steps: [Step]
    }

    /// A new private directory under the temporary directory, for one benchmark's files.
    static func temporaryDirectory() throws -> String {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("webauth-bench-XXXXXX")
        var template = Array(temporary.path.utf8CString)
        guard let path = mkdtemp(&template) else { throw BenchmarkFailure("mkdtemp failed") }
        return String(cString: path)
    }
}

/// A benchmark that could not measure what it meant to.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
