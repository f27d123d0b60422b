// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import Testing
import WebAuthCore
import WebAuthEmbeddedProvider
import WebAuthPlatform
import WebAuthTestSupport

@testable import WebAuthControlledBrowsers

#if canImport(Glibc)
    import Glibc
#endif

/// Every test that runs a real Firefox, one at a time: a browser per test is already a lot for
/// the two cores of these machines, and timings mean more without a second one running.
@Suite("Firefox (real browser)", .serialized, TestFixture.firefox.required)
enum RealFirefoxTests {}

/// What the Firefox tests share: a private temporary home (`HOME`, `XDG_RUNTIME_DIR` for
/// ephemeral profiles, `XDG_DATA_HOME` for the shared profile), options that keep Firefox
/// headless and offline, a stand-in for "the network", and a record of the presentations opened.
final class FirefoxTestbed: Sendable {
    /// The temporary root; removed by ``tearDown()``.
    let root: URL
    /// Every connection Firefox opens to a proxy lands here: with ``offlinePreferences`` this is
    /// everything that would otherwise leave the machine.
    let network: NetworkRecorder
    private let opened = PresentationLog()

    private init(root: URL, network: NetworkRecorder) {
        self.root = root
        self.network = network
    }

    /// A testbed with fresh directories and a listening ``NetworkRecorder``.
    static func make() async throws -> FirefoxTestbed {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webauth-firefox-tests-\(UUID().uuidString.prefix(8))", isDirectory: true)
        let testbed = FirefoxTestbed(root: root, network: try await NetworkRecorder.start())
        for directory in [root, testbed.home, testbed.runtimeDirectory, testbed.dataDirectory] {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return testbed
    }

    /// Runs `body` with a fresh testbed and tears it down afterwards, however `body` ends.
    static func with<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (FirefoxTestbed) async throws -> Result
    ) async throws -> Result {
        try await withShutdown(of: try await make(), shutdown: { await $0.tearDown() }, body)
    }

    var home: URL { root.appendingPathComponent("home", isDirectory: true) }
    var runtimeDirectory: URL { root.appendingPathComponent("runtime", isDirectory: true) }
    var dataDirectory: URL { root.appendingPathComponent("data", isDirectory: true) }
    /// Where ephemeral profiles (and Firefox's output files) are made.
    var ephemeralBase: URL { runtimeDirectory.appendingPathComponent("webauth/profiles", isDirectory: true) }
    /// The shared profile.
    var sharedProfile: URL { dataDirectory.appendingPathComponent("webauth/profiles/firefox", isDirectory: true) }

    /// The presentations opened so far, oldest first.
    var presentations: [FirefoxPresentation] { opened.all.withLock { $0 } }

    /// Preferences that keep a test Firefox offline: every proxy is the ``network`` recorder
    /// (so nothing can leave the machine, and whatever tries is recorded), loopback addresses go
    /// direct, no fallback to a direct connection, IPv4 only.
    var offlinePreferences: [String: FirefoxBrowser.PreferenceValue] {
        let port = FirefoxBrowser.PreferenceValue.integer(Int32(network.port))
        return [
            "network.proxy.type": 1,
            "network.proxy.http": "127.0.0.1", "network.proxy.http_port": port,
            "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": port,
            "network.proxy.socks": "", "network.proxy.share_proxy_settings": false,
            "network.proxy.no_proxies_on": "", "network.proxy.allow_hijacking_localhost": false,
            "network.proxy.failover_direct": false,
            "network.dns.disableIPv6": true,
        ]
    }

    /// Headless Firefox options with ``offlinePreferences`` (then `extraPreferences`) in this
    /// testbed's directories.
    func options(extraPreferences: [String: FirefoxBrowser.PreferenceValue] = [:]) -> FirefoxBrowser.Options {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["XDG_DATA_HOME"] = dataDirectory.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent(".config").path
        environment["XDG_CACHE_HOME"] = home.appendingPathComponent(".cache").path
        // WEBAUTH_TEST_FIREFOX_HEADED=1 (under `xvfb-run -a`) runs the same tests with a window.
        let headed = ProcessInfo.processInfo.environment["WEBAUTH_TEST_FIREFOX_HEADED"] == "1"
        var options = FirefoxBrowser.Options(
            headless: !headed, extraPreferences: offlinePreferences.merging(extraPreferences) { _, new in new },
            launchTimeout: .seconds(60), environment: environment)
        options.launchObserver = { [opened] presentation in opened.all.withLock { $0.append(presentation) } }
        return options
    }

