// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

// The Linux desktop (xdg-utils, XDG directories, SO_PEERCRED) is what these tests exercise.
#if os(Linux)
    import Foundation
    import Testing
    import WebAuthCore
    import WebAuthTestSupport

    @testable import WebAuthDesktop
    import WebAuthDesktopSocket

    #if canImport(Glibc)
        import Glibc
    #endif

    /// The receiver's Unix socket with the real handler program and the real `xdg-open`.
    extension DesktopIntegrationTests {
        @Suite("Callback socket and handler", TestFixture.desktopTools.required)
        struct CallbackSocketTests {
            @Test func xdgOpenDeliversTheURLThroughTheHandlerToTheWaitingSession() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.socket"])
                defer { setup.remove() }
                let rule = AcceptanceRule(state: "s-1")
                let listener = try await setup.receiver().listen(
                    for: .customScheme("com.example.socket"), deciding: rule.verdict)
                #expect(listener.redirectURI.absoluteString == "com.example.socket:")
                let socket = setup.socketDirectory.socketPath(forScheme: "com.example.socket")
                #expect(FileManager.default.fileExists(atPath: socket))

                let url = "com.example.socket:/oauth?code=secret-code-1&state=s-1#frag"
                let opened = try await setup.xdgOpen(url)
                #expect(opened.status == 0, "xdg-open: \(opened.standardError)")
                #expect(await firstCallback(of: listener)?.absoluteString == url)
                #expect(rule.offered.map(\.absoluteString) == [url])
                #expect(opened.standardError.contains("handed the callback"))
                #expect(!opened.standardError.contains("secret-code-1"))
                // The first accepted callback ends the wait: the socket is gone even before close().
                #expect(await eventually { !FileManager.default.fileExists(atPath: socket) })
                await listener.close()
                await listener.close()
            }

            @Test func theSocketDirectoryIsPrivateAndTheSocketIsOwnerOnly() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.modes"])
                defer { setup.remove() }
                let listener = try await setup.receiver().listen(
                    for: .customScheme("com.example.modes"), deciding: acceptingEvery)
                let directory = try #require(fileMode(setup.socketDirectory.path))
                #expect(directory.isDirectory)
                #expect(directory.mode == 0o700)
                let socket = try #require(fileMode(setup.socketDirectory.socketPath(forScheme: "com.example.modes")))
                #expect(socket.isSocket)
                #expect(socket.mode == 0o600)
                let lock = try #require(fileMode(setup.socketDirectory.lockPath(forScheme: "com.example.modes")))
                #expect(lock.mode == 0o600)
                let contents = try FileManager.default.contentsOfDirectory(atPath: setup.socketDirectory.path).sorted()
                #expect(
                    contents == ["com.example.modes.lock", "com.example.modes.sock"],
                    "the socket was renamed into place")
                await listener.close()
                #expect(
                    !FileManager.default.fileExists(
                        atPath: setup.socketDirectory.socketPath(forScheme: "com.example.modes")))
            }

            @Test func anUnsafeSocketDirectoryIsRefusedByTheSessionAndTheHandler() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.unsafe"])
                defer { setup.remove() }
                let path = setup.socketDirectory.path
                let receiver = setup.receiver()

                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
                let open = try await #require(throws: WebAuthenticationSessionError.self) {
                    try await receiver.listen(for: .customScheme("com.example.unsafe"), deciding: acceptingEvery)
                }
                #expect(open.code == .callbackListenerFailed)
                #expect(open.message.contains("must be 0700"))
                #expect(open.message.contains(path))
                let forwarded = try await setup.handler("com.example.unsafe:/cb?code=1")
                #expect(forwarded.status == CallbackForwardingError.Code.failed.exitStatus)
                #expect(forwarded.standardError.contains("must be 0700"))

                // Only root can give the directory to another user.
                if geteuid() == 0 {
                    #expect(chown(path, 65534, 65534) == 0)
                    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
                    let foreign = try await #require(throws: WebAuthenticationSessionError.self) {
                        try await receiver.listen(for: .customScheme("com.example.unsafe"), deciding: acceptingEvery)
                    }
                    #expect(foreign.message.contains("belongs to another user"))
                }

                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: setup.desktop.root.path)
                let linked = try await #require(throws: WebAuthenticationSessionError.self) {
                    try await receiver.listen(for: .customScheme("com.example.unsafe"), deciding: acceptingEvery)
                }
                #expect(linked.message.contains("symbolic link"))

                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o777], ofItemAtPath: setup.desktop.runtimeDirectory)
                let runtime = try await #require(throws: WebAuthenticationSessionError.self) {
                    try await receiver.listen(for: .customScheme("com.example.unsafe"), deciding: acceptingEvery)
                }
                #expect(runtime.message.contains("XDG_RUNTIME_DIR"))
            }

            @Test func aURLForNoWaitingSessionIsDroppedAndNeverQueued() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.dropped"])
                defer { setup.remove() }
                let early = try await setup.handler("com.example.dropped:/cb?code=early-secret&state=s")
                #expect(early.status == CallbackForwardingError.Code.noWaitingSession.exitStatus)
                #expect(early.standardError.contains("no sign-in is waiting for com.example.dropped: callbacks"))
                #expect(early.standardError.contains("was dropped"))
                #expect(!early.standardError.contains("early-secret"))
                let viaDesktop = try await setup.xdgOpen("com.example.dropped:/cb?code=early-secret-2&state=s")
                #expect(viaDesktop.status != 0)

                // A session that starts afterwards gets only what is sent while it waits.
                let listener = try await setup.receiver().listen(
                    for: .customScheme("com.example.dropped"), deciding: acceptingEvery)
                #expect(await firstCallback(of: listener, within: .milliseconds(500)) == nil)
                let fresh = try await setup.handler("com.example.dropped:/cb?code=fresh&state=s")
                #expect(fresh.status == 0, "\(fresh.standardError)")
                await listener.close()
            }

            @Test func forgedMalformedAndOversizedURLsDoNotEndTheWait() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.forged"])
                defer { setup.remove() }
                let rule = AcceptanceRule(state: "real-state")
                let listener = try await setup.receiver(readTimeout: .seconds(3)).listen(
                    for: .customScheme("com.example.forged"), deciding: rule.verdict)
                let socket = setup.socketDirectory.socketPath(forScheme: "com.example.forged")

                let forged = try await setup.handler("com.example.forged:/cb?code=attacker&state=guess")
                #expect(forged.status == CallbackForwardingError.Code.rejected.exitStatus)
                #expect(forged.standardError.contains("did not accept"))
                #expect(!forged.standardError.contains("attacker"))

                let otherScheme = await exchange(socket, Array("other.scheme:/cb?code=1\n".utf8))
                #expect(otherScheme.hasPrefix("rejected: other.scheme:/cb?…"))
                let control = await exchange(socket, Array("com.example.forged:/cb?\u{7}x\n".utf8))
                #expect(control.contains("control characters"))
                #expect(await exchange(socket, Array("not a url\n".utf8)).hasPrefix("rejected: "))
                let oversized =
                    "com.example.forged:/cb?state=real-state&pad=" + String(repeating: "a", count: 70 * 1024) + "\n"
                #expect(await exchange(socket, Array(oversized.utf8)).contains("longer than 64 KiB"))
                // A client that sends nothing is dropped after the read timeout, with no answer.
                #expect(await exchange(socket, [], wait: .seconds(10)) == "")

                let real = "com.example.forged:/cb?code=good&state=real-state"
                let delivered = try await setup.handler(real)
                #expect(delivered.status == 0, "\(delivered.standardError)")
                #expect(await firstCallback(of: listener)?.absoluteString == real)

                // Afterwards nobody is waiting any more.
                let late = try await setup.handler(real)
                #expect(late.status == CallbackForwardingError.Code.noWaitingSession.exitStatus)
                await listener.close()
            }

            @Test func oneWaitingSessionPerSchemeInAProcess() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.once", "com.example.other"])
                defer { setup.remove() }
                let receiver = setup.receiver()
                let first = try await receiver.listen(for: .customScheme("com.example.once"), deciding: acceptingEvery)
                let second = try await #require(throws: WebAuthenticationSessionError.self) {
                    try await receiver.listen(for: .customScheme("com.example.once"), deciding: acceptingEvery)
                }
                #expect(second.code == .callbackListenerFailed)
                #expect(second.message.contains("com.example.once:"))
                #expect(second.message.contains("another sign-in is already waiting"))
                // The refused attempt did not disturb the first session's socket.
                let other = try await receiver.listen(for: .customScheme("com.example.other"), deciding: acceptingEvery)
                let delivered = try await setup.handler("com.example.once:/cb?x=1")
                #expect(delivered.status == 0, "\(delivered.standardError)")
                #expect(await firstCallback(of: first)?.absoluteString == "com.example.once:/cb?x=1")
                await first.close()

                let again = try await receiver.listen(for: .customScheme("com.example.once"), deciding: acceptingEvery)
                await again.close()
                await other.close()
            }

            @Test func aSocketLeftByADeadProcessIsReplaced() async throws {
                let setup = try RegisteredDesktop(schemes: ["com.example.stale"])
                defer { setup.remove() }
                try setup.socketDirectory.prepare()
                let socket = setup.socketDirectory.socketPath(forScheme: "com.example.stale")
                // A socket file with nobody listening, and a lock file nobody holds: what a crash leaves.
                DesktopSocketCalls.close(try DesktopSocketCalls.makeBoundSocket(at: socket))
                #expect(
                    FileManager.default.createFile(
                        atPath: setup.socketDirectory.lockPath(forScheme: "com.example.stale"), contents: nil))
                #expect(fileMode(socket)?.isSocket == true)
                let stale = try await setup.handler("com.example.stale:/cb?x=1")
                #expect(stale.status == CallbackForwardingError.Code.noWaitingSession.exitStatus)

                let listener = try await setup.receiver().listen(
                    for: .customScheme("com.example.stale"), deciding: acceptingEvery)
                let delivered = try await setup.xdgOpen("com.example.stale:/cb?x=2")
                #expect(delivered.status == 0, "\(delivered.standardError)")
                #expect(await firstCallback(of: listener)?.absoluteString == "com.example.stale:/cb?x=2")
                await listener.close()
            }

            @Test func aLongSchemeWorksThroughItsHashedSocketName() async throws {
                let scheme = "com.example." + String(repeating: "long", count: 25)
                let setup = try RegisteredDesktop(schemes: [scheme])
                defer { setup.remove() }
                let listener = try await setup.receiver().listen(for: .customScheme(scheme), deciding: acceptingEvery)
                let delivered = try await setup.xdgOpen("\(scheme):/cb?x=1")
                #expect(delivered.status == 0, "\(delivered.standardError)")
                #expect(await firstCallback(of: listener)?.absoluteString == "\(scheme):/cb?x=1")
                await listener.close()
            }

            @Test func theHandlerRefusesWhatIsNotACallbackURL() async throws {
                let setup = try RegisteredDesktop()
                defer { setup.remove() }
                for argument in ["https://example.com/", "no-scheme", "bad scheme:/x"] {
                    let result = try await setup.handler(argument)
                    #expect(result.status == CallbackForwardingError.Code.invalidURL.exitStatus, "\(argument)")
                }
                let usage = try await setup.desktop.run(TemporaryDesktop.schemeHandlerPath, [])
                #expect(usage.status == 64)
                let flag = try await setup.desktop.run(TemporaryDesktop.schemeHandlerPath, ["--help"])
                #expect(flag.status == 64)
            }

            /// Sends `bytes` to the socket at `path` as a raw client and returns the answer line.
            /// The blocking reads run on a thread of their own, so that waiting out the read
            /// timeout does not hold one of the few threads every other test runs on.
            private func exchange(_ path: String, _ bytes: [UInt8], wait: Duration = .seconds(5)) async -> String {
                await withCheckedContinuation { continuation in
                    Thread.detachNewThread {
                        continuation.resume(returning: Self.blockingExchange(path, bytes, wait: wait))
                    }
                }
            }

            private static func blockingExchange(_ path: String, _ bytes: [UInt8], wait: Duration) -> String {
                guard let descriptor = try? DesktopSocketCalls.makeConnection(to: path) else {
                    return "<no connection>"
                }
                defer { close(descriptor) }
                if !bytes.isEmpty { DesktopSocketCalls.writeAll(descriptor, bytes, deadline: .now + .seconds(5)) }
                switch DesktopSocketCalls.readLine(descriptor, limit: 4096, deadline: .now + wait) {
                case .line(let line), .endOfInput(let line): return String(decoding: line, as: UTF8.self)
                default: return "<no answer>"
                }
            }
        }
    }
#endif
