// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the token store checks before it trusts what it reads: the directory above the token
/// directory, the session bus `secret-tool` would talk to, and the tokens read back.
@Suite struct StoreTrustTests {
    private static func environment(_ temporary: TemporaryDirectory) -> [String: String] {
        ["HOME": temporary.path, "XDG_STATE_HOME": temporary.path + "/state", "DBUS_SESSION_BUS_ADDRESS": ""]
    }

    // MARK: <state>/webauth

    @Test(arguments: [0o777, 0o775, 0o757, 0o1777])
    func aStateDirectoryOthersCanWriteIsRefusedNamingThePathAndTheFix(mode: Int) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/state/webauth"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, mode_t(mode))
        let stores = TokenStores(environment: Self.environment(temporary))
        for attempt in 0..<3 {
            do {
                switch attempt {
                case 0: _ = try stores.fileStore()
                case 1: try await stores.save(entry(1), profile: "default")
                default: try await stores.index.record(.file, for: "default")
                }
                Issue.record("attempt \(attempt) was not refused")
            } catch let error as TokenStoreError {
                #expect(error.code == .insecureDirectory)
                #expect(error.message.contains(directory) && error.message.contains("chmod go-w \(directory)"))
            }
        }
        // Nothing was made inside it, nor was it "repaired" behind the person's back.
        #expect(!FileManager.default.fileExists(atPath: directory + "/tokens"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/profiles.json"))
        #expect(permissions(of: directory)?.mode == mode_t(mode))
    }

    @Test func aStateDirectoryOfAnotherUserOrALinkIsRefused() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/state/webauth"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        #expect(chown(directory, 65534, 65534) == 0)
        let stores = TokenStores(environment: Self.environment(temporary))
        #expect {
            _ = try stores.fileStore()
        } throws: { error in
            guard let error = error as? TokenStoreError else { return false }
            return error.code == .insecureDirectory && error.message.contains("\(directory) belongs to user 65534")
        }

        try FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: temporary.path + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory, withDestinationPath: temporary.path + "/real")
        #expect {
            _ = try stores.fileStore()
        } throws: { ($0 as? TokenStoreError)?.code == .insecureDirectory }
        #expect(!FileManager.default.fileExists(atPath: temporary.path + "/real/tokens"))
    }

    @Test func aStateDirectoryOfThePersonIsUsedOrCreatedPrivate() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let stores = TokenStores(environment: Self.environment(temporary))
        try await stores.save(entry(1), profile: "default")
        #expect(permissions(of: temporary.path + "/state/webauth")?.mode == 0o700)
        // Readable by others is the person's choice: not writable is what counts.
        chmod(temporary.path + "/state/webauth", 0o755)
        #expect(try await stores.find(profile: "default")?.entry == entry(1))
    }

    // MARK: Tokens read back

    @Test func aStoredTokenOutsideRFC6749sCharactersIsRefusedAsCorrupt() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path + "/tokens")
        for token in ["a\u{1B}]52;c;aGk=\u{07}b", "two\nlines", "caf\u{E9}"] {
            var planted = entry(1)
            planted.tokens.accessToken = token
            try await store.save(planted, profile: "default")
            await #expect {
                _ = try await store.load(profile: "default")
            } throws: { error in
                guard let error = error as? TokenStoreError else { return false }
                return error.code == .corrupt && !error.message.contains(token)
            }
        }
        var idToken = entry(1)
        idToken.tokens.idToken = "header.\u{1B}[2J.signature"
        try await store.save(idToken, profile: "default")
        await #expect {
            _ = try await store.load(profile: "default")
        } throws: { ($0 as? TokenStoreError)?.code == .corrupt }
    }

    // MARK: The bus secret-tool talks to

    /// A `secret-tool` that notes that it ran and answers with an entry, as a bus's keyring
    /// would through it.
    private static func recordingSecretTool(in directory: String) throws -> (path: String, marker: String) {
        let marker = directory + "/secret-tool-ran"
        let json = String(decoding: try entry(7).encoded(), as: UTF8.self)
        let script = "#!/bin/sh\ntouch '\(marker)'\nprintf '%s' '\(json)'\n"
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/secret-tool", contents: Data(script.utf8), attributes: [.posixPermissions: 0o700])
        )
        return (directory + "/secret-tool", marker)
    }

    @Test func secretToolIsNotRunAgainstABusAnotherUserListensOn() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let (_, marker) = try Self.recordingSecretTool(in: temporary.path)
        let guid = "0123456789abcdef0123456789abcdef"
        var environment = Self.environment(temporary)
        environment["PATH"] = temporary.path + ":/usr/bin:/bin"

        // This user's bus: secret-tool runs and its answer is read (the check lets it through).
        let own = try FakeSessionBus(guid: guid) { _, _ in nil }
        environment["DBUS_SESSION_BUS_ADDRESS"] = own.address
        #expect(try await SecretServiceTokenStore(environment: environment).load(profile: "default") == entry(7))
        #expect(FileManager.default.fileExists(atPath: marker))
        own.stop()
        try FileManager.default.removeItem(atPath: marker)

        // Another user's bus, or the wrong GUID: refused before secret-tool runs.
        let other = try FakeSessionBus(guid: guid, listeningAs: 65534) { _, _ in nil }
        defer { other.stop() }
        let wrongGUID = try FakeSessionBus(guid: guid) { _, _ in nil }
        defer { wrongGUID.stop() }
        for (address, reason) in [
            (other.address, "run by user 65534"), (wrongGUID.address + ",guid=" + String(guid.reversed()), "guid"),
        ] {
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
            let store = try SecretServiceTokenStore(environment: environment)
            await #expect {
                _ = try await store.load(profile: "default")
            } throws: { error in
                guard let error = error as? TokenStoreError else { return false }
                return error.code == .keyringUnavailable && error.message.contains(reason)
            }
            #expect(!FileManager.default.fileExists(atPath: marker), "secret-tool ran against \(address)")
        }
        #expect(other.authentications == 0)
    }
}
