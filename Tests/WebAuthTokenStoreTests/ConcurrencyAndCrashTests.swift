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

@Suite struct ConcurrencyAndCrashTests {
    /// What these tests check is that nothing is lost, not how long a turn takes: on a loaded
    /// machine a waiter can wait its turn for more than the default 30 seconds.
    static let patientLock = Duration.seconds(300)

    /// Tasks in one process: every read-modify-write sees the one before it.
    @Test func concurrentUpdatesLoseNothing() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path, lockTimeout: Self.patientLock)
        let tasks = 8
        let updatesPerTask = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<updatesPerTask {
                        try await store.update(profile: "shared") { stored in
                            await Task.yield()  // give the others a chance to interleave
                            return entry((counter(of: stored) ?? 0) + 1)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter(of: try await store.load(profile: "shared")) == tasks * updatesPerTask)
    }

    /// Two child processes and tasks of this one, all on the same profile.
    @Test func concurrentUpdatesAcrossProcessesLoseNothing() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path, lockTimeout: Self.patientLock)
        let perChild = 60
        let children = try (0..<2).map { index in
            try ChildProcess.start(
                role: "incrementer", directory: temporary.path, extra: ["WEBAUTH_TOKENSTORE_TEST_COUNT": "\(perChild)"],
                log: temporary.path + "/child-\(index).log")
        }
        let ownUpdates = 40
        for _ in 0..<ownUpdates {
            try await store.update(profile: "shared") { entry((counter(of: $0) ?? 0) + 1) }
        }
        for (index, child) in children.enumerated() {
            let status = try await exitStatus(of: child, within: .seconds(120), what: "incrementer \(index)")
            let log = (try? String(contentsOfFile: temporary.path + "/child-\(index).log", encoding: .utf8)) ?? ""
            #expect(status == 0, "child \(index): \(log)")
        }
        #expect(counter(of: try await store.load(profile: "shared")) == 2 * perChild + ownUpdates)
    }

    /// A writer killed at random moments leaves the old entry or the new one, never a broken one.
    @Test func writerKilledMidWriteLeavesOldOrNew() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try FileTokenStore(directory: temporary.path)
        try await store.save(entry(0), profile: "crash")
        var lastSeen = 0
        var leftTemporaryFiles = 0
        // At least 30 rounds, and more (up to 200) until a kill has landed in the middle of a
        // write at least once — seen as the temporary file it leaves — so the claim is tested.
        var round = 0
        while round < 30 || (leftTemporaryFiles == 0 && round < 200) {
            defer { round += 1 }
            let child = try ChildProcess.start(
                role: "crash-writer", directory: temporary.path, log: temporary.path + "/child.log")
            // Once it has written at least once this round, let it run a random while, then kill it.
            let start = lastSeen
            let wrote = await eventually(within: .seconds(60)) {
                child.hasExited || (counter(of: try? Self.read(temporary.path + "/crash.json")) ?? 0) > start
            }
            guard wrote else {
                await child.terminate(grace: .milliseconds(100))
                throw TimedOut(what: "round \(round)'s first write")
            }
            #expect(
                !child.hasExited,
                "\((try? String(contentsOfFile: temporary.path + "/child.log", encoding: .utf8)) ?? "")")
            // Real time is the point: the kill lands at a random moment of the writing.
            try await Task.sleep(for: .microseconds(Int.random(in: 0..<30_000)))
            child.send(SIGKILL)
            _ = try await exitStatus(of: child, within: .seconds(10), what: "the killed writer")

            // The file is a complete entry: the last one written or the one before.
            let stored = try await store.load(profile: "crash")
            let value = try #require(counter(of: stored))
            #expect(value >= lastSeen)
            #expect(stored == entry(value, padding: 64 * 1024))
            #expect(permissions(of: temporary.path + "/crash.json")?.mode == 0o600)
            lastSeen = value
            let names = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            leftTemporaryFiles += names.filter { $0.contains(".tmp-") }.count
        }
        #expect(leftTemporaryFiles > 0, "no kill landed mid-write in \(round) rounds")
        // The next write clears what the killed writers left.
        try await store.save(entry(lastSeen + 1), profile: "crash")
        let names = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(names.filter { $0.contains(".tmp-") } == [])
        print("crash test: last value \(lastSeen), temporary files seen after kills: \(leftTemporaryFiles)")
    }

    private static func read(_ path: String) throws -> StoredTokens {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(StoredTokens.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
