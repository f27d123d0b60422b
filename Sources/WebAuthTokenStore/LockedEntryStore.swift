// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// A store that keeps each profile's entry under its own `flock` lock (``ProfileLock``):
/// ``FileTokenStore`` and ``SecretServiceTokenStore``. Each says how it reads, writes and removes
/// one entry; the ``TokenStore`` operations built on those steps — validating the name, taking
/// the lock, the read-modify-write of ``TokenStore/update(profile:_:)`` — are written once, here.
package protocol LockedEntryStore: TokenStore {
    /// How long a write waits for another process's lock.
    var lockTimeout: Duration { get }

    /// The lock file of `profile`.
    func lockPath(_ profile: String) -> String

    /// The entry of `profile`, or `nil`; called with the name validated.
    func readEntry(profile: String) async throws(TokenStoreError) -> StoredTokens?

    /// Replaces the entry of `profile`; called with its lock held.
    func writeEntry(_ tokens: StoredTokens, profile: String) async throws(TokenStoreError)

    /// Removes the entry of `profile`, returning whether there was one; called with its lock held.
    func removeEntry(profile: String) async throws(TokenStoreError) -> Bool

    /// Sets aside, before an update's body runs, what writing the entry that replaces `current`
    /// needs — so that what cannot be stored fails before the body does something whose result
    /// would then be lost (a refresh that rotates the refresh token). Called with the lock held.
    func prepareWrite(profile: String, replacing current: StoredTokens?) throws(TokenStoreError) -> PendingEntryWrite
}

/// A write that ``LockedEntryStore/prepareWrite(profile:replacing:)`` prepared: ``commit`` it
/// with the new entry, or ``discard`` it.
package struct PendingEntryWrite: Sendable {
    /// Writes the new entry (and on failure releases what was set aside).
    package var commit: @Sendable (StoredTokens) async throws(TokenStoreError) -> Void
    /// Releases what was set aside.
    package var discard: @Sendable () -> Void

    /// A write with nothing set aside: `commit` is `write`.
    package static func direct(_ write: @escaping @Sendable (StoredTokens) async throws(TokenStoreError) -> Void)
        -> PendingEntryWrite
    {
        PendingEntryWrite(commit: write, discard: {})
    }
}

extension LockedEntryStore {
    /// ``TokenStore/load(profile:)``: the name validated, the entry read without the lock (a
    /// write replaces it whole).
    package func loadEntry(profile: String) async throws -> StoredTokens? {
        try ProfileName.validate(profile)
        return try await readEntry(profile: profile)
    }

    /// ``TokenStore/save(_:profile:)`` under the profile's lock.
    package func saveEntry(_ tokens: StoredTokens, profile: String) async throws {
        try ProfileName.validate(profile)
        try await ProfileLock.withLock(at: lockPath(profile), timeout: lockTimeout) {
            try await writeEntry(tokens, profile: profile)
        }
    }

    /// ``TokenStore/delete(profile:)`` under the profile's lock.
    package func deleteEntry(profile: String) async throws -> Bool {
        try ProfileName.validate(profile)
        return try await ProfileLock.withLock(at: lockPath(profile), timeout: lockTimeout) {
            try await removeEntry(profile: profile)
        }
    }

    /// ``TokenStore/update(profile:_:)``: read, prepare the write, run `body`, then write what it
    /// returned (nothing when unchanged, a removal for `nil`), all under the profile's lock.
    package func updateEntry(
        profile: String, _ body: (StoredTokens?) async throws -> StoredTokens?
    ) async throws -> StoredTokens? {
        try ProfileName.validate(profile)
        return try await ProfileLock.withLock(at: lockPath(profile), timeout: lockTimeout) {
            let current = try await readEntry(profile: profile)
            let pending = try prepareWrite(profile: profile, replacing: current)
            let new: StoredTokens?
            do {
                new = try await body(current)
            } catch {
                pending.discard()
                throw error
            }
            guard let new, new != current else {
                pending.discard()
                if new == nil, current != nil { _ = try await removeEntry(profile: profile) }
                return new
            }
            try await pending.commit(new)
            return new
        }
    }
}
