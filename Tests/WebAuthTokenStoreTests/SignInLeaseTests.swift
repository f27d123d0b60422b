// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthProcess
import WebAuthTestSupport

@testable import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The profile's sign-in lease: one holder across processes, a record waiters can read, and a
/// lock the kernel takes back from a holder that dies.
@Suite("A profile's sign-in lease")
struct SignInLeaseTests {
    /// `XDG_STATE_HOME` in `directory`.
    static func environment(_ directory: TemporaryDirectory) -> [String: String] {
        ["XDG_STATE_HOME": directory.path + "/state", "HOME": directory.path]
    }

    /// An attempt at the lease of profile `work`.
    static func attempt(_ environment: [String: String]) throws -> SignInLease.Attempt {
        try SignInLease.attempt(profile: "work", environment: environment)
    }

    /// The lease, taken as soon as it is free, or `nil` after `limit`. A lock ends when every
    /// copy of its descriptor is closed, and a process another test starts at that moment holds
    /// a copy until it runs its program (the descriptor is close-on-exec): a lease just given up
    /// can stay taken for that moment.
    static func acquire(_ environment: [String: String], within limit: Duration = .seconds(10)) async throws
        -> SignInLease?
    {
        var lease: SignInLease?
        var failure: (any Error)?
        _ = await eventually(within: limit) {
            do { lease = try attempt(environment).acquired } catch { failure = error }
            return lease != nil || failure != nil
        }
        if let failure { throw failure }
        return lease
    }

    /// Whether a process or thread waits in `flock` for the file at `path`: the kernel lists each
    /// waiting request in `/proc/locks` on a line with `->`, naming the file by its inode.
    static func someoneWaits(on path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
            return false
        }
        // A waiting request's line: `1: -> FLOCK  ADVISORY  WRITE 1234 fe:01:5678 0 EOF`.
        let inode = ":\(info.st_ino)"
        return locks.split(separator: "\n").contains { line in
            line.contains("->")
                && line.split(separator: " ").contains { $0.split(separator: ":").count == 3 && $0.hasSuffix(inode) }
        }
    }

    /// `flock(1)` holding `path` exclusively while `sleep` runs: another process, as a
    /// `webauth` that signs in would be. Returns once it holds the lock.
    static func holdInAnotherProcess(_ path: String) async throws -> Subprocess {
        let holder = try Subprocess(executable: "/usr/bin/flock", arguments: ["--exclusive", path, "sleep", "60"])
        var failure: (any Error)?
        let held = await eventually(within: .seconds(20)) {
            do {
                let probe = try Subprocess(
                    executable: "/usr/bin/flock", arguments: ["--exclusive", "--nonblock", path, "true"])
                return await probe.exitStatus() != 0
            } catch {
                failure = error
                return true
            }
        }
        if let failure { throw failure }
        if held { return holder }
        await holder.terminate(grace: .milliseconds(100))
        throw TimedOut(what: "flock never held \(path)")
    }

    @Test func theFirstTakesTheLeaseAndTheSecondFindsItHeldWithTheHoldersRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = Self.environment(directory)
        let lease = try #require(try Self.attempt(environment).acquired, "a free lease was not taken")
        lease.announce(command: "git-credential", terminal: "/dev/pts/7", method: "browser")
        // Another open file description of the same file: excluded as another process would be.
        let record = try #require(try Self.attempt(environment).held, "a held lease was taken twice")
        #expect(record?.pid == getpid())
        #expect(record?.command == "git-credential")
        #expect(record?.terminal == "/dev/pts/7")
        #expect(record?.method == "browser")
        #expect(record?.outcome == nil)
        let paths = SignInLease.Paths(profile: "work", environment: environment)
        #expect(permissions(of: paths.record)?.mode == 0o600)
        #expect(permissions(of: directory.path + "/state/webauth/locks")?.mode == 0o700)
        lease.finish(.signedIn)
        let next = try #require(try await Self.acquire(environment), "a finished lease was not given up")
        #expect(next.previous?.outcome == .signedIn, "the next holder reads how the previous one ended")
        next.release()
    }

    @Test func aWaiterTakesTheLeaseWhenTheHolderFinishesAndReadsItsOutcome() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = Self.environment(directory)
        let lease = try #require(try Self.attempt(environment).acquired, "a free lease was not taken")
        let waiting = Task {
            try await SignInLease.wait(profile: "work", environment: environment, timeout: .seconds(30))
        }
        let paths = SignInLease.Paths(profile: "work", environment: environment)
        #expect(await eventually { Self.someoneWaits(on: paths.lock) }, "the waiter waits in flock")
        let failed = SignInLease.Outcome.failed(status: 130, code: "interrupted", message: "cancelled (Ctrl-C)")
        lease.finish(failed)
        let taken = try #require(try await waiting.value, "the waiter took the lease")
        #expect(taken.previous?.outcome == failed)
        taken.release()
    }

    @Test func aHolderKilledWithSIGKILLReleasesTheLeaseThroughTheKernel() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = Self.environment(directory)
        // Make the directories, and leave a record of a holder that is gone with no outcome.
        let first = try #require(try Self.attempt(environment).acquired, "a free lease was not taken")
        first.announce(command: "login", terminal: nil, method: "device")
        first.release()
        let paths = SignInLease.Paths(profile: "work", environment: environment)
        let holder = try await Self.holdInAnotherProcess(paths.lock)
        #expect(try Self.attempt(environment).held != nil, "the other process's lock was not seen")
        let waiting = Task {
            try await SignInLease.wait(profile: "work", environment: environment, timeout: .seconds(30))
        }
        #expect(await eventually { Self.someoneWaits(on: paths.lock) }, "the waiter waits in flock")
        holder.send(SIGKILL)
        _ = await holder.exitStatus()
        let taken = try #require(try await waiting.value, "the dead holder's lock ended with it")
        #expect(taken.previous?.outcome == nil, "a holder that died said nothing")
        taken.release()
    }

    @Test func waitingEndsAtItsTimeLimitAndLeavesTheHolderAlone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = Self.environment(directory)
        let lease = try #require(try Self.attempt(environment).acquired, "a free lease was not taken")
        let taken = try await SignInLease.wait(profile: "work", environment: environment, timeout: .milliseconds(300))
        #expect(taken == nil)
        #expect(try Self.attempt(environment).held != nil, "the holder lost the lease")
        lease.release()
        // The abandoned waiter's thread takes the lock when it frees, and gives it up at once.
        let again = try await Self.acquire(environment)
        again?.release()
        #expect(again != nil, "an abandoned wait does not keep the lease")
    }
}

extension SignInLease.Attempt {
    /// The lease, when it was taken.
    var acquired: SignInLease? {
        if case .acquired(let lease) = self { lease } else { nil }
    }

    /// The holder's record (itself optional), when another process holds the lease.
    var held: SignInLease.Record?? {
        if case .held(let record) = self { .some(record) } else { .none }
    }
}
