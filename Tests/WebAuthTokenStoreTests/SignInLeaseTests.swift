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
        guard case .acquired(let lease) = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("a free lease was not taken")
            return
        }
        lease.announce(command: "git-credential", terminal: "/dev/pts/7", method: "browser")
        // Another open file description of the same file: excluded as another process would be.
        guard case .held(let record) = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("a held lease was taken twice")
            return
        }
        #expect(record?.pid == getpid())
        #expect(record?.command == "git-credential")
        #expect(record?.terminal == "/dev/pts/7")
        #expect(record?.method == "browser")
        #expect(record?.outcome == nil)
        let paths = SignInLease.Paths(profile: "work", environment: environment)
        #expect(permissions(of: paths.record)?.mode == 0o600)
        #expect(permissions(of: directory.path + "/state/webauth/locks")?.mode == 0o700)
        lease.finish(.signedIn)
        guard case .acquired(let next) = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("a finished lease was not given up")
            return
        }
        #expect(next.previous?.outcome == .signedIn, "the next holder reads how the previous one ended")
        next.release()
    }

    @Test func aWaiterTakesTheLeaseWhenTheHolderFinishesAndReadsItsOutcome() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = Self.environment(directory)
        guard case .acquired(let lease) = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("a free lease was not taken")
            return
        }
        let waiting = Task {
            try await SignInLease.wait(profile: "work", environment: environment, timeout: .seconds(30))
        }
        try await Task.sleep(for: .milliseconds(200))
        let failed = SignInLease.Outcome.failed(status: 130, code: "interrupted", message: "cancelled (Ctrl-C)")
        let finished = ContinuousClock.now
        lease.finish(failed)
        let taken = try #require(try await waiting.value, "the waiter took the lease")
        #expect(ContinuousClock.now - finished < .seconds(2), "handed over at once, not after a poll")
        #expect(taken.previous?.outcome == failed)
        taken.release()
    }

    @Test func aHolderKilledWithSIGKILLReleasesTheLeaseThroughTheKernel() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let environment = Self.environment(directory)
        // Make the directories, and leave a record of a holder that is gone with no outcome.
        guard case .acquired(let first) = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("a free lease was not taken")
            return
        }
        first.announce(command: "login", terminal: nil, method: "device")
        first.release()
        let paths = SignInLease.Paths(profile: "work", environment: environment)
        let holder = try await Self.holdInAnotherProcess(paths.lock)
        guard case .held = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("the other process's lock was not seen")
            return
        }
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
        guard case .acquired(let lease) = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("a free lease was not taken")
            return
        }
        let started = ContinuousClock.now
        let taken = try await SignInLease.wait(profile: "work", environment: environment, timeout: .milliseconds(300))
        #expect(taken == nil)
        #expect(ContinuousClock.now - started < .seconds(5))
        guard case .held = try SignInLease.attempt(profile: "work", environment: environment) else {
            Issue.record("the holder lost the lease")
            return
        }
        lease.release()
        // The abandoned waiter's thread takes the lock when it frees, and gives it up at once.
        let deadline = ContinuousClock.now + .seconds(10)
        var free = false
        while !free, ContinuousClock.now < deadline {
            if case .acquired(let again) = try SignInLease.attempt(profile: "work", environment: environment) {
                again.release()
                free = true
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(free, "an abandoned wait does not keep the lease")
    }
}
