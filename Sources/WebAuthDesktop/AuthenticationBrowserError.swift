// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

/// Why registering a web-authentication browser, or handing a request to it or answering one,
/// failed.
///
/// Match on ``code``; ``message`` is a sentence for people that never contains a callback URL's
/// query or fragment.
public struct AuthenticationBrowserError: WebAuthError {
    /// What went wrong, as a value that stays stable across releases.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `notRegistered`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No web-authentication browser is registered.
        public static let notRegistered = Code(rawValue: "notRegistered")
        /// The name or program given to register is not usable.
        public static let invalidRegistration = Code(rawValue: "invalidRegistration")
        /// A desktop entry with webauth's file name exists but was not written by webauth.
        public static let foreignEntry = Code(rawValue: "foreignEntry")
        /// A file or directory could not be read or written, or the socket directory is unsafe.
        public static let fileSystem = Code(rawValue: "fileSystem")
        /// The registered program could not be started, or did not start listening in time.
        public static let launchFailed = Code(rawValue: "launchFailed")
        /// Another instance of the program is already listening.
        public static let alreadyListening = Code(rawValue: "alreadyListening")
        /// The other side sent something the protocol does not allow (too long, malformed, out
        /// of order).
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// The other side went away before the request was answered.
        public static let disconnected = Code(rawValue: "disconnected")
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

    static func notRegistered(_ message: String) -> Self { Self(code: .notRegistered, message: message) }
    static func invalidRegistration(_ message: String) -> Self { Self(code: .invalidRegistration, message: message) }
    static func foreignEntry(_ message: String) -> Self { Self(code: .foreignEntry, message: message) }
    static func fileSystem(_ message: String) -> Self { Self(code: .fileSystem, message: message) }
    static func launchFailed(_ message: String) -> Self { Self(code: .launchFailed, message: message) }
    static func alreadyListening(_ message: String) -> Self { Self(code: .alreadyListening, message: message) }
    static func protocolViolation(_ message: String) -> Self { Self(code: .protocolViolation, message: message) }
    static func disconnected(_ message: String) -> Self { Self(code: .disconnected, message: message) }
}
