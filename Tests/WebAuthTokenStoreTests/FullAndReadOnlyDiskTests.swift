import Foundation
import Synchronization
import Testing
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
    @Test func aFullDiskFailsAnUpdateBeforeItsBodyRunsAndKeepsTheEntry() async throws {
        let disk = try SmallFileSystem(size: 256 * 1024)
        defer { disk.remove() }
        let store = try FileTokenStore(directory: disk.path + "/tokens")
        try await store.save(entry(1), profile: "default")
        try disk.fill()

        let bodyRan = Mutex(false)
        await #expect {
            try await store.update(profile: "default") { _ in
                bodyRan.withLock { $0 = true }
                return entry(2)
            }
        } throws: { error in
            let error = try #require(error as? TokenStoreError)
            return error.code == .fileSystem && error.message.contains("No space left on device")
        }
        #expect(!bodyRan.withLock { $0 }, "nothing was asked of the provider")
        #expect(try await store.load(profile: "default") == entry(1))
        #expect(try temporaryFiles(in: disk.path + "/tokens") == [])

        // With room again the same update goes through.
        disk.empty()
        try await store.update(profile: "default") { _ in entry(2) }
        #expect(try await store.load(profile: "default") == entry(2))
        #expect(try temporaryFiles(in: disk.path + "/tokens") == [])
    }

    @Test func aReadOnlyDirectoryFailsAnUpdateBeforeItsBodyRunsAndKeepsTheEntry() async throws {
        let disk = try SmallFileSystem(size: 256 * 1024)
        defer { disk.remove() }
        let store = try FileTokenStore(directory: disk.path + "/tokens")
        try await store.save(entry(1), profile: "default")
        try disk.makeReadOnly()

        let bodyRan = Mutex(false)
        await #expect {
            try await store.update(profile: "default") { _ in
                bodyRan.withLock { $0 = true }
                return entry(2)
            }
        } throws: { error in
            let error = try #require(error as? TokenStoreError)
            return error.code == .fileSystem && error.message.contains("Read-only file system")
        }
        #expect(!bodyRan.withLock { $0 })
        #expect(try await store.load(profile: "default") == entry(1), "still readable")

        try disk.makeWritable()
        try await store.update(profile: "default") { _ in entry(2) }
        #expect(try await store.load(profile: "default") == entry(2))
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
