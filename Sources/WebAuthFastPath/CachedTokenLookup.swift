// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform
package import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finds a profile's entry exactly where, and only when, the token store would read it with
/// nothing else to do:
///
/// - `<state>/webauth` a directory the stores trust (``TokenFileLayout/judge(_:at:as:)``: this
///   user's, not a link, not writable by group or others), and the profile index, when read, a
///   trusted file opened as entries are (``TrustedFile``: not a link, not a FIFO, this user's, not
///   writable by others);
/// - the file store for `--store file`, or `automatic` with the profile index naming the file
///   store: the token directory already there and 0700, this user's, not a link; the entry a
///   trusted file (see ``TokenFileLayout``);
/// - the keyring for `--store keyring`, or `automatic` with the index naming the keyring: a
///   D-Bus session named, `secret-tool` installed and the lock directory there, as the keyring
///   store needs them to start, and the item read over D-Bus (``SecretServiceLookup``);
///
/// and in both, an entry ``CachedEntry`` reads. Each other case — an index that does not know
/// the profile (the store would look and record it), a directory the store would create or
/// repair, a missing, unsafe or unknown entry, a keyring that is locked, slow or not running — is
/// `nil`, for the full program to handle and report.
package struct CachedTokenLookup: Sendable {
    /// Where the files are.
    package let layout: TokenFileLayout
    /// `DBUS_SESSION_BUS_ADDRESS`, for the keyring.
    package let busAddress: String?
    /// `PATH`, where the keyring store finds `secret-tool`.
    package let searchPath: String?

    /// The largest entry read; a bigger one is left to the full program.
    package static let maximumEntrySize = 1024 * 1024

    /// A lookup in `environment`'s stores: `XDG_STATE_HOME` and `HOME` place the files, `PATH`
    /// and `DBUS_SESSION_BUS_ADDRESS` reach the keyring. `nil` when neither `XDG_STATE_HOME`
    /// nor `HOME` is an absolute path: the store would then ask the user database, which the
    /// fast path never does (``TokenFileLayout/init(environmentOnly:)``).
    package init?(environment: [String: String]) {
        self.init(environmentValue: { environment[$0] })
    }

    /// A lookup in the stores of the environment `environmentValue` reads (a variable's value,
    /// `nil` when unset); see ``init(environment:)``.
    package init?(environmentValue: (String) -> String?) {
        guard let layout = TokenFileLayout(environmentOnly: environmentValue) else { return nil }
        self.layout = layout
        busAddress = environmentValue("DBUS_SESSION_BUS_ADDRESS")
        searchPath = environmentValue("PATH")
    }

    /// The entry of `profile` for `--store store` (`automatic`, `file` or `keyring`), or `nil`.
    package func entry(profile: String, store: String) -> CachedEntry? {
        guard Self.isReadyDirectory(layout.storeDirectory, as: .store) else { return nil }
        var kind = store
        if store == "automatic" {
            guard let index = indexBytes(), let known = ProfileIndexFormat.storeKind(of: profile, reading: index) else {
                return nil
            }
            kind = known
        }
        switch kind {
        case "file": return fileEntry(profile: profile)
        case "keyring": return keyringEntry(profile: profile)
        default: return nil
        }
    }

    /// The profile index's bytes, read as the token store reads them (``TrustedFile``: not a
    /// link or a FIFO, this user's, not writable by others); `nil` when there is none or it
    /// cannot be trusted. The one place the fast path opens the index.
    package func indexBytes() -> [UInt8]? {
        TrustedFile.read(layout.indexPath, limit: Self.maximumEntrySize, trusted: TokenFileLayout.isTrustedIndex)
    }

    /// What the index records about where `profile`'s helpers may send its token: nothing
    /// when there is no index, or ``ProfileIndexReader`` cannot read it. Fewer hosts can only
    /// leave more to the full program, which reads the index with `JSONDecoder` too.
    package func bindings(profile: String) -> ProfileIndexFormat.Bindings {
        guard let index = indexBytes() else { return ProfileIndexFormat.Bindings() }
        return ProfileIndexFormat.bindings(of: profile, reading: index) ?? ProfileIndexFormat.Bindings()
    }

    private func fileEntry(profile: String) -> CachedEntry? {
        guard Self.isReadyDirectory(layout.tokenDirectory, as: .private),
            let bytes = TrustedFile.read(
                layout.entryPath(profile: profile), limit: Self.maximumEntrySize,
                trusted: TokenFileLayout.isTrustedEntry)
        else { return nil }
        return CachedEntry(reading: bytes)
    }

    /// The keyring's item, when the keyring store would start as it is — a D-Bus session named,
    /// `secret-tool` installed, its lock directory there — and ``SecretServiceLookup`` reads it.
    private func keyringEntry(profile: String) -> CachedEntry? {
        guard let busAddress, !busAddress.isEmpty, KeyringItem.secretTool(searchPath: searchPath) != nil,
            Self.isReadyDirectory(layout.lockDirectory, as: .private),
            let bytes = SecretServiceLookup.secret(profile: profile, busAddress: busAddress)
        else { return nil }
        return CachedEntry(reading: bytes)
    }

    /// Whether `path` is an absolute path to a directory the stores use as it is in `role` (see
    /// ``TokenFileLayout/judge(_:at:as:)``).
    static func isReadyDirectory(_ path: String, as role: TokenFileLayout.DirectoryRole) -> Bool {
        guard path.hasPrefix("/"), let info = try? FileSystem.status(path) else { return false }
        return TokenFileLayout.judge(info, at: path, as: role) == .ready
    }
}
