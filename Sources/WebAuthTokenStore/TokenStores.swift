// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore

/// A user's signed-in profiles across both stores: which store holds each (recorded in the
/// ``ProfileIndex``), where a new sign-in is saved, the fallback from the keyring to files, and
/// refreshing under the profile's lock — what the `webauth` command-line tool does, for any
/// Swift program.
///
/// With ``TokenStoreSelection/automatic`` the keyring is used when one answers and files
/// otherwise; an entry the keyring does not take — too large for it, or the keyring locked,
/// gone or failing — goes to the file store instead, so tokens just obtained (a rotated refresh
/// token among them) are never lost. Such a fallback is logged at `warning` level. With
/// ``TokenStoreSelection/file`` or ``TokenStoreSelection/keyring`` only that store is used.
///
/// Reading a profile never asks the keyring whether it is there when the store is known —
/// named by the selection, or recorded in the index — so a read touches only the one store.
///
/// ```swift
/// let stores = TokenStores()
/// try await stores.save(StoredTokens(tokens: tokens, configuration: configuration), profile: "work")
///
/// // In this process or any other, as often as needed, at the same time too:
/// let provider = try await stores.accessTokenProvider(profile: "work")
/// let accessToken = try await provider.accessToken()
/// ```
public struct TokenStores: Sendable {
    /// Which stores are used.
    public let selection: TokenStoreSelection
    /// The environment: `XDG_STATE_HOME` and `HOME` place the files and the index, `PATH` and
    /// `DBUS_SESSION_BUS_ADDRESS` reach the keyring.
    public let environment: [String: String]
    /// Where profiles were saved.
    public let index: ProfileIndex
    /// How long a change waits for another process holding the profile.
    public let lockTimeout: Duration
    /// The agent ``freshTokens(profile:minimumValidity:)`` asks first, before the stores: by
    /// default the one the environment names (see ``AgentClient``); `nil` asks none.
    public var agent: AgentClient?
    let logger: Logger

    /// Creates the stores `selection` names.
    ///
    /// Nothing is opened or asked yet: each operation opens the store it needs.
    ///
    /// - Parameters:
    ///   - selection: Which stores to use. Default ``TokenStoreSelection/automatic``.
    ///   - environment: Where the stores are (see ``environment``). Default: this process's.
    ///   - lockTimeout: How long a change waits for another process holding the profile. Default
    ///     30 s; a tool that many processes call at once may want longer.
    ///   - logger: Where fallbacks to files and repaired directory permissions are logged, at
    ///     `warning` level, and the keyring's absence at `debug` level. Default: no logging.
    public init(
        selection: TokenStoreSelection = .automatic,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        lockTimeout: Duration = .seconds(30),
        logger: Logger = .webAuthSilent
    ) {
        self.selection = selection
        self.environment = environment
        self.index = ProfileIndex(environment: environment)
        self.lockTimeout = lockTimeout
        self.agent = AgentClient(environment: environment)
        self.logger = logger
    }

    // MARK: Opening stores

    /// The file store, in ``FileTokenStore/defaultDirectory(environment:)``.
    ///
    /// - Throws: ``TokenStoreError`` when its directory, or `<state>/webauth` above it (a real
    ///   directory of this user that group and others cannot write), is unsafe or cannot be made.
    public func fileStore() throws(TokenStoreError) -> FileTokenStore {
        try FileTokenStore.inStateDirectory(environment: environment, lockTimeout: lockTimeout, logger: logger)
    }

    /// The keyring store, without asking the keyring anything yet.
    ///
    /// - Throws: ``TokenStoreError/Code/keyringUnavailable`` without `secret-tool` or a D-Bus
    ///   session.
    public func keyringStore() throws(TokenStoreError) -> SecretServiceTokenStore {
        try SecretServiceTokenStore(environment: environment, lockTimeout: lockTimeout, logger: logger)
    }

    /// The store of `kind`, without asking the keyring anything yet.
    public func store(of kind: TokenStoreKind) throws(TokenStoreError) -> any TokenStore {
        switch kind {
        case .file: try fileStore()
        case .keyring: try keyringStore()
        }
    }

    /// The store a new sign-in is saved in: the selection's, or for
    /// ``TokenStoreSelection/automatic`` the keyring when one answers within a few seconds,
    /// else the file store. Open it before signing in, so that a keyring that cannot be used
    /// stops the sign-in before the person goes through it.
    public func storeForSaving() async throws -> any TokenStore {
        try await selection.makeStore(environment: environment, lockTimeout: lockTimeout, logger: logger)
    }

    // MARK: Finding profiles

    /// The store that holds `profile`, with its entry; `nil` when no store has it.
    ///
    /// ``TokenStoreSelection/file`` and ``TokenStoreSelection/keyring`` look only there.
    /// ``TokenStoreSelection/automatic`` looks where the index says, else in the file store and
    /// then the keyring (if one is configured), and records where it found the profile.
    ///
    /// - Throws: ``TokenStoreError``, such as ``TokenStoreError/Code/corrupt`` for an entry
    ///   that does not decode.
    public func find(profile: String) async throws -> (store: any TokenStore, entry: StoredTokens)? {
        guard let (store, entry) = try await locate(profile: profile) else { return nil }
        return (store, try entry.get())
    }

