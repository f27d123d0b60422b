// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthProcess
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite(.serialized) struct SecretServiceTokenStoreTests {
    @Test(TestFixture.keyring.required)
    func roundTripThroughARealKeyring() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let keyring = try await PrivateKeyring.start(in: home.path)
        do {
            try await Self.roundTrip(keyring)
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }

    private static func roundTrip(_ keyring: PrivateKeyring) async throws {
        // A secret-tool on PATH that records its arguments, then runs the real one: the secret
        // must never be among them (what `ps` would show).
        let shims = keyring.home + "/shims"
        mkdir(shims, 0o700)
        let argumentLog = keyring.home + "/arguments.log"
        _ = FileManager.default.createFile(
            atPath: shims + "/secret-tool",
            contents: Data(
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'\(argumentLog)'\nexec /usr/bin/secret-tool \"$@\"\n".utf8),
            attributes: [.posixPermissions: 0o700])
        var environment = keyring.environment
        environment["PATH"] = shims + ":" + (environment["PATH"] ?? "")

        let store = try SecretServiceTokenStore(environment: environment)
        #expect(store.kind == .keyring)
        #expect(store.executable == shims + "/secret-tool")
        try await store.checkAvailability()
        #expect(try await store.load(profile: "default") == nil)
        #expect(try await store.profiles() == [])

        try await store.save(entry(1), profile: "default")
        try await store.save(entry(5), profile: "work")
        #expect(try await store.load(profile: "default") == entry(1))
        #expect(try await store.load(profile: "work") == entry(5))
        #expect(try await store.profiles() == ["default", "work"])
        try await store.save(entry(2), profile: "default")
        #expect(try await store.load(profile: "default") == entry(2))

        // update, from several tasks at once: nothing lost.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<3 {
                        try await store.update(profile: "default") { entry((counter(of: $0) ?? 0) + 1) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter(of: try await store.load(profile: "default")) == 2 + 12)

        // An entry secret-tool would silently cut at 8 KiB is refused whole; the stored one stays.
        await #expect {
            try await store.save(entry(99, padding: 9000), profile: "default")
        } throws: { ($0 as? TokenStoreError)?.code == .entryTooLarge }
        #expect(counter(of: try await store.load(profile: "default")) == 2 + 12)

        #expect(try await store.delete(profile: "work"))
        #expect(try await store.delete(profile: "work") == false)
        #expect(try await store.load(profile: "work") == nil)
        #expect(try await store.profiles() == ["default"])
        #expect(permissions(of: keyring.home + "/state/webauth/locks")?.mode == 0o700)

        let arguments = try String(contentsOfFile: argumentLog, encoding: .utf8)
        #expect(arguments.contains("store --label webauth: default service webauth profile default"))
        #expect(!arguments.contains("secret-value"))
        #expect(!arguments.contains("rt-"))

        // The selection finds this keyring.
        let selected = try await TokenStoreSelection.automatic.makeStore(environment: environment)
        #expect(selected.kind == .keyring)
        #expect(try await TokenStoreSelection.keyring.makeStore(environment: environment).kind == .keyring)
    }

    @Test func unavailableWithoutASessionBus() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let environment = [
            "HOME": temporary.path, "PATH": "/usr/bin:/bin", "XDG_STATE_HOME": temporary.path + "/state",
        ]
        #expect {
            _ = try SecretServiceTokenStore(environment: environment)
        } throws: { ($0 as? TokenStoreError)?.code == .keyringUnavailable }
        await #expect {
            _ = try await TokenStoreSelection.keyring.makeStore(environment: environment)
        } throws: { ($0 as? TokenStoreError)?.code == .keyringUnavailable }
        let automatic = try await TokenStoreSelection.automatic.makeStore(environment: environment)
        #expect(automatic.kind == .file)
        #expect(automatic.location == temporary.path + "/state/webauth/tokens")
        #expect(permissions(of: automatic.location)?.mode == 0o700)
        #expect(try await TokenStoreSelection.file.makeStore(environment: environment).kind == .file)
    }

    @Test(TestFixture.keyring.required)
    func unavailableWhenTheBusDoesNotAnswer() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let environment = [
            "HOME": temporary.path, "PATH": "/usr/bin:/bin", "XDG_STATE_HOME": temporary.path + "/state",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(temporary.path)/no-such-bus",
        ]
        let store = try SecretServiceTokenStore(environment: environment, timeout: .seconds(10))
        await #expect {
            try await store.checkAvailability()
        } throws: { ($0 as? TokenStoreError)?.code == .keyringUnavailable }
        // No bus there: the check before secret-tool runs says so.
        await #expect {
            _ = try await store.load(profile: "default")
        } throws: { ($0 as? TokenStoreError)?.code == .keyringUnavailable }
        #expect(try await TokenStoreSelection.automatic.makeStore(environment: environment).kind == .file)
    }

    /// A keyring that never answers (locked, waiting on a prompt nobody sees) counts as
    /// unavailable after the time limit: here a `secret-tool` that just sleeps, on a bus of
    /// this user's that passes the check before it runs.
    @Test func unavailableWhenTheKeyringDoesNotAnswerInTime() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let bus = try FakeSessionBus(guid: "0123456789abcdef0123456789abcdef") { _, _ in nil }
        defer { bus.stop() }
        _ = FileManager.default.createFile(
            atPath: temporary.path + "/secret-tool", contents: Data("#!/bin/sh\nexec sleep 60\n".utf8),
            attributes: [.posixPermissions: 0o700])
        let environment = [
            "HOME": temporary.path, "PATH": temporary.path + ":/usr/bin:/bin",
            "XDG_STATE_HOME": temporary.path + "/state", "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]
        let store = try SecretServiceTokenStore(environment: environment, timeout: .milliseconds(300))
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            try await store.checkAvailability(within: .milliseconds(300))
        } throws: { ($0 as? TokenStoreError)?.code == .keyringUnavailable }
        await #expect {
            try await store.save(entry(1), profile: "p")
        } throws: { ($0 as? TokenStoreError)?.code == .keyringFailed }
        #expect(clock.now - started < .seconds(30), "fails, does not hang")
    }
}
