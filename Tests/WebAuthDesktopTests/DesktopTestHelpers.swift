// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux desktop (xdg-utils, XDG directories, SO_PEERCRED) is what these tests exercise.
#if os(Linux)
    import Foundation
    import Testing
    import WebAuthCore
    import WebAuthPlatform
    import WebAuthTestSupport

    @testable import WebAuthDesktop
    import WebAuthDesktopSocket

    /// A temporary desktop with the handler registered for some schemes, and the parts that work in it.
    struct RegisteredDesktop {
        let desktop: TemporaryDesktop
        let environment: DesktopEnvironment
        let registry: DesktopSchemeRegistry

        init(schemes: [String] = [], application: String? = "webauth-tests") throws {
            desktop = try TemporaryDesktop()
            environment = DesktopEnvironment(variables: desktop.variables)
            registry = DesktopSchemeRegistry(environment: environment)
            for scheme in schemes {
                try registry.register(
                    scheme: scheme, handlerPath: TemporaryDesktop.schemeHandlerPath, application: application)
            }
        }

        func receiver(readTimeout: Duration = .seconds(10)) -> DesktopSchemeReceiver {
            DesktopSchemeReceiver(environment: environment, configuration: .init(readTimeout: readTimeout))
        }

        var socketDirectory: CallbackSocketDirectory { CallbackSocketDirectory(environment: environment) }

        /// Opens `url` the way a desktop browser does: the real `xdg-open`, on this desktop.
        func xdgOpen(_ url: String) async throws -> TemporaryDesktop.ProcessResult {
            try await desktop.run(Self.executable("xdg-open"), [url])
        }

        /// Runs the built `webauth-scheme-handler` directly, on this desktop.
        func handler(_ url: String) async throws -> TemporaryDesktop.ProcessResult {
            try await desktop.run(TemporaryDesktop.schemeHandlerPath, [url])
        }

        /// Runs the built `webauth` command line, on this desktop.
        func webauth(_ arguments: [String], extra: [String: String] = [:]) async throws
            -> TemporaryDesktop.ProcessResult
        {
            try await desktop.run(Self.webauthPath, arguments, extra: extra)
        }

        static var webauthPath: String {
            TemporaryDesktop.builtProductsDirectory.appendingPathComponent("webauth").path
        }

        static func executable(_ name: String) -> String {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            return path.split(separator: ":").map { "\($0)/\(name)" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            } ?? "/usr/bin/\(name)"
        }

        func remove() { desktop.remove() }
    }

    /// The mode bits and owner of `path` (not following a final symbolic link).
    func fileMode(_ path: String) -> (mode: Int, isSocket: Bool, isDirectory: Bool)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let permissions = attributes[.posixPermissions] as? Int
        else { return nil }
        let type = attributes[.type] as? FileAttributeType
        return (permissions & 0o777, type == .typeSocket, type == .typeDirectory)
    }

    /// The URL of the first callback a listener yields, or `nil` when it finishes first or
    /// `timeout` passes.
    func firstCallback(of listener: any CallbackListener, within timeout: Duration = .seconds(60)) async -> URL? {
        await firstElement(of: listener.callbacks, within: timeout)?.url
    }

    /// A session's verdict that accepts every URL for the scheme the socket server matched.
    let acceptingEvery: @Sendable (URL) -> CallbackVerdict = { url in
        .accepted(ReceivedCallback(url: url, redirectURI: URL(string: "\(url.scheme ?? "unknown"):")!))
    }

    /// Records what a session's acceptance rule saw.
    final class AcceptanceRule: Sendable {
        let state: String
        private let seen = Locked<[URL]>([])

        init(state: String) { self.state = state }

        var rule: @Sendable (URL) -> Bool {
            { url in
                self.seen.withLock { $0.append(url) }
                return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.contains {
                    $0.name == "state" && $0.value == self.state
                } == true
            }
        }

        /// ``rule`` as a session's verdict.
        var verdict: @Sendable (URL) -> CallbackVerdict {
            let rule = self.rule
            return { url in
                rule(url)
                    ? .accepted(ReceivedCallback(url: url, redirectURI: URL(string: "\(url.scheme ?? "unknown"):")!))
                    : .refused(.callbackMismatch("the state is not \(self.state)"))
            }
        }

        var offered: [URL] { seen.withLock { $0 } }
    }

    /// All of this target's suites, one test at a time. They start real processes (`xdg-mime`,
    /// `xdg-open`, the handler, `webauth`, Chromium); run in parallel on a small machine they would
    /// slow the rest of the package's tests (which share the process) past their deadlines.
    @Suite(.serialized) struct DesktopIntegrationTests {}
#endif