    /// The store that holds an entry for `profile`, with the entry or, when it is there but does
    /// not decode, the ``TokenStoreError/Code/corrupt`` error — so that it can still be deleted;
    /// `nil` when no store has one. Looks where ``find(profile:)`` does.
    public func locate(
        profile: String
    ) async throws -> (store: any TokenStore, entry: Result<StoredTokens, TokenStoreError>)? {
        func load(_ store: any TokenStore) async throws -> Result<StoredTokens, TokenStoreError>? {
            do {
                return try await store.load(profile: profile).map { .success($0) }
            } catch let error as TokenStoreError where error.code == .corrupt {
                return .failure(error)
            }
        }
        switch selection {
        case .file:
            let store = try fileStore()
            return try await load(store).map { (store, $0) }
        case .keyring:
            let store = try keyringStore()
            return try await load(store).map { (store, $0) }
        case .automatic:
            let known = index.kind(of: profile)
            if let known {
                let store = try self.store(of: known)
                if let entry = try await load(store) { return (store, entry) }
            }
            for kind in TokenStoreKind.allCases where kind != known {
                let entry: Result<StoredTokens, TokenStoreError>?
                let store: any TokenStore
                do {
                    store = try self.store(of: kind)
                    entry = try await load(store)
                } catch let error as TokenStoreError
                    where error.code == .keyringUnavailable || error.code == .keyringFailed
                {
                    continue  // a keyring that is not there holds nothing; a broken file store is reported
                }
                if let entry {
                    try? await index.record(kind, for: profile)
                    return (store, entry)
                }
            }
            return nil
        }
    }

    /// Every store there is to list profiles from (see ``list(profile:)``), or why it cannot be
    /// opened: the file store unless the selection is ``TokenStoreSelection/keyring``, and the
    /// keyring unless it is ``TokenStoreSelection/file`` — with ``TokenStoreSelection/automatic``
    /// a keyring that does not answer is left out, unless the index has a profile there.
    func listableStores() async -> [(kind: TokenStoreKind, store: Result<any TokenStore, TokenStoreError>)] {
        var result: [(kind: TokenStoreKind, store: Result<any TokenStore, TokenStoreError>)] = []
        if selection != .keyring {
            do {
                result.append((.file, .success(try fileStore())))
            } catch {
                result.append((.file, .failure(error)))
            }
        }
        if selection != .file {
            do {
                let store = try keyringStore()
                try await store.checkAvailability()
                result.append((.keyring, .success(store)))
            } catch {
                // With automatic, a missing keyring matters only if a profile was saved there.
                let expected = selection == .keyring || index.entries().values.contains(.keyring)
                if expected { result.append((.keyring, .failure(error))) }
            }
        }
        return result
    }

    // MARK: Saving

    /// Saves `entry` for `profile` in `store` (default: ``storeForSaving()``), records it in the
    /// index and removes an older entry of the profile from the other store, so that one
    /// profile never lives in two places.
    ///
    /// With ``TokenStoreSelection/automatic``, an entry the keyring does not take goes to the
    /// file store instead (logged at `warning` level).
    ///
    /// - Returns: The store that holds the entry now.
    @discardableResult
    public func save(
        _ entry: StoredTokens, profile: String, in store: (any TokenStore)? = nil
    ) async throws -> any TokenStore {
        let chosen: any TokenStore
        if let store { chosen = store } else { chosen = try await storeForSaving() }
        let previous = index.kind(of: profile)
        let saved: any TokenStore
        do {
            try await chosen.save(entry, profile: profile)
            saved = chosen
        } catch let error as TokenStoreError where fallsBackToFiles(from: chosen, after: error) {
            saved = try fileStore()
            try await saved.save(entry, profile: profile)
            logger.warning(
                "the keyring did not keep profile \"\(profile)\" (\(error.message)); it is in files instead")
        }
        await settle(profile, in: saved, mayAlsoBeIn: [previous])
        return saved
    }

    /// Records in the index that `profile` is in `store`, and removes it from the other store
    /// when it may be there (`kinds`), so that one profile never lives in two places. Neither
    /// step failing undoes the save: a failure to record is logged, and an entry left in the
    /// other store is found after this one (the index points here).
    func settle(_ profile: String, in store: any TokenStore, mayAlsoBeIn kinds: [TokenStoreKind?]) async {
        do {
            try await index.record(store.kind, for: profile)
        } catch {
            logger.warning("could not record where profile \"\(profile)\" is stored: \(error)")
        }
        for kind in Set(kinds.compactMap { $0 }) where kind != store.kind {
            _ = try? await self.store(of: kind).delete(profile: profile)
        }
    }

    /// Whether a failure of `store` sends an entry to the file store: only with
    /// ``TokenStoreSelection/automatic``, and only for the keyring's own failures.
    func fallsBackToFiles(from store: any TokenStore, after error: TokenStoreError) -> Bool {
        selection == .automatic && store.kind == .keyring
            && [.keyringFailed, .keyringUnavailable, .entryTooLarge].contains(error.code)
    }
}
