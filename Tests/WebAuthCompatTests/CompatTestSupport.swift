// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux implementation's tests; on Apple platforms the module is AuthenticationServices.
#if !canImport(AuthenticationServices)
    import Foundation
    import Testing
    import WebAuth
    import WebAuthCompat
    import WebAuthPlatform
    import WebAuthTestSupport

    /// A temporary desktop where this test process's schemes are registered (the Linux form of an
    /// app's `Info.plist` URL types), and the session environment that uses it.
    struct SeedDesktop {
        let desktop: TemporaryDesktop
        let registry: DesktopSchemeRegistry
        let receiver: DesktopSchemeReceiver

        /// Registers `schemes` for this test process (the application `nil` schemes resolve to).
        init(schemes: [String]) throws {
            desktop = try TemporaryDesktop()
            let environment = DesktopEnvironment(variables: desktop.variables)
            registry = DesktopSchemeRegistry(environment: environment)
            receiver = DesktopSchemeReceiver(environment: environment)
            for scheme in schemes {
                try registry.register(scheme: scheme, handlerPath: TemporaryDesktop.schemeHandlerPath)
            }
        }

        /// Headless Chromium that hands `schemes` from `origins` to this desktop.
        func chromium(handing schemes: [String], from origins: [URL]) throws -> (any Browser, ChromiumLauncher) {
            let launcher = try TestBrowsers.makeChromiumLauncherScript(
                handingSchemes: schemes, from: origins, to: desktop)
            return (SystemBrowser(command: BrowserCommand(executable: launcher.scriptPath)), launcher)
        }

        /// The standard receivers, with this desktop's scheme receiver, and `browser`.
        func environment(browser: any Browser) -> SessionEnvironment {
            SessionEnvironment(browser: browser, receivers: [LoopbackReceiver(), receiver])
        }

        /// A browser that opens nothing (the session then waits for the desktop alone).
        static var silentBrowser: any Browser { SystemBrowser(command: BrowserCommand(executable: "/bin/true")) }

        /// Runs the real `xdg-open` on this desktop.
        func xdgOpen(_ url: String) async throws -> TemporaryDesktop.ProcessResult {
            try await desktop.run("/usr/bin/xdg-open", [url])
        }

        func socketExists(forScheme scheme: String) -> Bool {
            FileManager.default.fileExists(atPath: receiver.socketDirectory.socketPath(forScheme: scheme))
        }

        func remove() { desktop.remove() }
    }

    /// Values handed over from completion handlers (which run on another thread) to the test.
    final class Mailbox<Value: Sendable>: Sendable {
        private let stream: AsyncStream<Value>
        private let continuation: AsyncStream<Value>.Continuation
        private let received = Locked<[Value]>([])

        init() {
            (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        }

        func put(_ value: Value) {
            received.withLock { $0.append(value) }
            continuation.yield(value)
        }

        /// Everything put so far.
        var all: [Value] { received.withLock { $0 } }

        /// The next value, or `nil` when `failures` gets one first or after `timeout`.
        func next<Failure: Sendable>(
            orFailureIn failures: Mailbox<Failure>, within timeout: Duration = .seconds(45)
        ) async -> Value? {
            await withTaskGroup(of: Value?.self) { group in
                group.addTask { await self.next(within: timeout) }
                group.addTask {
                    _ = await failures.next(within: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
        }

        /// The next value, or `nil` after `timeout`.
        func next(within timeout: Duration = .seconds(45)) async -> Value? {
            await firstElement(of: stream, within: timeout)
        }
    }

    /// What a completion handler received, in a form that crosses threads.
    struct Completion: Sendable {
        var url: URL?
        var domain: String?
        var code: Int?
        var detail: WebAuthenticationSessionError?
        var isASError: Bool
        var isSFError: Bool

        init(url: URL?, error: (any Error)?) {
            self.url = url
            if let error {
                let bridged = error as NSError
                domain = bridged.domain
                code = bridged.code
                detail =
                    bridged.userInfo[ASWebAuthenticationSessionError.webAuthenticationErrorKey]
                    as? WebAuthenticationSessionError
            }
            isASError = error is ASWebAuthenticationSessionError
            isSFError = error.map { "\(type(of: $0))" == "SFAuthenticationError" } ?? false
        }
    }

    /// The error `task` ends with, or `nil` when it succeeds or has not ended within `limit`
    /// (which only stops a hang: the task is left to the test's own end).
    func failure(of task: Task<URL, any Error>, within limit: Duration = .seconds(60)) async -> (any Error)? {
        let outcome = Mailbox<Result<URL, any Error>>()
        Task { outcome.put(await task.result) }
        guard case .failure(let error)? = await outcome.next(within: limit) else { return nil }
        return error
    }

    /// A random token, as a provider would issue.
    func randomToken() -> String {
        UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// All of this target's suites, one test at a time. They start real processes (`xdg-open`, the
    /// handler, Chromium); run in parallel on a small machine they would slow the rest of the
    /// package's tests (which share the process) past their deadlines.
    @Suite(.serialized) struct CompatIntegrationTests {}
#endif
