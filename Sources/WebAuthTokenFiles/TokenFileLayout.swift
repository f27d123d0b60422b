#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the file store and the profile index live, and which files and directories they
/// trust: the one description both the token store and the cached-token fast path read.
///
/// - State directory: `$XDG_STATE_HOME` when absolute, else `$HOME/.local/state` (the user
///   database's home directory when `HOME` is not absolute).
/// - Entries: `<state>/webauth/tokens/<profile>.json`; the index: `<state>/webauth/profiles.json`.
/// - A trusted entry is a regular file owned by this user with no group or world permissions; a
///   trusted token directory is a real directory (not a link) owned by this user, mode 0700.
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

    /// `$XDG_STATE_HOME` if absolute, else `$HOME/.local/state`.
    package static func stateDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state }
        var home = environment["HOME"] ?? ""
        if !home.hasPrefix("/"), let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir {
            home = String(cString: directory)
        }
        return home + "/.local/state"
    }

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
    package static func isTrustedEntry(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFREG && info.st_uid == geteuid() && info.st_mode & 0o077 == 0
    }

    /// Whether `info` (from `lstat`) is a token (or lock) directory the stores use as it is: a
    /// directory, not a link, this user's, mode exactly 0700. Anything else a store creates,
    /// repairs (with a warning) or refuses.
    package static func isReadyTokenDirectory(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid() && info.st_mode & 0o7777 == 0o700
    }
}
