// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore

/// Which ``TokenStore`` to use: what `--store` chooses.
///
/// - ``automatic``: the keyring when one answers (`SecretServiceTokenStore.checkAvailability()`),
///   else the file store.
/// - ``file``: always ``FileTokenStore``.
/// - ``keyring``: always ``SecretServiceTokenStore``; fails with
///   ``TokenStoreError/Code/keyringUnavailable`` when there is no usable keyring.
///
/// The store's ``TokenStore/kind`` and ``TokenStore/location`` say which one is in use.
///
/// ```swift
/// let store = try await TokenStoreSelection(rawValue: options.store ?? "automatic")!.makeStore()
/// print("tokens in \(store.kind): \(store.location)")
/// ```
public enum TokenStoreSelection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The keyring when available, else files.
    case automatic
    /// Files under `$XDG_STATE_HOME/webauth/tokens`.
    case file
    /// The desktop keyring, or an error.
    case keyring

    /// `automatic`, `file` or `keyring`.
    public var description: String { rawValue }

    /// Opens the store this selection names.
    ///
    /// - Parameters:
    ///   - environment: The environment to read `XDG_STATE_HOME`, `HOME`, `PATH` and
    ///     `DBUS_SESSION_BUS_ADDRESS` from; `secret-tool` runs with it.
    ///   - directory: The file store's directory; default ``FileTokenStore/defaultDirectory(environment:)``.
    ///   - lockTimeout: How long a write waits for another process holding the profile.
    ///   - logger: Where a fallback from the keyring to files is logged (at debug level).
    public func makeStore(
        environment: [String: String] = ProcessInfo.processInfo.environment, directory: String? = nil,
        lockTimeout: Duration = .seconds(30),
        logger: Logger = .webAuthSilent
    ) async throws -> any TokenStore {
        let fileStore = { () throws(TokenStoreError) -> FileTokenStore in
            guard let directory else {
                return try FileTokenStore.inStateDirectory(
                    environment: environment, lockTimeout: lockTimeout, logger: logger)
            }
            return try FileTokenStore(directory: directory, lockTimeout: lockTimeout, logger: logger)
        }
        switch self {
        case .file:
            return try fileStore()
        case .keyring:
            let store = try SecretServiceTokenStore(environment: environment, lockTimeout: lockTimeout, logger: logger)
            try await store.checkAvailability()
            return store
        case .automatic:
            do {
                let store = try SecretServiceTokenStore(
                    environment: environment, lockTimeout: lockTimeout, logger: logger)
                try await store.checkAvailability()
                return store
            } catch {
                logger.debug("no usable keyring; storing tokens in files", metadata: ["reason": "\(error)"])
                return try fileStore()
            }
        }
    }
}
