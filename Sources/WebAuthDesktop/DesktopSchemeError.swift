// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import WebAuthCore

/// Why registering, unregistering or looking up a URL scheme with the desktop failed.
///
/// Match on ``code``; ``message`` is a sentence for people that names what to do about it.
public struct DesktopSchemeError: WebAuthError {
    /// What went wrong, as a value that stays stable across releases.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `invalidScheme`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The scheme name is not a valid URL scheme (RFC 3986 §3.1), or is one browsers handle.
        public static let invalidScheme = Code(rawValue: "invalidScheme")
        /// The handler program is missing, not executable, or at a path a desktop entry cannot name.
        public static let invalidHandler = Code(rawValue: "invalidHandler")
        /// The application name has characters other than letters, digits and `. _ + -`.
        public static let invalidApplication = Code(rawValue: "invalidApplication")
        /// A desktop entry with webauth's file name exists but was not written by webauth; it is
        /// left alone.
        public static let foreignEntry = Code(rawValue: "foreignEntry")
        /// `xdg-mime` is not installed or failed.
        public static let xdgUtilsFailed = Code(rawValue: "xdgUtilsFailed")
        /// A file or directory could not be read or written.
        public static let fileSystem = Code(rawValue: "fileSystem")
        /// No scheme, or more than one, is registered for the application.
        public static let noRegisteredScheme = Code(rawValue: "noRegisteredScheme")
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    static func invalidScheme(_ message: String) -> Self { Self(code: .invalidScheme, message: message) }
    static func invalidHandler(_ message: String) -> Self { Self(code: .invalidHandler, message: message) }
    static func invalidApplication(_ message: String) -> Self { Self(code: .invalidApplication, message: message) }
    static func foreignEntry(_ message: String) -> Self { Self(code: .foreignEntry, message: message) }
    static func xdgUtilsFailed(_ message: String) -> Self { Self(code: .xdgUtilsFailed, message: message) }
    static func fileSystem(_ message: String) -> Self { Self(code: .fileSystem, message: message) }
    static func noRegisteredScheme(_ message: String) -> Self { Self(code: .noRegisteredScheme, message: message) }
}
