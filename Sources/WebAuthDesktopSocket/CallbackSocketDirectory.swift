// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import WebAuthCore
import WebAuthPlatform

/// The private directory where waiting sessions listen for their scheme's callbacks, one Unix
/// socket per scheme, and where the handler program finds them.
///
/// - With `XDG_RUNTIME_DIR` set: `$XDG_RUNTIME_DIR/webauth`. The runtime directory itself must
///   belong to the user and not be writable by anyone else.
/// - Without it: `$TMPDIR/webauth-{uid}` (else `/tmp/webauth-{uid}`).
///
/// The directory is created with mode 0700 and must stay that way: a directory that is a
/// symbolic link, belongs to another user, or is open to group or others is refused, never
/// "fixed". Inside it, `{scheme}.sock` is the socket (mode 0600; made as `{scheme}.new` and
/// renamed once it listens, so the path exists only while it accepts connections) and
/// `{scheme}.lock` the lock that makes one session per scheme; a scheme longer than 64 characters is named by a hash
/// (`scheme-{16 hex digits}`) so that the path fits in a socket address.
public struct CallbackSocketDirectory: Sendable, Hashable {
    /// The directory's path.
    public let path: String
    /// The runtime directory it is in, checked as well; `nil` for the temporary-directory fallback.
    let runtimeDirectory: String?

    /// The directory for the desktop described by `environment`.
    public init(environment: DesktopEnvironment = DesktopEnvironment()) {
        if let runtime = environment.runtimeDirectory {
            path = runtime + "/webauth"
            runtimeDirectory = runtime
        } else {
            path = environment.temporaryDirectory + "/webauth-\(DesktopSocketCalls.effectiveUserID)"
            runtimeDirectory = nil
        }
    }

    /// The socket a session waiting for `scheme` listens on.
    public func socketPath(forScheme scheme: String) -> String {
        path + "/" + Self.fileStem(forScheme: scheme) + ".sock"
    }

    /// The socket the person's web-authentication browser listens on for requests (see
    /// `AuthenticationBrowserServer`). Its name starts with `_`, which no URL scheme can, so it
    /// never meets a scheme's socket.
    public var authenticationBrowserSocketPath: String {
        path + "/_authentication-browser.sock"
    }

    /// Where a session's socket is made before it is renamed to ``socketPath(forScheme:)``.
    package func pendingSocketPath(forScheme scheme: String) -> String {
        path + "/" + Self.fileStem(forScheme: scheme) + ".new"
    }

    /// The lock a session waiting for `scheme` holds while it waits.
    package func lockPath(forScheme scheme: String) -> String {
        path + "/" + Self.fileStem(forScheme: scheme) + ".lock"
    }

    /// `scheme` itself (lower-cased) up to 64 characters; longer ones by an FNV-1a hash.
    package static func fileStem(forScheme scheme: String) -> String {
        let lowered = scheme.lowercased()
        guard lowered.utf8.count > 64 else { return lowered }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in lowered.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "scheme-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Creates the directory if it is missing, then checks it (see the type's documentation).
    ///
    /// - Throws: ``Problem`` naming the path and what is wrong with it.
    public func prepare() throws(Problem) {
        try checkRuntimeDirectory()
        do {
            try DesktopSocketCalls.makePrivateDirectory(path)
        } catch {
            throw Problem(error.description)
        }
        try checkPrivate(path)
    }

    /// Checks the directory without creating it.
    ///
    /// - Throws: ``Problem`` when it is missing or not private.
    public func check() throws(Problem) {
        try checkRuntimeDirectory()
        try checkPrivate(path)
    }

    /// Something wrong with the socket directory, in a sentence that names the path.
    public struct Problem: WebAuthError {
        /// What is wrong, as a value that stays stable across releases.
        public struct Code: WebAuthErrorCode {
            /// The code's name, such as `missing`.
            public let rawValue: String
            /// Creates a code from its name.
            public init(rawValue: String) { self.rawValue = rawValue }

            /// The directory (or `XDG_RUNTIME_DIR`) does not exist.
            public static let missing = Code(rawValue: "missing")
            /// It exists but is not a private directory of this user's, or cannot be made one.
            public static let unsafe = Code(rawValue: "unsafe")
        }

        /// What is wrong.
        public let code: Code
        /// The sentence, naming the path.
        public let message: String
        /// Whether the directory does not exist (as opposed to existing but being unsafe).
        public var isMissing: Bool { code == .missing }

        init(_ message: String, isMissing: Bool = false) {
            self.code = isMissing ? .missing : .unsafe
            self.message = message
        }
    }

    private func checkRuntimeDirectory() throws(Problem) {
        guard let runtimeDirectory else { return }
        let info: FileStatus
        switch DesktopSocketCalls.status(runtimeDirectory, followingLinks: true) {
        case .success(let status): info = status
        case .failure(let failure):
            throw Problem(
                "XDG_RUNTIME_DIR (\(runtimeDirectory)) does not exist", isMissing: failure.isMissing
            )
        }
        guard info.kind == .directory, info.owner == DesktopSocketCalls.effectiveUserID, info.permissions & 0o022 == 0
        else {
            throw Problem(
                "XDG_RUNTIME_DIR (\(runtimeDirectory)) must be a directory of your own that no one else can write to")
        }
    }

    private func checkPrivate(_ path: String) throws(Problem) {
        let info: FileStatus
        switch DesktopSocketCalls.status(path, followingLinks: false) {
        case .success(let status): info = status
        case .failure(let failure):
            throw Problem("\(path) does not exist", isMissing: failure.isMissing)
        }
        guard info.kind == .directory else {
            throw Problem("\(path) is not a directory (or is a symbolic link); remove it")
        }
        guard info.owner == DesktopSocketCalls.effectiveUserID else {
            throw Problem("\(path) belongs to another user (uid \(info.owner)); remove it or set XDG_RUNTIME_DIR")
        }
        guard info.permissions & 0o077 == 0 else {
            throw Problem(
                "\(path) has mode \(String(info.permissions & 0o777, radix: 8)) but must be 0700; "
                    + "run chmod 700 \(path) if you trust its contents")
        }
    }
}
