// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthControlledBrowsers
import WebAuthCore
import WebAuthPlatform
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The suites that run a real Chromium, one after another: each starts browsers, and this
/// machine has two cores shared with everything else.
@Suite("Chromium", .serialized, TestFixture.chromium.required)
enum ChromiumTests {}

/// What the Chromium tests share: a private temporary directory standing in for
/// `$XDG_RUNTIME_DIR` (ephemeral profiles) and `$XDG_DATA_HOME` (the shared profile), browser
/// options that keep Chromium headless and offline, and a record of the browsers launched.
final class ChromiumTestbed: Sendable {
    /// The temporary root; removed by ``tearDown()``.
    let root: URL
    private let launched = Launched()

    /// The browsers launched, shared with the options' observer.
    private final class Launched: Sendable {
        let instances = Locked<[ChromiumInstance]>([])
    }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webauth-chromium-tests-\(UUID().uuidString.prefix(8))", isDirectory: true)
        for directory in [root, runtimeDirectory, dataDirectory] {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
    }

    /// Stands in for `$XDG_RUNTIME_DIR`: ephemeral profiles go under `webauth/profiles` here.
    var runtimeDirectory: URL { root.appendingPathComponent("runtime", isDirectory: true) }
    /// Stands in for `$XDG_DATA_HOME`: the shared profile is `webauth/profiles/chromium` here.
    var dataDirectory: URL { root.appendingPathComponent("data", isDirectory: true) }
    /// Where ephemeral profiles are made.
    var ephemeralProfiles: URL { runtimeDirectory.appendingPathComponent("webauth/profiles", isDirectory: true) }
    /// The shared profile.
    var sharedProfile: URL { dataDirectory.appendingPathComponent("webauth/profiles/chromium", isDirectory: true) }

    /// The browsers launched so far, oldest first.
    var instances: [ChromiumInstance] { launched.instances.withLock { $0 } }

    /// Options for a headless Chromium with the offline flags (TESTING.md), in this testbed's
    /// directories. `hostResolverRules` replaces the offline flags' rules (Chromium keeps only
    /// one `--host-resolver-rules`).
    func options(extraArguments: [String] = [], hostResolverRules: String? = nil) -> ChromiumBrowser.Options {
        var arguments = TestBrowsers.chromiumOfflineArguments
        if let hostResolverRules {
            arguments = arguments.filter { !$0.hasPrefix("--host-resolver-rules=") }
            arguments.append("--host-resolver-rules=\(hostResolverRules)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        environment["XDG_DATA_HOME"] = dataDirectory.path
        var options = ChromiumBrowser.Options(
            headless: true, extraArguments: arguments + extraArguments, launchTimeout: .seconds(60),
            environment: environment)
        let launched = launched
        options.launchObserver = { instance in launched.instances.withLock { $0.append(instance) } }
        return options
    }

    /// A session environment with a Chromium made from ``options(extraArguments:hostResolverRules:)``
    /// and no receivers: the browser alone catches the callback.
    func environment(extraArguments: [String] = [], hostResolverRules: String? = nil) -> SessionEnvironment {
        let browser = ChromiumBrowser(
            options: options(extraArguments: extraArguments, hostResolverRules: hostResolverRules))
        return SessionEnvironment(browser: browser, receivers: [])
    }

    /// Waits until the `index`-th browser (0-based) has launched.
    func instance(_ index: Int = 0, within limit: Duration = .seconds(60)) async throws -> ChromiumInstance {
        var instance: ChromiumInstance?
        _ = await eventually(within: limit) {
            instance = launched.instances.withLock { $0.count > index ? $0[index] : nil }
            return instance != nil
        }
        if let instance { return instance }
        throw ChromiumTestError("no Chromium was launched within \(limit)")
    }

    /// Waits until the page's `location.pathname` is `path` and the document has loaded.
    func waitForPage(_ instance: ChromiumInstance, path: String, within limit: Duration = .seconds(30)) async throws {
        var last: String?
        let loaded = await eventually(within: limit) {
            last = try? await instance.evaluate("document.readyState + ' ' + location.pathname")
            return last == "complete \(path)"
        }
        if loaded { return }
        throw ChromiumTestError("the page did not load \(path) (last seen: \(last ?? "nothing"))")
    }

    /// Removes everything the testbed made.
    func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    /// The ephemeral profile directories that exist now.
    var leftoverEphemeralProfiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: ephemeralProfiles.path)) ?? []
    }
}

/// A Chromium test could not get where it wanted.
struct ChromiumTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Whether process `pid` no longer exists (it exited and was reaped: no zombie either).
func processIsGone(_ pid: pid_t) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}

/// The query item `name` of `url`.
func queryValue(_ name: String, in url: URL) -> String? {
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