    /// A session environment whose only way to get the callback is this testbed's Firefox.
    func environment(extraPreferences: [String: FirefoxBrowser.PreferenceValue] = [:]) -> SessionEnvironment {
        SessionEnvironment(browser: FirefoxBrowser(options: options(extraPreferences: extraPreferences)), receivers: [])
    }

    /// Waits until the `index`-th presentation (0-based) is open.
    func presentation(_ index: Int = 0, within limit: Duration = .seconds(60)) async throws -> FirefoxPresentation {
        var presentation: FirefoxPresentation?
        _ = await eventually(within: limit) {
            presentation = presentations.dropFirst(index).first
            return presentation != nil
        }
        if let presentation { return presentation }
        throw Failure(description: "no Firefox presentation opened within \(limit)")
    }

    /// Dismisses any presentation still open, stops the recorder, and removes the directories.
    func tearDown() async {
        for presentation in presentations { await presentation.dismiss() }
        await network.shutdown()
        try? FileManager.default.removeItem(at: root)
    }

    /// One process, from `/proc/<pid>/stat`.
    struct ProcessEntry: Hashable {
        var pid: pid_t
        var state: Character
        var parent: pid_t
        var group: pid_t
    }

    /// Every process on the machine.
    static func processes() -> [ProcessEntry] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> ProcessEntry? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "(command)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, let state = fields[0].first, let parent = pid_t(fields[1]),
                let group = pid_t(fields[2])
            else { return nil }
            return ProcessEntry(pid: pid, state: state, parent: parent, group: group)
        }
    }

    /// The running processes whose command line mentions `text` (such as a profile path).
    static func processes(mentioning text: String) -> [pid_t] {
        processes().filter { entry in
            guard entry.state != "Z", let data = FileManager.default.contents(atPath: "/proc/\(entry.pid)/cmdline")
            else { return false }
            return String(decoding: data, as: UTF8.self).contains(text)
        }.map(\.pid)
    }

    /// The processes of process group `group` that are still running (not exited).
    static func members(ofProcessGroup group: pid_t) -> [pid_t] {
        processes().filter { $0.group == group && $0.state != "Z" && $0.state != "X" }.map(\.pid)
    }

    /// Exited processes of `group` that this process should have reaped and has not.
    static func zombieChildren(inProcessGroup group: pid_t) -> [pid_t] {
        processes().filter { $0.group == group && $0.state == "Z" && $0.parent == getpid() }.map(\.pid)
    }

    /// Whether `url` exists.
    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The permission bits of `url`.
    static func mode(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
    }
}

extension FirefoxTestbed {
    /// Something in the testbed went wrong.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A TCP listener on `127.0.0.1` that stands for everything beyond the machine: it records
    /// the first line of every connection (an HTTP proxy request such as
    /// `CONNECT callback.example:443 HTTP/1.1`) and closes it.
    final class NetworkRecorder: Sendable {
        let port: Int
        private let channel: any Channel
        private let lines: LineLog

        private init(port: Int, channel: any Channel, lines: LineLog) {
            self.port = port
            self.channel = channel
            self.lines = lines
        }

        static func start() async throws -> NetworkRecorder {
            let lines = LineLog()
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(FirstLineRecorder(lines: lines))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            guard let port = channel.localAddress?.port else { throw Failure(description: "the recorder has no port") }
            return NetworkRecorder(port: port, channel: channel, lines: lines)
        }

        /// The first lines of the connections received so far.
        var connections: [String] { lines.lines.withLock { $0 } }

        func shutdown() async {
            try? await channel.close()
        }
    }

    /// The presentations opened, shared with the browser's observer.
    final class PresentationLog: Sendable {
        let all = Locked<[FirefoxPresentation]>([])
    }

    /// The lines recorded, shared by the connections.
    final class LineLog: Sendable {
        let lines = Locked<[String]>([])
    }

    /// Records a connection's first line (or `<connection>` if it closes first), then closes it.
    final class FirstLineRecorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let lines: LineLog
        private let recorded = Locked(false)

        init(lines: LineLog) { self.lines = lines }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            let text = buffer.readString(length: buffer.readableBytes) ?? ""
            record(String(text.split(whereSeparator: \.isNewline).first ?? ""))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            record("<connection>")
            context.fireChannelInactive()
        }

        private func record(_ line: String) {
            let first = recorded.withLock { done in
                defer { done = true }
                return !done
            }
            if first { lines.lines.withLock { $0.append(line) } }
        }
    }

    /// The items of a URL's query, by name.
    static func query(_ url: URL) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            items[item.name] = item.value ?? ""
        }
        return items
    }
}
