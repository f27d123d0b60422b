// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// When a sign-in pushes its authorization request to the provider first (RFC 9126), so that
/// the browser opens only `client_id` and a `request_uri`.
public enum PushedAuthorizationUse: String, Sendable, Hashable, Codable, CaseIterable {
    /// Push when the provider's metadata says `require_pushed_authorization_requests`; else
    /// send the parameters in the authorization URL. The default.
    case automatic = "auto"
    /// Always push; a provider without a `pushed_authorization_request_endpoint` is an error.
    case always
    /// Never push; a provider that requires it is an error before the browser opens.
    case never
}
