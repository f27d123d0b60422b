// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthPlatform

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the file store and the profile index live, and which files and directories they
/// trust: the one description both the token store and the cached-token fast path read.
///
/// - State directory: `$XDG_STATE_HOME` when absolute, else `$HOME/.local/state` (the user
///   database's home directory when `HOME` is not absolute).
/// - Entries: `<state>/webauth/tokens/<profile>.json`; the index: `<state>/webauth/profiles.json`.
/// - Directories (``judge(_:at:as:)``): `<state>/webauth` (``storeDirectory``) is a real
///   directory (not a link) owned by this user and not writable by group or others — checked on
///   every use, since whoever can write it can replace the index or move `tokens/` away; the
///   token and lock directories below it are real directories of this user, mode 0700.
/// - Files (``isTrustedEntry(_:)``, ``isTrustedIndex(_:)``): opened without following a link
///   and without waiting (`O_NOFOLLOW | O_NONBLOCK`, so a FIFO cannot hang a read), then
///   checked with `fstat`: a regular file of this user; an entry has no group or world
///   permissions, the index is not writable by group or others.
///
/// ```swift
/// let layout = TokenFileLayout(environment: ["HOME": "/home/ada"])
/// layout.entryPath(profile: "work")  // /home/ada/.local/state/webauth/tokens/work.json
/// ```
package struct TokenFileLayout: Sendable, Hashable {
    /// `$XDG_STATE_HOME`, or `$HOME/.local/state`.
    package let stateDirectory: String

    /// The layout for `environment` (`XDG_STATE_HOME`, `HOME`).
    package init(environment: [String: String]) {
        stateDirectory = Self.stateDirectory(environment: environment)
    }

    /// The layout for `environment` alone, without asking the user database: `nil` when
    /// neither `XDG_STATE_HOME` nor `HOME` is an absolute path. The fast path's: a statically
    /// linked program must not look users up (glibc would load its NSS modules at run time).
    package init?(environmentOnly environment: [String: String]) {
        self.init(environmentOnly: { environment[$0] })
    }

    /// The layout for the environment `environmentValue` reads (a variable's value, `nil` when
    /// unset) alone, placed as from a dictionary of the same variables.
    package init?(environmentOnly environmentValue: (String) -> String?) {
        guard let directory = Self.stateDirectory(environmentValue: environmentValue, userDatabaseHome: { nil }) else {
            return nil
        }
        stateDirectory = directory
    }

    /// `$XDG_STATE_HOME` if absolute, else `$HOME/.local/state`.
    package static func stateDirectory(environment: [String: String]) -> String {
        stateDirectory(
            environmentValue: { environment[$0] }, userDatabaseHome: { CurrentProcess.userDatabaseHomeDirectory })
            ?? (environment["HOME"] ?? "") + "/.local/state"
    }

    /// `$XDG_STATE_HOME` if absolute, else `$HOME/.local/state`, with `userDatabaseHome()` for
    /// `HOME` when that is not absolute; `nil` when neither gives an absolute path.
    private static func stateDirectory(
        environmentValue: (String) -> String?, userDatabaseHome: () -> String?
    ) -> String? {
        if let state = environmentValue("XDG_STATE_HOME"), state.hasPrefix("/") { return state }
        if let home = environmentValue("HOME"), home.hasPrefix("/") { return home + "/.local/state" }
        return userDatabaseHome().map { $0 + "/.local/state" }
    }

    /// The directory holding the token directory, the lock directory and the index:
    /// `<state>/webauth`.
    package var storeDirectory: String { stateDirectory + "/webauth" }

    /// The file store's directory: `<state>/webauth/tokens`.
    package var tokenDirectory: String { stateDirectory + "/webauth/tokens" }

    /// Where the keyring store keeps its profiles' lock files: `<state>/webauth/locks`.
    package var lockDirectory: String { stateDirectory + "/webauth/locks" }

    /// The profile index: `<state>/webauth/profiles.json`.
    package var indexPath: String { stateDirectory + "/webauth/profiles.json" }

    /// The entry of `profile` in this layout's ``tokenDirectory``.
    package func entryPath(profile: String) -> String {
        Self.entryPath(profile: profile, in: tokenDirectory)
    }

    /// The entry of `profile` in a file store in `directory`: `<directory>/<profile>.json`.
    package static func entryPath(profile: String, in directory: String) -> String {
        "\(directory)/\(profile).json"
    }

    /// Whether `info` (from `fstat` of an open entry) is a file the store trusts: regular, this
    /// user's, no group or world permissions.
    package static func isTrustedEntry(_ info: FileStatus) -> Bool {
        info.kind == .regular && info.owner == CurrentProcess.effectiveUserID && info.permissions & 0o077 == 0
    }

    /// Whether `info` (from `fstat` of the open index) is an index the stores trust: regular,
    /// this user's, not writable by group or others.
    package static func isTrustedIndex(_ info: FileStatus) -> Bool {
        info.kind == .regular && info.owner == CurrentProcess.effectiveUserID && info.permissions & 0o022 == 0
    }

    /// The directories the stores use, and what each must be.
    package enum DirectoryRole: Sendable, Hashable {
        /// `<state>/webauth`: a real directory of this user, not writable by group or others.
        case store
        /// The token and lock directories: a real directory of this user, mode 0700.
        case `private`
    }

    /// What a store makes of an existing directory.
    package enum DirectoryVerdict: Sendable, Hashable {
        /// Used as it is.
        case ready
        /// This user's private directory with other permissions: made 0700 (with a warning).
        case repairable
        /// Refused: the reason, naming the path and the fix.
        case refused(String)
    }

    /// What the stores make of the directory at `path` in `role`, from its `lstat` `info`: the
    /// one rule for every directory they trust, in both programs. The fast path uses only a
    /// ``DirectoryVerdict/ready`` one; the token store repairs a ``DirectoryVerdict/repairable``
    /// one and refuses the rest with the reason.
    package static func judge(_ info: FileStatus, at path: String, as role: DirectoryRole) -> DirectoryVerdict {
        guard info.kind == .directory else {
            return .refused("\(path) is not a directory (or is a symbolic link): remove it, and webauth makes it again")
        }
        guard info.owner == CurrentProcess.effectiveUserID else {
            return .refused(
                "\(path) belongs to user \(info.owner), not this user (\(CurrentProcess.effectiveUserID)): "
                    + "have it removed, or set XDG_STATE_HOME to a directory of your own")
        }
        let mode = info.permissions
        switch role {
        case .store:
            guard mode & 0o022 == 0 else {
                return .refused(
                    "\(path) is writable by group or others (mode \(String(mode, radix: 8))): check what it holds, "
                        + "then run chmod go-w \(path)")
            }
            return .ready
        case .private:
            return mode == 0o700 ? .ready : .repairable
        }
    }
}
