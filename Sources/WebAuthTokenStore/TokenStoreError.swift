// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import WebAuthCore
import WebAuthPlatform

/// Why a ``TokenStore`` operation failed. The message names paths, profiles and system errors,
/// never a token.
///
/// ```swift
/// do {
///     _ = try await store.load(profile: "../etc")
/// } catch let error as TokenStoreError where error.code == .invalidProfileName {
///     print(error)  // invalidProfileName: …
/// }
/// ```
public struct TokenStoreError: WebAuthError {
    /// What kind of failure this is.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `lockTimeout`.
        public let rawValue: String
        /// Creates a code.
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The profile name is empty, too long, has characters outside `A-Z a-z 0-9 . _ -`,
        /// starts with `.` or `-`, or contains `..`.
        public static let invalidProfileName = Code("invalidProfileName")
        /// The token directory is not a directory we own (a symbolic link, someone else's), or
        /// its permissions could not be made 0700.
        public static let insecureDirectory = Code("insecureDirectory")
        /// A token file is not a regular file we own with no group or world permissions.
        public static let insecureFile = Code("insecureFile")
        /// A system call on the store's files failed.
        public static let fileSystem = Code("fileSystem")
        /// The stored entry does not decode.
        public static let corrupt = Code("corrupt")
        /// The entry could not be encoded.
        public static let encodingFailed = Code("encodingFailed")
        /// The profile's lock was not acquired in time: another process holds it.
        public static let lockTimeout = Code("lockTimeout")
        /// No usable keyring: `secret-tool` missing, no D-Bus session, or no Secret Service.
        public static let keyringUnavailable = Code("keyringUnavailable")
        /// `secret-tool` failed or did not answer in time.
        public static let keyringFailed = Code("keyringFailed")
        /// The entry is larger than the store can keep whole (the keyring, through
        /// `secret-tool`, takes at most 8 KiB).
        public static let entryTooLarge = Code("entryTooLarge")
        /// No store holds an entry for the profile: it was never signed in, or signed out since.
        public static let notSignedIn = Code("notSignedIn")
        /// The access token needs refreshing and the entry has no refresh token: sign in again.
        public static let noRefreshToken = Code("noRefreshToken")
        /// The access token needs refreshing and the entry was saved without the client
        /// configuration to refresh it with (see ``StoredTokens/configuration``): sign in again.
        public static let noConfiguration = Code("noConfiguration")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A description for people, with no token values.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    init(_ code: Code, _ message: String) {
        self.init(code: code, message: message)
    }

    /// ``Code/notSignedIn`` for `profile`.
    static func notSignedIn(_ profile: String) -> TokenStoreError {
        TokenStoreError(.notSignedIn, "no profile \"\(profile)\" is signed in")
    }

    /// An error for a failed system call: `what` plus the error's text.
    static func system(_ what: String, _ error: SystemError, code: Code = .fileSystem) -> TokenStoreError {
        TokenStoreError(code, "\(what): \(error)")
    }
}
