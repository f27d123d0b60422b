// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore
import WebAuthPlatform
import WebAuthProcess
import WebAuthTokenFiles

/// A ``TokenStore`` in the desktop keyring (the freedesktop.org Secret Service over D-Bus:
/// GNOME Keyring, KWallet 5.97+, KeePassXC), through the `secret-tool` program from libsecret.
///
/// - Each profile is one secret item with the attributes `service=webauth` and
///   `profile=<name>`, labelled `webauth: <name>`; its secret is the entry's compact JSON.
/// - The secret goes to `secret-tool` on its standard input, never in its arguments, so it
///   never shows in `ps`. Programs are started with `posix_spawn`, never through a shell.
/// - Every write and ``update(profile:_:)`` holds the same kind of `flock` lock as
///   ``FileTokenStore``, on `<profile>.lock` in ``lockDirectory`` (default
///   `$XDG_STATE_HOME/webauth/locks`, created 0700), so updates are atomic across processes
///   on this machine.
/// - ``profiles()`` parses `secret-tool search --all service webauth` (the `attribute.profile`
///   lines); no index file is kept.
/// - Each `secret-tool` run is limited to ``timeout``; a locked keyring that would show an
///   unlock prompt counts as unavailable rather than hanging.
/// - Before each run, the session bus is checked as the fast path checks it
///   (`SessionBusSocket`, in WebAuthTokenFiles): run by this user or root, with the GUID the
///   address names, answering in time. `secret-tool` would talk to any bus the address
///   names — another user's, bound at a stale address — and hand back what it says.
/// - An entry holds at most ``maximumEntrySize`` bytes: `secret-tool store` reads no more than
///   8 KiB from its input and stores what it read without failing, so a larger entry is
///   refused with ``TokenStoreError/Code/entryTooLarge`` instead of being cut short.
///
/// ```swift
/// let store = try SecretServiceTokenStore()
/// try await store.checkAvailability()  // throws keyringUnavailable with no usable keyring
/// try await store.save(stored, profile: "default")
/// ```
public struct SecretServiceTokenStore: TokenStore, LockedEntryStore {
    /// The `service` attribute every item carries.
    public static let service = KeyringItem.service
    /// The largest entry stored, in bytes of its JSON: less than the 8192 bytes `secret-tool`
    /// reads from its input.
    public static let maximumEntrySize = KeyringItem.maximumEntrySize

    /// The environment `secret-tool` runs with; its `DBUS_SESSION_BUS_ADDRESS` picks the bus.
    public let environment: [String: String]
    /// Where the profiles' lock files are.
    public let lockDirectory: String
    /// How long one `secret-tool` run may take.
    public let timeout: Duration
    /// How long a write waits for another process's lock.
    public let lockTimeout: Duration
    /// The `secret-tool` program found in the absolute directories of the environment's `PATH`.
    public let executable: String
    private let logger: Logger

