// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Who the tokens of a configuration are for, and so how they are obtained again when they
/// expire.
public enum ClientGrant: String, Sendable, Hashable, Codable, CaseIterable {
    /// A person signs in: the authorization code flow (or the implicit or device flow), then
    /// refresh tokens. The default.
    case person
    /// The client itself, with its own credentials and no person (RFC 6749 §4.4): for machines
    /// and CI jobs. There is no refresh token; the client asks again
    /// (``OAuthClient/clientCredentials(scopes:)``), and ``OAuthClient/refresh(_:)`` does so too.
    /// Needs a confidential client.
    case clientCredentials = "client_credentials"
}
