// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import Logging
import WebAuthCore
import WebAuthPlatform
import WebAuthTokenFiles

/// The right to sign a profile in interactively, held by one process at a time across the
/// user's processes and sessions: an exclusive `flock(2)` on `<profile>.sign-in` in the lock
/// directory (`<state>/webauth/locks`, private to the user), with a record beside it
/// (`<profile>.sign-in.json`) saying who holds it, how it signs in and — once it has ended —
/// how it ended. The record holds no token, code or secret.
///
/// The lock ends when its descriptor closes: ``finish(_:)``, or the process's end however it
/// comes (SIGKILL, a crash), so a dead holder never keeps it. A holder that ended without a
/// word leaves a record with no ``Record/outcome``, which the next holder reads as such.
///
/// Waiting for the lease costs no CPU: a thread of its own blocks in `flock` until the kernel
/// hands the lock over, bounded by a time limit.
///
/// ```swift
/// switch try SignInLease.attempt(profile: "work", environment: environment) {
/// case .acquired(let lease): …  // sign in, then lease.finish(.signedIn)
/// case .held(let record): …    // say who holds it, then:
///     let lease = try await SignInLease.wait(profile: "work", environment: environment, timeout: .seconds(600))
/// }
/// ```
package final class SignInLease: Sendable {
    /// What the holder says of itself and of how it ended.
    package struct Record: Codable, Sendable, Equatable {
        /// The holder's process ID.
        package var pid: Int32
        /// The holder's command, such as `git-credential`.
        package var command: String?
        /// The terminal the holder talks to the person on, such as `/dev/pts/3`.
        package var terminal: String?
        /// How it signs in (`browser`, `device`, `pasted-redirect`); `nil` while it decides.
        package var method: String?
        /// When it took the lease.
        package var startedAt: Date
        /// How it ended; `nil` while it signs in, or when it ended without saying (killed).
        package var outcome: Outcome?

        /// A record for a holder that starts now.
        package init(
            pid: Int32, command: String? = nil, terminal: String? = nil, method: String? = nil,
            startedAt: Date = Date(), outcome: Outcome? = nil
        ) {
            self.pid = pid
            self.command = command
            self.terminal = terminal
            self.method = method
            self.startedAt = startedAt
            self.outcome = outcome
        }
    }

    /// How a holder's sign-in ended: never a token, code or secret.
    package struct Outcome: Codable, Sendable, Equatable {
        /// Whether it stored tokens.
        package var signedIn: Bool
        /// The exit status it ended with.
        package var status: Int32
        /// The failure's code, such as `interrupted`.
        package var code: String?
        /// The failure's message.
        package var message: String?

        /// A sign-in that stored its tokens.
        package static let signedIn = Outcome(signedIn: true, status: 0)

        /// A sign-in that failed with `status`, `code` and `message`.
        package static func failed(status: Int32, code: String?, message: String?) -> Outcome {
            Outcome(signedIn: false, status: status, code: code, message: message)
        }

        /// An outcome.
        package init(signedIn: Bool, status: Int32, code: String? = nil, message: String? = nil) {
            self.signedIn = signedIn
            self.status = status
            self.code = code
            self.message = message
        }
    }

    /// What ``attempt(profile:environment:)`` found.
    package enum Attempt: Sendable {
        /// The lease is this process's now.
        case acquired(SignInLease)
        /// Another process holds it; its record, when it has written one (`nil` before it has,
        /// or when the record is from an earlier holder).
        case held(Record?)
    }

    /// The lock and record files of `profile` for `environment`'s state directory.
    package struct Paths: Sendable, Hashable {
        /// The file locked: `<locks>/<profile>.sign-in`.
        package var lock: String
        /// The record: `<locks>/<profile>.sign-in.json`.
        package var record: String

        /// The paths of `profile` in `environment`'s lock directory.
        package init(profile: String, environment: [String: String]) {
            let directory = TokenFileLayout(environment: environment).lockDirectory
            lock = "\(directory)/\(profile).sign-in"
            record = lock + ".json"
        }
    }

    private let descriptor: Locked<Int32?>
    private let paths: Paths
    /// The record found when the lease was taken: the previous holder's, with its outcome.
    package let previous: Record?
    private let current: Locked<Record>

    private init(descriptor: Int32, paths: Paths, previous: Record?) {
        self.descriptor = Locked(descriptor)
        self.paths = paths
        self.previous = previous
        self.current = Locked(Record(pid: CurrentProcess.id))
    }

    /// Takes the lease of `profile` if no other process holds it; never waits.
    package static func attempt(profile: String, environment: [String: String]) throws -> Attempt {
        let paths = try prepare(profile: profile, environment: environment)
        let descriptor = try open(paths)
        do {
            if try FileLock.tryLock(descriptor) {
                return .acquired(SignInLease(descriptor: descriptor, paths: paths, previous: readRecord(paths)))
            }
        } catch {
            Descriptor.close(descriptor)
            throw TokenStoreError.system("cannot lock \(paths.lock)", error)
        }
        Descriptor.close(descriptor)
        // A record with an outcome, or of a process that is gone, is an earlier holder's: the
        // one holding the lock now has not written its own yet.
        let record = readRecord(paths).flatMap { $0.outcome == nil && OtherProcess.exists($0.pid) ? $0 : nil }
        return .held(record)
    }

    /// Waits until the lease of `profile` is free and takes it; `nil` when `timeout` passes
    /// first. The wait blocks a thread of its own in `flock`, not a task.
    package static func wait(
        profile: String, environment: [String: String], timeout: Duration
    ) async throws -> SignInLease? {
        let paths = try prepare(profile: profile, environment: environment)
        let descriptor = try open(paths)
        let handOver = LockHandOver()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            handOver.deliver(false, byLock: false)
        }
        defer { timer.cancel() }
        Thread.detachNewThread {
            let locked = (try? FileLock.lock(descriptor)) != nil
            // Given up meanwhile: the descriptor is the thread's to close, ending the lock.
            if !handOver.deliver(locked, byLock: true) { Descriptor.close(descriptor) }
        }
        let acquired = await withCheckedContinuation { handOver.start($0) }
        guard acquired else {
            // A lock that failed is closed here; a wait that timed out leaves it to the thread.
            if handOver.deliveredByLock { Descriptor.close(descriptor) }
            return nil
        }
        return SignInLease(descriptor: descriptor, paths: paths, previous: readRecord(paths))
    }

    /// Says who holds the lease and how it signs in, for waiters to read.
    package func announce(command: String?, terminal: String?, method: String?) {
        let record = current.withLock { record in
            record.command = command ?? record.command
            record.terminal = terminal ?? record.terminal
            record.method = method ?? record.method
            return record
        }
        write(record)
    }

    /// Records how the sign-in ended and gives the lease up.
    package func finish(_ outcome: Outcome) {
        var record = current.withLock { $0 }
        record.outcome = outcome
        write(record)
        release()
    }

    /// Gives the lease up without a word (a holder that signed nobody in: the store already
    /// held a usable sign-in).
    package func release() {
        if let descriptor = descriptor.withLock({ value in
            defer { value = nil }
            return value
        }) {
            Descriptor.close(descriptor)
        }
    }

    deinit { release() }

    private func write(_ record: Record) {
        guard descriptor.withLock({ $0 != nil }), let data = try? Self.encoder.encode(record) else { return }
        // Only what waiters are told: a record that cannot be written costs them the details.
        // Not flushed to the disk: only live processes read it, and a torn one reads as none.
        try? PrivateFile.write(data, to: paths.record, durably: false)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// The record at `paths`: a regular file of this user, of at most 64 KiB, that decodes.
    package static func readRecord(_ paths: Paths) -> Record? {
        guard let descriptor = try? Descriptor.open(paths.record, .read, [.noFollow, .nonBlocking]) else { return nil }
        defer { Descriptor.close(descriptor) }
        guard let info = try? Descriptor.status(descriptor), info.kind == .regular,
            info.owner == CurrentProcess.effectiveUserID,
            let bytes = try? Descriptor.readAll(descriptor, limit: 64 * 1024)
        else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Record.self, from: Data(bytes))
    }

    private static func prepare(profile: String, environment: [String: String]) throws -> Paths {
        try ProfileName.validate(profile)
        let layout = TokenFileLayout(environment: environment)
        try FileTokenStore.prepareDirectory(layout.storeDirectory, as: .store, logger: .webAuthSilent)
        try FileTokenStore.preparePrivateDirectory(layout.lockDirectory, logger: .webAuthSilent)
        return Paths(profile: profile, environment: environment)
    }

    private static func open(_ paths: Paths) throws -> Int32 {
        do {
            // Read-only is enough for flock; close-on-exec, so a browser started meanwhile
            // cannot keep the lock after this process ends.
            return try Descriptor.open(paths.lock, .read, [.create, .noFollow], mode: 0o600)
        } catch {
            throw TokenStoreError.system("cannot open the lock file \(paths.lock)", error)
        }
    }
}

/// Hands the result of a blocking `flock` on a thread to the task waiting for it, or the
/// timeout's `false`: whichever comes first resumes the task; the other learns it came late.
private final class LockHandOver: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var value: Bool?
        var byLock = false
    }
    private let state = Locked(State())

    /// Waits with `continuation`: resumed at once when the result came first.
    func start(_ continuation: CheckedContinuation<Bool, Never>) {
        let ready = state.withLock { state -> Bool? in
            if state.value == nil { state.continuation = continuation }
            return state.value
        }
        if let ready { continuation.resume(returning: ready) }
    }

    /// Delivers `value` unless a result came already; whether it was the first.
    @discardableResult
    func deliver(_ value: Bool, byLock: Bool) -> Bool {
        let (first, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Bool, Never>?) in
            guard state.value == nil else { return (false, nil) }
            state.value = value
            state.byLock = byLock
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        continuation?.resume(returning: value)
        return first
    }

    /// Whether the lock thread's result was the first.
    var deliveredByLock: Bool { state.withLock { $0.byLock } }
}
