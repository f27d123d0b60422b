// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Claims from the UserInfo endpoint (OpenID Connect Core §5.3).
public struct UserInfo: Sendable, Hashable, Decodable {
    /// `sub`: the same subject as the ID token's.
    public var subject: String
    /// `name`.
    public var name: String?
    /// `preferred_username`.
    public var preferredUsername: String?
    /// `email`.
    public var email: String?
    /// `email_verified`.
    public var emailVerified: Bool?

    private enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case name
        case preferredUsername = "preferred_username"
        case email
        case emailVerified = "email_verified"
    }

    /// Creates user info.
    public init(
        subject: String, name: String? = nil, preferredUsername: String? = nil, email: String? = nil,
        emailVerified: Bool? = nil
    ) {
        self.subject = subject
        self.name = name
        self.preferredUsername = preferredUsername
        self.email = email
        self.emailVerified = emailVerified
    }
}
