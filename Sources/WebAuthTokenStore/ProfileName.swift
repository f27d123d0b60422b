// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

/// The rules for profile names, the keys a ``TokenStore`` keeps entries under.
///
/// A profile name is 1–64 characters from `A-Z a-z 0-9 . _ -`, does not start with `.` or `-`
/// and does not contain `..`; so it is always a safe file name and a safe `secret-tool`
/// attribute value. Every store method checks its profile name with ``validate(_:)``.
///
/// ```swift
/// try ProfileName.validate("work")      // fine
/// try ProfileName.validate("../work")   // throws TokenStoreError.Code.invalidProfileName
/// ```
public enum ProfileName {
    /// The longest name accepted.
    public static let maximumLength = ProfileNameRule.maximumLength

    /// Whether `name` is a valid profile name.
    public static func isValid(_ name: String) -> Bool {
        ProfileNameRule.isValid(name)
    }

    /// Throws ``TokenStoreError/Code/invalidProfileName`` unless `name` is valid.
    public static func validate(_ name: String) throws(TokenStoreError) {
        guard isValid(name) else {
            // Quote at most a short, printable prefix: the input might be anything.
            let shown = String(
                name.unicodeScalars.prefix(40).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
            throw TokenStoreError(
                .invalidProfileName,
                "\"\(shown)\" is not a valid profile name: use 1–\(maximumLength) of A-Z a-z 0-9 . _ -, "
                    + "not starting with . or -, without ..")
        }
    }
}
