// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// Prints how long the session engine takes at the points a person could notice, with the real
// loopback listener and real HTTP over loopback. Run: swift run -c release webauth-benchmarks
// With `soak` first (`webauth-benchmarks soak [--sign-ins N] [--refreshes N] [--processes N]
// [--minutes N]`) it runs the long leak and lost-token runs of SoakBenchmarks instead; with
// `flood`, only the loopback listener's figures; with `signed-in`, only "callback → signed in"
// (SignInBenchmarks). `--help` says so.
import Foundation
import WebAuth
import WebAuthPlatform
import WebAuthTestSupport

/// A browser that only notes when the session asked it to open the page.
struct TimingBrowser: Browser {
    let opened: AsyncStream<(ContinuousClock.Instant, URL)>.Continuation
    var name: String { "timing" }
    var capabilities: BrowserCapabilities { [] }

    func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError) -> any BrowserPresentation {
        opened.yield((.now, request.redirectURI ?? request.url))
        return Idle()
    }

    struct Idle: BrowserPresentation {
        var events: AsyncStream<BrowserEvent> { AsyncStream { $0.finish() } }
        func dismiss() async {}
    }
}

struct Figures {
    var samples: [Duration] = []
    mutating func add(_ sample: Duration) { samples.append(sample) }

    /// The median in milliseconds.
    var median: Double {
        let sorted = samples.sorted()
        let value = sorted[(sorted.count - 1) / 2]
        return Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1e3
    }

    func line(_ label: String) -> String {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> String {
            let value = sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
            return String(
                format: "%8.3f", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1e3)
        }
        return
            "\(label.padding(toLength: 52, withPad: " ", startingAt: 0)) \(at(0.5)) \(at(0.9)) \(at(0.99)) \(at(1))  (n=\(sorted.count))"
    }
}

/// When the listener routed a callback request to its session.
final class RoutedInstant: Sendable {
    let instant = Locked<ContinuousClock.Instant?>(nil)
}

/// A started session whose browser has been asked to open the page.
struct StartedSession {
    let session: WebAuthSession
    let port: Int
    let toLaunch: Duration
    let completed: AsyncStream<ContinuousClock.Instant>
    /// When the listener routed the callback request to the session (its `acceptsCallback`).
    let received: RoutedInstant

