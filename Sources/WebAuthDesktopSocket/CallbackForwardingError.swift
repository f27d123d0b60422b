// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

/// Why ``CallbackForwarder/forward(_:)`` did not deliver a URL. ``message`` never contains the
/// URL's query or fragment.
public struct CallbackForwardingError: WebAuthError {
    /// What went wrong, with the handler program's exit status for it.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `noWaitingSession`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The exit status `webauth-scheme-handler` ends with: 1, 2, 65, or 70 for any other code.
        public var exitStatus: Int32 {
            switch self {
            case .rejected: 1
            case .noWaitingSession: 2
            case .invalidURL: 65
            default: 70
            }
        }

        /// The session refused the URL (not its callback, or not accepted). Exit status 1.
        public static let rejected = Code(rawValue: "rejected")
        /// No session is waiting for the scheme, or it has already finished; the URL was
        /// dropped. Exit status 2.
        public static let noWaitingSession = Code(rawValue: "noWaitingSession")
        /// The argument is not an absolute URL with a valid custom scheme. Exit status 65.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// The socket directory is unsafe or the exchange failed. Exit status 70.
        public static let failed = Code(rawValue: "failed")
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people, without the URL's query or fragment.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    static func rejected(_ message: String) -> Self { Self(code: .rejected, message: message) }
    static func noWaitingSession(_ message: String) -> Self { Self(code: .noWaitingSession, message: message) }
    static func invalidURL(_ message: String) -> Self { Self(code: .invalidURL, message: message) }
    static func failed(_ message: String) -> Self { Self(code: .failed, message: message) }
}
