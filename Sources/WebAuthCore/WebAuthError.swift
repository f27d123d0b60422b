// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The form every webauth error takes: a stable ``code`` to match on and a ``message`` for
/// people, printed together as `code: message`.
///
/// Each module's error (``WebAuthenticationSessionError``, `OAuthError`, `TokenStoreError`,
/// `HTTPTransportError`, …) conforms, so code that reports errors can treat them alike:
///
/// ```swift
/// do {
///     try await signIn()
/// } catch let error as any WebAuthError {
///     print(error)  // "timedOut: no callback arrived within 600 s"
/// }
/// ```
///
/// A message never contains a token, a code, a secret or a callback URL's query.
public protocol WebAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of code the error has.
    associatedtype Code: Sendable, Hashable, CustomStringConvertible
    /// What went wrong, as a value that stays stable across releases.
    var code: Code { get }
    /// A sentence for people.
    var message: String { get }
}

extension WebAuthError {
    /// `code: message`, safe to print.
    public var description: String { "\(code): \(message)" }
}

/// An error code named by a string that stays stable across releases, such as
/// `notRegistered`: extensible, matched with `==` or `switch`, printed as its name.
public protocol WebAuthErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible
where RawValue == String {
    /// Creates a code from its name.
    init(rawValue: String)
}

extension WebAuthErrorCode {
    /// The code's name.
    public var description: String { rawValue }
}
