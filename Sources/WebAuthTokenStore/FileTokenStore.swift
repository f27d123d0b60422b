// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import WebAuthCore
import WebAuthPlatform
package import WebAuthTokenFiles

/// A ``TokenStore`` of JSON files, one per profile, in a directory only the user can enter.
///
/// - **Where:** `$XDG_STATE_HOME/webauth/tokens`, or `~/.local/state/webauth/tokens` when
///   `XDG_STATE_HOME` is unset or not absolute (tokens are state, not configuration:
///   `$XDG_CONFIG_HOME` is not used). Each profile is `<profile>.json`.
/// - **Directory:** created 0700 (missing parents too). An existing directory must be a real
///   directory (not a symbolic link) owned by the user; if it has group or world permissions
///   they are removed (a warning is logged) — anything else is refused with
///   ``TokenStoreError/Code/insecureDirectory``.
/// - **Files:** created 0600 from the start: `open(O_CREAT | O_EXCL, 0600)` and `fchmod` to
///   0600 before anything is written, so no umask can widen them. A file that is not a
///   regular file owned by the user with no group or world permissions is refused
///   (``TokenStoreError/Code/insecureFile``), and links are not followed.
/// - **Atomic:** each write goes to a fresh temporary file in the same directory (named
///   `.<profile>.json.tmp-<random digits>`), is `fsync`ed, renamed over the old file, and the
///   directory is `fsync`ed; a process killed at any moment leaves the old file or the new one.
///   Temporary files a killed writer left behind are removed by the profile's next write.
/// - **Space first:** ``update(profile:_:)`` creates the temporary file and allocates its space
///   before it runs its body, so a full disk or a read-only directory fails before a refresh
///   is sent, not after the provider has rotated the refresh token.
/// - **Locked:** every write and ``update(profile:_:)`` holds `flock` on `.<profile>.lock` in
///   the same directory (see ``TokenStore``). Lock files stay; they hold no data.
///
/// ```swift
/// let store = try FileTokenStore()  // $XDG_STATE_HOME/webauth/tokens
/// try await store.save(StoredTokens(tokens: tokens, configuration: configuration), profile: "default")
/// let stored = try await store.load(profile: "default")
/// ```
public struct FileTokenStore: TokenStore, LockedEntryStore {
    /// The directory holding the files.
    public let directory: String
    /// How long a write waits for another process's lock before failing with
    /// ``TokenStoreError/Code/lockTimeout``.
    public let lockTimeout: Duration
    private let logger: Logger

