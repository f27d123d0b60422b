// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

/// Why an ``EmbeddedProvider`` could not start, or could not make a new signing key.
///
/// Match on ``code``. ``message`` never contains a password or secret.
public struct EmbeddedProviderError: WebAuthError {
    /// The kind of failure, as a value that stays stable across releases.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `startFailed`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The configuration is unusable (duplicate usernames, a client with no redirect URI…).
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// The server could not start listening on `127.0.0.1`.
        public static let startFailed = Code(rawValue: "startFailed")
        /// A signing key could not be made.
        public static let keyGenerationFailed = Code(rawValue: "keyGenerationFailed")
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, for people. Never contains a password or secret.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}
