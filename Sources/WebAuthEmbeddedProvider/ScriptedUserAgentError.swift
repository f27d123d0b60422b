// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

/// Why a ``ScriptedUserAgent`` stopped, such as "the login form was refused: Wrong username
/// or password."
///
/// Match on ``code``. ``message`` never contains a password, code or query string.
public struct ScriptedUserAgentError: WebAuthError {
    /// Where the agent stopped, as a value that stays stable across releases.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `refused`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The provider refused what the agent entered (the credentials, the user code) or
        /// answered with an error page or an error status.
        public static let refused = Code(rawValue: "refused")
        /// A page did not lead on: no form to fill, a page that came back after it was answered,
        /// a malformed form or redirect, or too many pages.
        public static let unexpectedPage = Code(rawValue: "unexpectedPage")
        /// A page, redirect or form led somewhere other than plain HTTP on a loopback address,
        /// where the agent never goes.
        public static let notLoopback = Code(rawValue: "notLoopback")
        /// The provider could not be reached, or closed the connection without answering.
        public static let unreachable = Code(rawValue: "unreachable")
        /// The task running the agent was cancelled.
        public static let stopped = Code(rawValue: "stopped")
    }

    /// Where the agent stopped.
    public let code: Code
    /// What happened, for people.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    static func refused(_ message: String) -> Self { Self(code: .refused, message: message) }
    static func unexpectedPage(_ message: String) -> Self { Self(code: .unexpectedPage, message: message) }
    static func notLoopback(_ message: String) -> Self { Self(code: .notLoopback, message: message) }
    static func unreachable(_ message: String) -> Self { Self(code: .unreachable, message: message) }
    static func stopped(_ message: String) -> Self { Self(code: .stopped, message: message) }
}