    /// The default directory for `environment`: `$XDG_STATE_HOME/webauth/tokens`, else
    /// `$HOME/.local/state/webauth/tokens`, else the user database's home directory.
    public static func defaultDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        TokenFileLayout(environment: environment).tokenDirectory
    }

    /// Opens the store in `directory` (default ``defaultDirectory(environment:)``, whose parent
    /// `<state>/webauth` is checked too: see ``TokenStores``), creating it 0700 or checking and
    /// repairing it as described above.
    ///
    /// - Throws: ``TokenStoreError`` with ``TokenStoreError/Code/insecureDirectory`` or
    ///   ``TokenStoreError/Code/fileSystem``.
    public init(
        directory: String? = nil, lockTimeout: Duration = .seconds(30),
        logger: Logger = .webAuthSilent
    ) throws(TokenStoreError) {
        if directory == nil {
            try Self.prepareDirectory(
                TokenFileLayout(environment: ProcessInfo.processInfo.environment).storeDirectory, as: .store,
                logger: logger)
        }
        self.directory = directory ?? Self.defaultDirectory()
        self.lockTimeout = lockTimeout
        self.logger = logger
        try Self.preparePrivateDirectory(self.directory, logger: logger)
    }

    /// ``TokenStoreKind/file``.
    public var kind: TokenStoreKind { .file }

    /// The directory.
    public var location: String { directory }

    /// Reads the profile's file; `nil` when there is none.
    public func load(profile: String) async throws -> StoredTokens? {
        try await loadEntry(profile: profile)
    }

    /// Writes the profile's file atomically under its lock.
    public func save(_ tokens: StoredTokens, profile: String) async throws {
        try await saveEntry(tokens, profile: profile)
    }

    /// Removes the profile's file under its lock.
    @discardableResult
    public func delete(profile: String) async throws -> Bool {
        try await deleteEntry(profile: profile)
    }

    /// The profiles with a file, sorted.
    public func profiles() async throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw TokenStoreError(.fileSystem, "cannot list \(directory)")
        }
        return names.compactMap { name -> String? in
            guard name.hasSuffix(".json") else { return nil }
            let profile = String(name.dropLast(5))
            return ProfileName.isValid(profile) ? profile : nil
        }.sorted()
    }

    /// Reads, changes and writes the profile's file under its lock (see ``TokenStore``). The
    /// space for the new file is set aside before `body` runs (see above).
    @discardableResult
    public func update(
        profile: String, _ body: (StoredTokens?) async throws -> StoredTokens?
    ) async throws -> StoredTokens? {
        try await updateEntry(profile: profile, body)
    }

    /// The space set aside for the entry that replaces `current`: four times its size, at
    /// least 64 KiB — more than a refresh adds (a new access, refresh and ID token).
    static func reservedBytes(replacing current: StoredTokens?) -> Int {
        let size = (try? current?.encoded().count) ?? 0
        return max(64 * 1024, 4 * size)
    }

    // MARK: - Files

    private func filePath(_ profile: String) -> String { TokenFileLayout.entryPath(profile: profile, in: directory) }
    package func lockPath(_ profile: String) -> String { "\(directory)/.\(profile).lock" }

    package func readEntry(profile: String) throws(TokenStoreError) -> StoredTokens? {
        let path = filePath(profile)
        let descriptor: Int32
        do {
            descriptor = try Descriptor.open(path, .read, .noFollow)
        } catch {
            if error == .noSuchEntry { return nil }
            if error == .symbolicLink { throw TokenStoreError(.insecureFile, "\(path) is a symbolic link") }
            throw TokenStoreError.system("cannot open \(path)", error)
        }
        defer { Descriptor.close(descriptor) }
        let info: FileStatus
        do {
            info = try Descriptor.status(descriptor)
        } catch {
            throw TokenStoreError.system("cannot stat \(path)", error)
        }
        guard TokenFileLayout.isTrustedEntry(info) else {
            throw TokenStoreError(
                .insecureFile,
                "\(path) is not a regular file of this user with mode 0600 (mode "
                    + String(info.permissions, radix: 8) + ", owner \(info.owner))")
        }
        let bytes: [UInt8]
        do {
            bytes = try Descriptor.readAll(descriptor, limit: .max)
        } catch {
            throw TokenStoreError.system("cannot read \(path)", error)
        }
        return try StoredTokens.decode(Data(bytes), profile: profile, location: path)
    }

    /// Through ``PrivateFile``: temporary file, `fchmod` 0600, write, `fsync`, rename, `fsync`
    /// the directory.
    package func writeEntry(_ tokens: StoredTokens, profile: String) throws(TokenStoreError) {
        try PrivateFile.write(try tokens.encoded(), to: filePath(profile))
    }

    package func removeEntry(profile: String) throws(TokenStoreError) -> Bool {
        try PrivateFile.remove(filePath(profile))
    }

    /// The space for the entry that replaces `current` is taken before an update's body runs: a
    /// full disk or a read-only directory fails here, before a refresh the provider would answer
    /// by rotating the refresh token — whose new value could then not be kept.
    package func prepareWrite(
        profile: String, replacing current: StoredTokens?
    ) throws(TokenStoreError) -> PendingEntryWrite {
        let reservation = try PrivateFile.Reservation(
            for: filePath(profile), bytes: Self.reservedBytes(replacing: current))
        return PendingEntryWrite(
            commit: { entry throws(TokenStoreError) in
                let data: Data
                do throws(TokenStoreError) {
                    data = try entry.encoded()
                } catch {
                    reservation.discard()
                    throw error
                }
                try reservation.commit(data)
            },
            discard: { reservation.discard() })
    }

    // MARK: - The directory

    /// Opens the store in `environment`'s token directory (``defaultDirectory(environment:)``),
    /// after checking the directory above it, `<state>/webauth`: created 0700 when missing,
    /// else a real directory of this user that group and others cannot write — refused
    /// otherwise, with the path and the fix.
    package static func inStateDirectory(
        environment: [String: String], lockTimeout: Duration, logger: Logger
    ) throws(TokenStoreError) -> FileTokenStore {
        try prepareDirectory(TokenFileLayout(environment: environment).storeDirectory, as: .store, logger: logger)
        return try FileTokenStore(
            directory: defaultDirectory(environment: environment), lockTimeout: lockTimeout, logger: logger)
    }

    /// Creates `path` 0700 (and missing parents 0700), or checks an existing one: a directory,
    /// not a link, owned by this user; group and world permissions are removed with a warning.
    package static func preparePrivateDirectory(_ path: String, logger: Logger) throws(TokenStoreError) {
        try prepareDirectory(path, as: .private, logger: logger)
    }

    /// Creates `path` 0700 (and missing parents 0700), or checks an existing one in `role` with
    /// ``TokenFileLayout/judge(_:at:as:)``, the rule the fast path reads by too: a private
    /// directory with group or world permissions is made 0700 with a warning; anything refused
    /// is ``TokenStoreError/Code/insecureDirectory``, naming the path and the fix.
    package static func prepareDirectory(
        _ path: String, as role: TokenFileLayout.DirectoryRole, logger: Logger
    ) throws(TokenStoreError) {
        guard path.hasPrefix("/") else {
            throw TokenStoreError(.insecureDirectory, "the token directory \(path) is not an absolute path")
        }
        var info: FileStatus
        do {
            info = try FileSystem.status(path)
        } catch {
            guard error == .noSuchEntry else { throw TokenStoreError.system("cannot stat \(path)", error) }
            let parent = (path as NSString).deletingLastPathComponent
            if parent != path, parent != "/", !FileSystem.exists(parent) {
                try preparePrivateDirectory(parent, logger: logger)
            }
            do {
                try FileSystem.makeDirectory(path, mode: 0o700)
            } catch  where error != .alreadyExists {
                throw TokenStoreError.system("cannot create \(path)", error)
            } catch {}
            do {
                info = try FileSystem.status(path)
            } catch {
                throw TokenStoreError.system("cannot stat \(path)", error)
            }
        }
        switch TokenFileLayout.judge(info, at: path, as: role) {
        case .ready:
            return
        case .refused(let reason):
            throw TokenStoreError(.insecureDirectory, reason)
        case .repairable:
            let mode = info.permissions
            if mode & 0o077 != 0 {
                logger.warning(
                    "token directory was accessible to others; made it 0700",
                    metadata: ["path": "\(path)", "mode": "\(String(mode, radix: 8))"])
            }
            do {
                try FileSystem.setPermissions(path, 0o700)
            } catch {
                throw TokenStoreError.system("cannot make \(path) 0700", error, code: .insecureDirectory)
            }
        }
    }
}
