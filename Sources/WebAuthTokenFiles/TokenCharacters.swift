// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The characters a token read back from a store may hold before it is printed or handed on to
/// git, kubectl or a terminal: RFC 6749 Appendix A's `%x20-7E` (what the OAuth layer already
/// requires of a provider's answer). A store — a file, a keyring item, whatever a session bus
/// says — is checked again: an entry whose access token, token type or ID token holds anything
/// else (an escape sequence, a newline) is not used as it is.
///
/// ```swift
/// TokenCharacters.areAllowed("eyJhbGciOi.x-y_z")  // true
/// TokenCharacters.areAllowed("abc\u{1B}]52;c;")    // false
/// ```
package enum TokenCharacters {
    /// Whether every byte of `value` is in `%x20-7E`.
    package static func areAllowed(_ value: String) -> Bool {
        value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// Whether an entry's tokens that are printed or handed on — the access token, its type and
    /// the ID token, when there is one — are all allowed.
    package static func areAllowed(accessToken: String, tokenType: String, idToken: String?) -> Bool {
        areAllowed(accessToken) && areAllowed(tokenType) && (idToken.map(areAllowed) ?? true)
    }
}
