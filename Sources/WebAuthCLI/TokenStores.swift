import ArgumentParser
import Foundation
import Logging
import WebAuthTokenStore

/// `--store`, shared by `login`, `token`, `logout` and `status`.
struct StoreOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where tokens are kept: automatic (the keyring when one answers, else files), file, or keyring.",
            valueName: "automatic|file|keyring"),
        completion: .list(TokenStoreSelection.allCases.map(\.rawValue)))
    var store: String = TokenStoreSelection.automatic.rawValue

    /// The parsed `--store`.
    var selection: TokenStoreSelection { TokenStoreSelection(rawValue: store) ?? .automatic }

    func validate() throws {
        guard TokenStoreSelection(rawValue: store) != nil else {
            throw ValidationError("--store must be automatic, file or keyring, not '\(store)'.")
        }
    }
}

/// The `--profile` option's rules and completion.
enum ProfileOptions {
    /// The profile used when `--profile` is not given.
    static let defaultProfile = "default"

    /// The `--profile` help.
    static let help = ArgumentHelp(
        "The profile: a name for one sign-in.", valueName: "NAME")

    /// Completes `--profile` with the profiles the index and the file store know (no keyring
    /// query: completion must be quick).
    static let completion = CompletionKind.custom { _, _, _ in
        let environment = ProcessInfo.processInfo.environment
        var names = Set(ProfileIndex(environment: environment).entries().keys)
        let directory = FileTokenStore.defaultDirectory(environment: environment)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasSuffix(".json") {
            names.insert(String(name.dropLast(5)))
        }
        return names.filter(ProfileName.isValid).sorted()
    }

    /// Throws a usage error unless `name` is a valid profile name.
    static func validate(_ name: String) throws {
        do {
            try ProfileName.validate(name)
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// Opens the token stores a command works with, following `--store`, and remembers in the
/// ``ProfileIndex`` where each profile went.
///
/// Reading a profile never probes the keyring when the store is known — named by `--store`,
/// or recorded in the index — so `webauth token` touches nothing but the one store.
struct TokenStores: Sendable {
    /// What `--store` chose.
    let selection: TokenStoreSelection
    /// The environment (`XDG_STATE_HOME`, `HOME`, `PATH`, `DBUS_SESSION_BUS_ADDRESS`).
    let environment: [String: String]
    /// Where profiles were saved.
    let index: ProfileIndex
    /// How long a command waits for another process holding a profile: long enough for a
    /// queue of refreshes on a slow machine.
    let lockTimeout: Duration = .seconds(120)
    private let logger: Logger

    init(selection: TokenStoreSelection, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.selection = selection
        self.environment = environment
        self.index = ProfileIndex(environment: environment)
        var logger = Logger(label: "webauth.tokenstore", factory: { TerminalLogHandler(label: $0) })
        logger.logLevel = .warning
        self.logger = logger
    }

    /// The file store (no keyring involved).
    func fileStore() throws -> FileTokenStore {
        try FileTokenStore(
            directory: FileTokenStore.defaultDirectory(environment: environment), lockTimeout: lockTimeout,
            logger: logger)
    }

    /// The keyring store, without asking the keyring anything yet.
    func keyringStore() throws -> SecretServiceTokenStore {
        try SecretServiceTokenStore(environment: environment, lockTimeout: lockTimeout, logger: logger)
    }

    /// The store of `kind`, without asking the keyring anything yet.
    func store(of kind: TokenStoreKind) throws -> any TokenStore {
        switch kind {
        case .file: try fileStore()
        case .keyring: try keyringStore()
        }
    }

    /// The store that holds `profile`, with its entry; `nil` when no store has it.
    ///
    /// `--store file` and `--store keyring` look only there. `automatic` looks where the index
    /// says, else in the file store and then the keyring (if one is configured), and records
    /// where it found the profile.
    func find(profile: String) async throws -> (store: any TokenStore, entry: StoredTokens)? {
        guard let (store, entry) = try await locate(profile: profile) else { return nil }
        return (store, try entry.get())
    }

    /// The store that holds an entry for `profile`, with the entry or, when it is there but does
    /// not decode, the ``TokenStoreError/Code/corrupt`` error (so `logout` can still remove it);
    /// `nil` when no store has one. Looks where ``find(profile:)`` does.
    func locate(
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

    /// The store a new sign-in is saved in: `--store`'s, or for `automatic` the keyring when one
    /// answers within a few seconds, else the file store.
    func storeForSaving() async throws -> any TokenStore {
        try await selection.makeStore(environment: environment, lockTimeout: lockTimeout, logger: logger)
    }

    /// Saves `entry` for `profile` in `store`. With `automatic`, an entry the keyring does not
    /// take — too large for it, or the keyring locked or failing — goes to the file store
    /// instead, so tokens just obtained (a rotated refresh token among them) are never lost.
    ///
    /// - Returns: The store that holds the entry now, and why it is not `store` when it fell back.
    func save(
        _ entry: StoredTokens, profile: String, in store: any TokenStore
    ) async throws -> (store: any TokenStore, fallback: String?) {
        do {
            try await store.save(entry, profile: profile)
            return (store, nil)
        } catch let error as TokenStoreError where fallsBackToFiles(from: store, after: error) {
            let files = try fileStore()
            try await files.save(entry, profile: profile)
            return (files, "the keyring did not keep profile \"\(profile)\" (\(error.message)); it is in files instead")
        }
    }

    /// Whether a failure of `store` sends an entry to the file store: only with `automatic`, and
    /// only for the keyring's own failures.
    func fallsBackToFiles(from store: any TokenStore, after error: TokenStoreError) -> Bool {
        selection == .automatic && store.kind == .keyring
            && [.keyringFailed, .keyringUnavailable, .entryTooLarge].contains(error.code)
    }

    /// Every store `webauth status` lists, or why it cannot be read.
    func storesToList() async -> [(kind: TokenStoreKind, store: Result<any TokenStore, any Error>)] {
        var result: [(kind: TokenStoreKind, store: Result<any TokenStore, any Error>)] = []
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
}
