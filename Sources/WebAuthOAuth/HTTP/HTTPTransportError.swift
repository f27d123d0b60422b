// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import WebAuthCore

/// Why a transport could not deliver a response.
public struct HTTPTransportError: WebAuthError {
    /// What went wrong.
    public struct Code: WebAuthErrorCode {
        /// The code's name, such as `timedOut`.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No complete response within the request's timeout.
        public static let timedOut = Code(rawValue: "timedOut")
        /// The response body was larger than the request allows.
        public static let responseTooLarge = Code(rawValue: "responseTooLarge")
        /// No connection, or the connection broke.
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// The server answered with a redirect, which OAuth endpoints must not do.
        public static let redirected = Code(rawValue: "redirected")
    }

    /// What went wrong.
    public let code: Code
    /// A description for people; never contains a query string or a request body.
    public let message: String
    /// The cause as the transport's machinery names it, such as
    /// `libcurl error 7 (errno 111): Failed to connect to 127.0.0.1 port 9: Connection refused`:
    /// for a developer's log (`--verbose`), not for ``message``, which says it in words.
    public let detail: String?

    /// Creates an error.
    public init(code: Code, message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }
}

extension HTTPTransportError {
    /// The ``OAuthError`` code this failure is reported under.
    package var oauthCode: OAuthError.Code {
        switch code {
        case .timedOut: .timedOut
        case .responseTooLarge: .responseTooLarge
        default: .transportFailed
        }
    }
}

extension HTTPTransportError {
    /// The failure for a response from `endpoint` that announced `size` bytes (`nil`: that sent
    /// more than it may) when at most `limit` are accepted.
    package static func responseTooLarge(endpoint: String, size: Int64?, limit: Int) -> HTTPTransportError {
        HTTPTransportError(
            code: .responseTooLarge,
            message:
                "\(endpoint) sent \(size.map { "\($0)" } ?? "more than \(limit)") bytes; at most \(limit) are accepted")
    }
}
