// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform
import WebAuthTestSupport
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The file store on a real `tmpfs` that fills up or turns read-only: an update fails before its
/// body runs (so a refresh is never sent whose rotated refresh token could not be kept), the
/// stored entry stays whole, and no temporary file is left. Mounting needs root: with permission
/// bits alone a directory is never read-only for root, and only a real file system gives a real
/// `ENOSPC`.
@Suite(.enabled(if: SmallFileSystem.isAvailable, "mounting a tmpfs needs root"))
struct FullAndReadOnlyDiskTests {
    @Test(arguments: SmallFileSystem.WriteFault.allCases)
    func aRefusedWriteFailsAnUpdateBeforeItsBodyRunsAndKeepsTheEntry(_ fault: SmallFileSystem.WriteFault)
        async throws
    {
        let disk = try SmallFileSystem(size: 256 * 1024)
        defer { disk.remove() }
        let store = try FileTokenStore(directory: disk.path + "/tokens")
        try await store.save(entry(1), profile: "default")
        try disk.inflict(fault)

        let bodyRan = Locked(false)
        await #expect {
            try await store.update(profile: "default") { _ in
                bodyRan.withLock { $0 = true }
                return entry(2)
            }
        } throws: { error in
            let error = try #require(error as? TokenStoreError)
            return error.code == .fileSystem && error.message.contains(fault.message)
        }
        #expect(!bodyRan.withLock { $0 }, "nothing was asked of the provider")
        #expect(try await store.load(profile: "default") == entry(1), "still readable")
        #expect(try temporaryFiles(in: disk.path + "/tokens") == [])

        // Once writes work again the same update goes through.
        try disk.mend(fault)
        try await store.update(profile: "default") { _ in entry(2) }
        #expect(try await store.load(profile: "default") == entry(2))
        #expect(try temporaryFiles(in: disk.path + "/tokens") == [])
    }

    @Test func anUpdateThatChangesNothingLeavesNoTemporaryFile() async throws {
        let disk = try SmallFileSystem(size: 256 * 1024)
        defer { disk.remove() }
        let store = try FileTokenStore(directory: disk.path + "/tokens")
        try await store.save(entry(1), profile: "default")
        try await store.update(profile: "default") { $0 }
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await store.update(profile: "default") { _ in throw Refused() } }
        #expect(try temporaryFiles(in: disk.path + "/tokens") == [])
        #expect(try await store.load(profile: "default") == entry(1))
    }

    private func temporaryFiles(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
    }
}
