// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import Logging
import WebAuthCore
import WebAuthPlatform
import WebAuthTokenFiles

/// Which store each profile was saved in, so that later runs with
/// ``TokenStoreSelection/automatic`` go straight to it instead of asking the keyring first.
///
/// A small JSON file, `$XDG_STATE_HOME/webauth/profiles.json` (next to the file store's
/// `tokens` directory), mode 0600, holding only profile names, store kinds and the git hosts
/// each profile answers for (``gitHosts(of:)``) — no tokens:
///
/// ```json
/// {"bindings":{"work":{"gitHosts":["github.com"]}},"profiles":{"default":"file","work":"keyring"},"version":1}
/// ```
///
/// Writes are atomic and durable (a temporary file, `fsync`, rename) under `flock` on
/// `.profiles.lock`; a missing or unreadable index just means "not known", and ``TokenStores``
/// then looks in every store. ``TokenStores`` keeps it up to date; reading it is for tools that
/// list or complete profile names.
///
/// ```swift
/// let index = ProfileIndex()
/// if index.kind(of: "work") == .keyring { print("profile work is in the keyring") }
/// ```
public struct ProfileIndex: Sendable {
    /// The index file.
    public let path: String
    /// The directory holding it.
    public let directory: String

    /// The index beside the file store's default directory for `environment`
    /// (``FileTokenStore/defaultDirectory(environment:)``).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        directory = (FileTokenStore.defaultDirectory(environment: environment) as NSString).deletingLastPathComponent
        path = directory + "/profiles.json"
    }

    /// Every profile the index knows, with its store.
    public func entries() -> [String: TokenStoreKind] {
        read().profiles.compactMapValues(TokenStoreKind.init(rawValue:))
    }

    /// The store `profile` was saved in, if known.
    public func kind(of profile: String) -> TokenStoreKind? {
        read().profiles[profile].flatMap(TokenStoreKind.init(rawValue:))
    }

    /// Records that `profile` lives in a store of `kind`.
    ///
    /// - Throws: ``TokenStoreError`` when the index cannot be written.
    public func record(_ kind: TokenStoreKind, for profile: String) async throws {
        try await change { $0.profiles[profile] = kind.rawValue }
    }

    /// Forgets where `profile` is stored. The hosts recorded for it stay: they belong to the
    /// helper configuration that names the profile, which signing out leaves in place.
    ///
    /// - Throws: ``TokenStoreError`` when the index cannot be written.
    public func forget(_ profile: String) async throws {
        try await change { $0.profiles[profile] = nil }
    }

    /// The git hosts (`host` or `host:port`, in lower case) `profile` answers git for, as
    /// `webauth git-credential setup` recorded them.
    public func gitHosts(of profile: String) -> [String] {
        read().bindings?[profile]?.gitHosts ?? []
    }

    /// Records that `profile` answers git for `host` (`host` or `host:port`; kept in lower case).
    ///
    /// - Throws: ``TokenStoreError`` when the index cannot be written.
    public func recordGitHost(_ host: String, for profile: String) async throws {
        let host = host.lowercased()
        try await change { contents in
            var bindings = contents.bindings ?? [:]
            var recorded = bindings[profile] ?? ProfileIndexFormat.Bindings()
            guard !recorded.gitHosts.contains(host) else { return }
            recorded.gitHosts.append(host)
            bindings[profile] = recorded
            contents.bindings = bindings
        }
    }

    /// The profiles and stores the bytes of an index file name; `nil` when they are not an
    /// index this version reads.
    public static func entries(decoding data: Data) -> [String: TokenStoreKind]? {
        ProfileIndexFormat.storeKinds(decoding: data)?.compactMapValues(TokenStoreKind.init(rawValue:))
    }

    /// The largest index read: far more than the names, store kinds and hosts of any number of
    /// profiles.
    static let maximumSize = 1024 * 1024

    /// The index, when its directory is one the stores trust (``TokenFileLayout/judge(_:at:as:)``)
    /// and it is a trusted file (``TrustedFile``, ``TokenFileLayout/isTrustedIndex(_:)``: not a
    /// link or a FIFO, this user's, not writable by others), read as the fast path reads it; else
    /// nothing is known, and opening a store refuses an untrusted directory, saying why.
    private func read() -> ProfileIndexFormat.Contents {
        guard let info = try? FileSystem.status(directory),
            TokenFileLayout.judge(info, at: directory, as: .store) == .ready,
            let bytes = TrustedFile.read(path, limit: Self.maximumSize, trusted: TokenFileLayout.isTrustedIndex),
            let contents = ProfileIndexFormat.contents(decoding: Data(bytes))
        else { return ProfileIndexFormat.Contents() }
        return contents
    }

    private func change(_ body: (inout ProfileIndexFormat.Contents) -> Void) async throws {
        try FileTokenStore.prepareDirectory(
            directory, as: .store,
            logger: .webAuthSilent)
        try await ProfileLock.withLock(at: directory + "/.profiles.lock", timeout: .seconds(30)) {
            var contents = read()
            let before = contents
            body(&contents)
            guard contents != before else { return }
            try write(contents)
        }
    }

    private func write(_ contents: ProfileIndexFormat.Contents) throws(TokenStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(contents) else {
            throw TokenStoreError(code: .encodingFailed, message: "the profile index could not be encoded")
        }
        try PrivateFile.write(data, to: path)
    }
}