    /// Prepares a store that talks to the Secret Service on `environment`'s session bus.
    ///
    /// This checks only what can be checked without asking the keyring — `secret-tool` on
    /// `PATH`, `DBUS_SESSION_BUS_ADDRESS` set — and creates the lock directory; call
    /// `checkAvailability()` to ask the keyring itself.
    ///
    /// - Throws: ``TokenStoreError/Code/keyringUnavailable``, or a lock directory error.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, lockDirectory: String? = nil,
        timeout: Duration = .seconds(10), lockTimeout: Duration = .seconds(30),
        logger: Logger = .webAuthSilent
    ) throws(TokenStoreError) {
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else {
            throw TokenStoreError(.keyringUnavailable, "no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)")
        }
        guard let found = KeyringItem.secretTool(searchPath: environment["PATH"]) else {
            throw TokenStoreError(
                .keyringUnavailable, "secret-tool is not installed (Debian and Ubuntu: apt install libsecret-tools)")
        }
        self.environment = environment
        self.executable = found
        let layout = TokenFileLayout(environment: environment)
        if lockDirectory == nil {
            try FileTokenStore.prepareDirectory(layout.storeDirectory, as: .store, logger: logger)
        }
        self.lockDirectory = lockDirectory ?? layout.lockDirectory
        self.timeout = timeout
        self.lockTimeout = lockTimeout
        self.logger = logger
        try FileTokenStore.preparePrivateDirectory(self.lockDirectory, logger: logger)
    }

    /// ``TokenStoreKind/keyring``.
    public var kind: TokenStoreKind { .keyring }

    /// `Secret Service (service=webauth)`.
    public var location: String { "Secret Service (service=\(Self.service))" }

    /// Asks the keyring for an item that does not exist; succeeds when it answers "not found"
    /// (or finds it) within `limit`. A locked keyring that would ask for a password fails here
    /// after `limit` rather than waiting for someone to answer the prompt.
    ///
    /// - Throws: ``TokenStoreError/Code/keyringUnavailable`` naming what went wrong.
    public func checkAvailability(within limit: Duration = .seconds(3)) async throws(TokenStoreError) {
        do {
            _ = try await lookup(attributes: ["service", Self.service + "-probe", "probe", "1"], within: limit)
        } catch {
            throw TokenStoreError(.keyringUnavailable, "the keyring did not answer: \(error.message)")
        }
    }

    /// The profile's item, decoded; `nil` when there is none.
    public func load(profile: String) async throws -> StoredTokens? {
        try await loadEntry(profile: profile)
    }

    /// Stores the profile's item under its lock.
    public func save(_ tokens: StoredTokens, profile: String) async throws {
        try await saveEntry(tokens, profile: profile)
    }

    /// Removes the profile's item under its lock.
    @discardableResult
    public func delete(profile: String) async throws -> Bool {
        try await deleteEntry(profile: profile)
    }

    /// The profiles with an item, sorted.
    public func profiles() async throws -> [String] {
        let result = try await run(["search", "--all", "service", Self.service])
        guard Subprocess.exitCode(of: result.status) == 0 else {
            throw failure("search", result)
        }
        // secret-tool prints the attributes (on standard error, in libsecret 0.20) as
        // "attribute.profile = <name>"; read both streams, keep only valid names.
        let text = String(decoding: result.output, as: UTF8.self) + "\n" + result.errorText
        let prefix = "attribute.profile = "
        let names = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix(prefix) else { return nil }
            let name = String(line.dropFirst(prefix.count))
            return ProfileName.isValid(name) ? name : nil
        }
        return Array(Set(names)).sorted()
    }

    /// Reads, changes and writes the profile's item under its lock (see ``TokenStore``).
    @discardableResult
    public func update(
        profile: String, _ body: (StoredTokens?) async throws -> StoredTokens?
    ) async throws -> StoredTokens? {
        try await updateEntry(profile: profile, body)
    }

    // MARK: - secret-tool

    package func lockPath(_ profile: String) -> String { "\(lockDirectory)/\(profile).lock" }

    private func attributes(_ profile: String) -> [String] { KeyringItem.attributes(profile: profile) }

    package func readEntry(profile: String) async throws(TokenStoreError) -> StoredTokens? {
        guard let data = try await lookup(attributes: attributes(profile)) else { return nil }
        return try StoredTokens.decode(
            data, profile: profile, location: "the keyring item service=\(Self.service) profile=\(profile)")
    }

    package func writeEntry(_ tokens: StoredTokens, profile: String) async throws(TokenStoreError) {
        let data = try tokens.encoded()
        guard data.count <= Self.maximumEntrySize else {
            throw TokenStoreError(
                .entryTooLarge,
                "the entry for profile \"\(profile)\" is \(data.count) bytes; the keyring takes at most "
                    + "\(Self.maximumEntrySize) through secret-tool (use the file store: --store file)")
        }
        let result = try await run(
            ["store", "--label", "webauth: \(profile)"] + attributes(profile), input: data)
        guard Subprocess.exitCode(of: result.status) == 0 else { throw failure("store", result) }
    }

    /// The keyring sets nothing aside: the item is written when the update's body has returned.
    package func prepareWrite(
        profile: String, replacing current: StoredTokens?
    ) throws(TokenStoreError) -> PendingEntryWrite {
        .direct { entry throws(TokenStoreError) in try await writeEntry(entry, profile: profile) }
    }

    package func removeEntry(profile: String) async throws(TokenStoreError) -> Bool {
        guard try await lookup(attributes: attributes(profile)) != nil else { return false }
        let result = try await run(["clear"] + attributes(profile))
        guard Subprocess.exitCode(of: result.status) == 0 else { throw failure("clear", result) }
        return true
    }

    /// The secret with these attributes; `nil` for "not found" (exit status 1, nothing said).
    private func lookup(attributes: [String], within limit: Duration? = nil) async throws(TokenStoreError) -> Data? {
        let result = try await run(["lookup"] + attributes, within: limit)
        switch Subprocess.exitCode(of: result.status) {
        case 0: return result.output
        case 1 where result.errorText.isEmpty: return nil
        default: throw failure("lookup", result)
        }
    }

    private struct RunResult {
        var status: Int32
        var output: Data
        var errorText: String
    }

    private func failure(_ command: String, _ result: RunResult) -> TokenStoreError {
        // secret-tool's messages are about D-Bus and the keyring; the secret is never in them.
        let said = result.errorText.split(separator: "\n").prefix(3).joined(separator: " / ")
        if Subprocess.exitCode(of: result.status) == nil {
            return TokenStoreError(.keyringFailed, "secret-tool \(command) did not finish in time (killed)")
        }
        return TokenStoreError(
            .keyringFailed,
            "secret-tool \(command) failed (\(Subprocess.describe(status: result.status)))"
                + (said.isEmpty ? "" : ": \(said.prefix(300))"))
    }

    /// Runs `secret-tool` with `arguments`, `input` on its standard input, within ``timeout``.
    ///
    /// The input is written into the pipe before the program starts (an entry of at most
    /// ``maximumEntrySize`` bytes fits a pipe's buffer), so writing can neither block nor raise
    /// `SIGPIPE` if the program exits early.
    private func run(
        _ arguments: [String], input: Data? = nil, within limit: Duration? = nil
    ) async throws(TokenStoreError) -> RunResult {
        let limit = limit ?? timeout
        try checkBus(within: min(limit, Self.busCheckLimit))
        var inputStream = Subprocess.Stream.null
        var inputReadEnd: Int32 = -1
        if let input {
            inputReadEnd = try Self.pipe(holding: input)
            inputStream = .descriptor(inputReadEnd)
        }
        let process: Subprocess
        do {
            defer { if inputReadEnd >= 0 { Descriptor.close(inputReadEnd) } }
            process = try Subprocess(
                executable: executable, arguments: arguments, environment: environment,
                standardInput: inputStream, standardOutput: .pipe, standardError: .pipe)
        } catch {
            throw TokenStoreError(.keyringUnavailable, "cannot start \(executable): \(error)")
        }
        let killer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled { process.send(SignalNumber.kill) }
        }
        defer { killer.cancel() }
        async let output = Self.collect(process.standardOutput)
        async let errorOutput = Self.collect(process.standardError)
        let (outputBytes, errorBytes) = await (output, errorOutput)
        let status = await process.exitStatus()
        return RunResult(
            status: status, output: Data(outputBytes),
            errorText: String(decoding: errorBytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// How long the bus check before each `secret-tool` run may take.
    static let busCheckLimit: Duration = .seconds(3)

    /// `secret-tool` talks to whatever bus `DBUS_SESSION_BUS_ADDRESS` names, and hands back
    /// whatever it says: the bus is checked first, as the fast path checks it
    /// (`SessionBusSocket`, in WebAuthTokenFiles) — run by this user or root, with the
    /// address's GUID, answering within `limit`.
    ///
    /// - Throws: ``TokenStoreError/Code/keyringUnavailable`` saying why the bus is not used.
    private func checkBus(within limit: Duration) throws(TokenStoreError) {
        guard let address = DBusAddress(environment["DBUS_SESSION_BUS_ADDRESS"] ?? "") else {
            throw TokenStoreError(
                .keyringUnavailable,
                "DBUS_SESSION_BUS_ADDRESS does not start with a unix:path= or unix:abstract= bus that webauth can check"
            )
        }
        switch SessionBusSocket.open(address, deadline: .now + limit) {
        case .success(let descriptor):
            Descriptor.close(descriptor)
        case .failure(let refusal):
            throw TokenStoreError(.keyringUnavailable, "the keyring is not used: \(refusal)")
        }
    }

    private static func collect(_ stream: AsyncStream<[UInt8]>?) async -> [UInt8] {
        guard let stream else { return [] }
        var bytes: [UInt8] = []
        for await chunk in stream { bytes += chunk }
        return bytes
    }

    /// A pipe already holding `data`, its write end closed; returns the read end (close-on-exec).
    private static func pipe(holding data: Data) throws(TokenStoreError) -> Int32 {
        let ends: (read: Int32, write: Int32)
        do {
            ends = try Pipe.make()
        } catch {
            throw TokenStoreError(.keyringFailed, "cannot make a pipe: \(error)")
        }
        defer { Descriptor.close(ends.write) }
        Descriptor.setNonBlocking(ends.write)
        do {
            try Descriptor.writeAll(ends.write, [UInt8](data))
        } catch {
            Descriptor.close(ends.read)
            throw TokenStoreError.system("cannot write the token entry into a pipe", error, code: .keyringFailed)
        }
        return ends.read
    }
}
