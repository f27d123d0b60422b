// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCore
import WebAuthOAuth
import WebAuthTestSupport
import WebAuthTokenStore

// The C library's `stat` and the like, which this toolchain's Foundation declares through
// CoreFoundation and CDispatch: the modules that member-import visibility asks for.
#if canImport(CDispatch)
    import CDispatch
    import CoreFoundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

@Suite struct FileTokenStoreTests {
    @Test func roundTripWithPrivatePermissions() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/state/webauth/tokens"
        let store = try FileTokenStore(directory: directory)
        #expect(store.kind == .file)
        #expect(store.location == directory)
        #expect(try await store.load(profile: "default") == nil)
        #expect(try await store.profiles() == [])

        try await store.save(entry(1), profile: "default")
        try await store.save(entry(7), profile: "work")
        #expect(try await store.load(profile: "default") == entry(1))
        #expect(try await store.load(profile: "work")?.tokens.refreshToken == "rt-7")
        #expect(try await store.load(profile: "work")?.issuer == "https://issuer.example")
        #expect(try await store.profiles() == ["default", "work"])

        #expect(permissions(of: directory)?.mode == 0o700)
        #expect(permissions(of: temporary.path + "/state/webauth")?.mode == 0o700)
        #expect(permissions(of: directory + "/default.json")?.mode == 0o600)
        #expect(permissions(of: directory + "/default.json")?.owner == geteuid())

        #expect(try await store.delete(profile: "default"))
        #expect(try await store.delete(profile: "default") == false)
        #expect(try await store.load(profile: "default") == nil)
        #expect(try await store.profiles() == ["work"])

        // Nothing but the entries and their lock files: no temporary file left.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == [".default.lock", ".work.lock", "work.json"])
    }

    @Test func aWriteClearsItsOwnLeftoversAndNoOtherProfiles() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/tokens"
        let store = try FileTokenStore(directory: directory)
        // What a writer of profile "a" killed mid-write leaves, and the file a live writer of
        // profile "a.json.tmp-b" (a valid name) has open right now: only the first is stale.
        let stale = directory + "/.a.json.tmp-123"
        let othersInFlight = directory + "/.a.json.tmp-b.json.tmp-456"
        for path in [stale, othersInFlight] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        try await store.save(entry(1), profile: "a")
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: othersInFlight))
    }

    @Test func updateRemovesAndKeeps() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path)
        #expect(try await store.update(profile: "p") { _ in entry(1) } == entry(1))
        // Returning what it was given writes nothing: the very same file (an atomic write would
        // have put a new one in its place).
        func inode(_ path: String) -> ino_t? {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_ino : nil
        }
        let before = try #require(inode(temporary.path + "/p.json"))
        #expect(try await store.update(profile: "p") { $0 } == entry(1))
        #expect(inode(temporary.path + "/p.json") == before)
        _ = try await store.update(profile: "p") { _ in entry(2) }
        #expect(inode(temporary.path + "/p.json") != before, "a write does replace the file")
        _ = try await store.update(profile: "p") { _ in entry(1) }
        // An error from the body leaves the entry alone.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.update(profile: "p") { _ in throw Refused() }
        }
        #expect(try await store.load(profile: "p") == entry(1))
        // nil removes it.
        #expect(try await store.update(profile: "p") { _ in nil } == nil)
        #expect(try await store.load(profile: "p") == nil)
    }

    @Test(arguments: [
        "", ".", "..", "../x", "a/b", "/etc", ".hidden", "-rf", "a..b", "naïve", "a b", "x\n", "a;b",
        String(repeating: "a", count: 65),
    ])
    func badProfileNamesAreRejected(name: String) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path)
        for operation in 0..<4 {
            do {
                switch operation {
                case 0: _ = try await store.load(profile: name)
                case 1: try await store.save(entry(1), profile: name)
                case 2: _ = try await store.delete(profile: name)
                default: _ = try await store.update(profile: name) { _ in entry(1) }
                }
                Issue.record("operation \(operation) accepted \(name.debugDescription)")
            } catch let error as TokenStoreError {
                #expect(error.code == .invalidProfileName)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    @Test func goodProfileNames() {
        for name in ["default", "work.example", "A_b-9", String(repeating: "a", count: 64)] {
            #expect(ProfileName.isValid(name), "\(name)")
        }
    }

    @Test func accessibleDirectoryIsMadePrivate() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/tokens"
        #expect(mkdir(directory, 0o777) == 0)
        #expect(chmod(directory, 0o777) == 0)
        let store = try FileTokenStore(directory: directory)
        #expect(permissions(of: directory)?.mode == 0o700)
        try await store.save(entry(1), profile: "p")
        #expect(try await store.load(profile: "p") == entry(1))
    }

    @Test func symbolicLinkDirectoryIsRefused() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        #expect(mkdir(temporary.path + "/real", 0o700) == 0)
        #expect(symlink(temporary.path + "/real", temporary.path + "/link") == 0)
        #expect {
            _ = try FileTokenStore(directory: temporary.path + "/link")
        } throws: { ($0 as? TokenStoreError)?.code == .insecureDirectory }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory to another user"))
    func directoryOfAnotherUserIsRefused() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = temporary.path + "/tokens"
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chown(directory, 65534, 65534) == 0)
        #expect {
            _ = try FileTokenStore(directory: directory)
        } throws: { ($0 as? TokenStoreError)?.code == .insecureDirectory }
    }

    @Test func readableFileIsRefusedAndCorruptFileReported() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path)
        try await store.save(entry(1), profile: "p")
        #expect(chmod(temporary.path + "/p.json", 0o644) == 0)
        await #expect {
            _ = try await store.load(profile: "p")
        } throws: { ($0 as? TokenStoreError)?.code == .insecureFile }

        #expect(chmod(temporary.path + "/p.json", 0o600) == 0)
        let secret = "rt-secret-in-a-broken-file"
        try Data("{\"tokens\": \"\(secret)\"".utf8).write(to: URL(fileURLWithPath: temporary.path + "/p.json"))
        #expect(chmod(temporary.path + "/p.json", 0o600) == 0)
        do {
            _ = try await store.load(profile: "p")
            Issue.record("a broken file decoded")
        } catch let error as TokenStoreError {
            #expect(error.code == .corrupt)
            #expect(!error.description.contains(secret))
        }
    }

    @Test func descriptionsHideTokens() {
        let stored = entry(3)
        for text in [stored.description, "\(stored)", String(reflecting: stored.tokens)] {
            #expect(!text.contains("at-3-secret-value"))
            #expect(!text.contains("rt-3"))
        }
    }

    @Test(arguments: ["0", "277"])
    func fileIsPrivateWhateverTheUmask(umask: String) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let child = try ChildProcess.start(
            role: "umask-writer", directory: temporary.path, extra: ["WEBAUTH_TOKENSTORE_TEST_UMASK": umask],
            log: temporary.path + "/child.log")
        let status = try await exitStatus(of: child, within: .seconds(60), what: "the umask-writer child")
        #expect(status == 0, "\((try? String(contentsOfFile: temporary.path + "/child.log", encoding: .utf8)) ?? "")")
        #expect(permissions(of: temporary.path + "/tokens")?.mode == 0o700)
        #expect(permissions(of: temporary.path + "/tokens/umask.json")?.mode == 0o600)
    }
}