    /// Starts a session and waits until it asks its browser to open the page.
    static func start(
        opened: inout AsyncStream<(ContinuousClock.Instant, URL)>.Iterator,
        continuation: AsyncStream<(ContinuousClock.Instant, URL)>.Continuation
    ) async throws -> StartedSession {
        let (completed, completedContinuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let session = WebAuthSession(
            url: URL(string: "https://auth.example.com/authorize")!, callback: .loopback(),
            environment: .standard(browser: TimingBrowser(opened: continuation))
        ) { _ in completedContinuation.yield(.now) }
        let received = RoutedInstant()
        session.acceptsCallback = { [received] _ in
            received.instant.withLock { $0 = .now }
            return true
        }
        let started = ContinuousClock.now
        session.start()
        guard let (launched, redirectURI) = await opened.next(), let port = redirectURI.port else {
            throw CancellationError()
        }
        return StartedSession(
            session: session, port: port, toLaunch: launched - started, completed: completed, received: received)
    }

    /// Sends the callback after the first `strayCount / 2` of `strayCount` stray requests (see
    /// ``StrayRequests``) and returns the time from sending it to the completion handler, the
    /// part of it until the listener routed the request to the session, when that was, and
    /// what became of the strays.
    func deliverCallback(amongStrays strayCount: Int = 0) async throws -> (
        total: Duration, toListener: Duration, routed: ContinuousClock.Instant, strays: [StrayRequests.Outcome]
    ) {
        var burst = StrayRequests.start(
            port: port, count: strayCount, callbackTarget: "/callback?code=bench&state=s",
            callbackAfter: strayCount / 2
        ).makeAsyncIterator()
        guard case .callbackSent(let sent) = await burst.next() else { throw CancellationError() }
        var done = completed.makeAsyncIterator()
        guard let finished = await done.next(), let routed = received.instant.withLock({ $0 }),
            case .finished(let strays, let callback) = await burst.next()
        else { throw CancellationError() }
        precondition(callback.status == 200, "callback answered \(callback.status)")
        return (finished - sent, routed - sent, routed, strays)
    }
}

@main
enum SessionBenchmarks {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "soak":
            let passed = try await SoakBenchmarks.run(SoakBenchmarks.Options(arguments: Array(arguments.dropFirst())))
            exit(passed ? 0 : 1)
        case "cached-token" where arguments.count == 1:
            try await printCLIFigures()
        case "signed-in" where arguments.count == 1:
            try await SignInBenchmarks.printFigures()
        case "agent" where arguments.count == 1:
            guard let webauth = CLIBenchmarks.webauthExecutable() else {
                print("build webauth next to this program first (swift build -c release)")
                exit(1)
            }
            try await AgentBenchmarks.printFigures(webauth: webauth)
        case "floor" where arguments.count == 1:
            guard let webauth = CLIBenchmarks.webauthExecutable() else {
                print("build webauth next to this program first (swift build -c release)")
                exit(1)
            }
            try await FloorBenchmarks.printFigures(webauth: webauth)
        case "login" where arguments.count == 1:
            guard let webauth = CLIBenchmarks.webauthExecutable() else {
                print("build webauth next to this program first (swift build -c release)")
                exit(1)
            }
            try await LoginBenchmarks.printFigures(webauth: webauth)
        case "flood" where arguments.count == 1:
            try HeadParserBenchmarks.printFigures()
            try await PeerLookupBenchmarks.printFigures()
            try await printListenerFigures()
        case nil:
            // First: the token figures' peak memory counts every child process waited for so far.
            try await DPoPBenchmarks.printFigures(header: CLIBenchmarks.header)
            try await printCLIFigures()
            try HeadParserBenchmarks.printFigures()
            try await PeerLookupBenchmarks.printFigures()
            try await printListenerFigures()
            try await SignInBenchmarks.printFigures()
        case "-h", "--help":
            print(usage)
        default:
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            exit(2)
        }
    }

    static let usage = """
        usage: webauth-benchmarks            every figure but the soak runs
               webauth-benchmarks cached-token  only the cached token's table (the CLI processes)
               webauth-benchmarks signed-in  only callback → signed in against the embedded
                                             provider answering 40 ms late, beside one token
                                             round trip
               webauth-benchmarks agent      only a token through webauth agent, beside the
                                             file store's and oidc-agent's oidc-token
               webauth-benchmarks floor      only a token at the floor: webauth token (file store,
                                             agent) beside oidc-token and hello programs in C and
                                             Swift built here, in turn and eight at once, with
                                             the targets
               webauth-benchmarks login      only a whole sign-in's CPU: webauth login beside
                                             google-auth-oauthlib's run_local_server, both against
                                             the embedded provider, with the target
               webauth-benchmarks flood      only the loopback listener's: reading a request head
                                             (its parser and SwiftNIO's), who owns a connection's
                                             client end, sign-in to completion, and the callback
                                             among 500 stray connections
               webauth-benchmarks soak [--sign-ins N] [--refreshes N] [--processes N] [--minutes N]
        """

    /// Sessions to completion over the real loopback listener, alone and among stray connections.
    static func printListenerFigures() async throws {
        let (opened, openedContinuation) = AsyncStream.makeStream(of: (ContinuousClock.Instant, URL).self)
        var openedIterator = opened.makeAsyncIterator()

        var toLaunch = Figures()
        var toCompletion = Figures()
        for index in 0..<220 {
            let started = try await StartedSession.start(opened: &openedIterator, continuation: openedContinuation)
            let completion = try await started.deliverCallback()
            if index >= 20 {  // the first sessions warm up the event loops and caches
                toLaunch.add(started.toLaunch)
                toCompletion.add(completion.total)
            }
        }

        let strayCount = 500
        var strayStatuses = [Int: Int]()
        var answeredFirst: [Int] = []
        /// The callback among `strayCount` stray connections, 40 times: half of them say
        /// `idleSays` and nothing more, half ask for wrong paths in one burst from one thread
        /// (see StrayRequests), with the callback's connection in the middle of that burst, so
        /// the listener meets the idle connections and half of those requests before the
        /// callback, and the rest of the burst while it answers it.
        func flood(idleSays: String) async throws -> (total: Figures, toListener: Figures) {
            var total = Figures()
            var toListener = Figures()
            for _ in 0..<40 {
                let started = try await StartedSession.start(opened: &openedIterator, continuation: openedContinuation)
                let idle = (0..<(strayCount / 2)).compactMap { _ in
                    StrayRequests.openSocket(port: started.port, sending: Array(idleSays.utf8))
                }
                let delivered = try await started.deliverCallback(amongStrays: strayCount / 2)
                total.add(delivered.total)
                toListener.add(delivered.toListener)
                for stray in delivered.strays { strayStatuses[stray.status, default: 0] += 1 }
                answeredFirst.append(delivered.strays.count { $0.answered.map { $0 < delivered.routed } ?? false })
                for descriptor in idle { _ = close(descriptor) }
            }
            return (total, toListener)
        }
        // Connections that say nothing wait in the kernel until their first byte
        // (TCP_DEFER_ACCEPT); ones that have sent a partial head are the listener's to hold.
        let silent = try await flood(idleSays: "")
        let partial = try await flood(idleSays: "GET / HTTP/1.1\r\n")

        print("webauth session benchmarks (milliseconds)")
        print("".padding(toLength: 52, withPad: " ", startingAt: 0) + "   median      p90      p99      max")
        print(toLaunch.line("start() → browser asked to open the page"))
        print(toCompletion.line("callback request sent → completion delivered"))
        print(silent.total.line("the same with \(strayCount) stray connections (\(strayCount / 2) silent)"))
        print(silent.toListener.line("  of which: sent → the listener routes it"))
        print(partial.total.line("the same, the \(strayCount / 2) idle ones with a partial head"))
        print(partial.toListener.line("  of which: sent → the listener routes it"))
        print(
            "stray requests whose client had their answer before the callback was routed: median "
                + "\(answeredFirst.sorted()[(answeredFirst.count - 1) / 2]) of \(strayCount / 2) (both floods)")
        let answered = strayStatuses.filter { $0.key > 0 }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
        let cutOff = strayStatuses[0, default: 0]
        let refused = strayStatuses[-1, default: 0]
        print(
            "stray requests: answered \(answered.isEmpty ? "none" : answered); cut off when the listener closed "
                + "after the callback: \(cutOff); refused after it closed: \(refused)")
    }

    /// `webauth token` and `webauth demo`, run as processes, when `webauth` was built beside this
    /// program.
    static func printCLIFigures() async throws {
        guard let webauth = CLIBenchmarks.webauthExecutable() else {
            print("webauth command benchmarks skipped: build the tool next to this program first")
            print("(swift build -c release, then .build/release/webauth-benchmarks)\n")
            return
        }
        let commands = try await CLIBenchmarks.cachedTokenCommands(webauth: webauth)
        let medians = CLIBenchmarks.printTable(
            "a valid cached token, file store (milliseconds, whole process; peak memory: GNU time's maxrss)", commands)
        for label in ["webauth token", "webauth git-credential get", "webauth exec-credential"] {
            guard let ours = medians[label] else { continue }
            let ratios = ["gh auth token (GitHub CLI)", "Python google-auth, authorized-user file"].map { other in
                medians[other].map { String(format: "%.2f×", ours / $0) + " " + other } ?? "\(other): not installed"
            }
            print("\(label): " + ratios.joined(separator: "; "))
        }
        print("")

        try await AgentBenchmarks.printFigures(webauth: webauth)
        try await FloorBenchmarks.printFigures(webauth: webauth)

        print("the same, keyring store (gnome-keyring-daemon on a private session bus; the index names the keyring)")
        if let keyring = try await CLIBenchmarks.keyringTokenCommands(webauth: webauth) {
            print(CLIBenchmarks.header + "  peak MiB")
            for (label, figures) in keyring {
                let peak = figures.peakKiB.map { String(format: "%9.1f", Double($0) / 1024) } ?? "  (no GNU time)"
                print(figures.wall.line(label) + peak)
            }
        } else {
            print("not installed (dbus, gnome-keyring and libsecret-tools are needed)")
        }
        print("")

        let demo = try await CLIBenchmarks.demo(webauth: webauth)
        print("webauth demo --no-browser, by step (milliseconds)")
        print(CLIBenchmarks.header)
        for (step, figures) in demo.steps { print(figures.line(step)) }
        print(demo.total.line("whole process, start to exit"))
        print("")

        try await LoginBenchmarks.printFigures(webauth: webauth)
    }
}
