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
        let deadline = ContinuousClock.now + limit
        while true {
            if let lease = try attempt(environment).acquired { return lease }
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// `flock(1)` holding `path` exclusively while `sleep` runs: another process, as a
    /// `webauth` that signs in would be. Returns once it holds the lock.
    static func holdInAnotherProcess(_ path: String) async throws -> Subprocess {
        let holder = try Subprocess(executable: "/usr/bin/flock", arguments: ["--exclusive", path, "sleep", "60"])
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let probe = try Subprocess(
                executable: "/usr/bin/flock", arguments: ["--exclusive", "--nonblock", path, "true"])
            if await probe.exitStatus() != 0 { return holder }
            try await Task.sleep(for: .milliseconds(20))
        }
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
        try await Task.sleep(for: .milliseconds(200))
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
        try await Task.sleep(for: .milliseconds(200))
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
        let deadline = ContinuousClock.now + .seconds(10)
        var free = false
        while !free, ContinuousClock.now < deadline {
            if let again = try Self.attempt(environment).acquired {
                again.release()
                free = true
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(free, "an abandoned wait does not keep the lease")
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
