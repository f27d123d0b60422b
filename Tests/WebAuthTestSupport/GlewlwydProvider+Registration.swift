// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider

extension GlewlwydProvider {
    /// How glewlwyd's OIDC plugin registers clients (RFC 7591), as the launcher sets it up.
    public enum RegistrationMode: String, Sendable {
        /// Anyone may register (`register-client-auth-scope` empty), and manage the
        /// registration (RFC 7592).
        case open
        /// Registering needs an initial access token: one of glewlwyd's access tokens with the
        /// scope `registration`.
        case token
    }

    /// Starts glewlwyd with dynamic client registration on, runs `body` with it, and stops it
    /// however `body` ends.
    ///
    /// What glewlwyd (2.7, Debian's package) does, where it differs from RFC 7591 and RFC 7592:
    /// - a client registered with `token_endpoint_auth_method` `none` is stored as confidential
    ///   with no secret, so it can never authenticate: its pushed authorization request is a bare
    ///   `403` ("confidential client must be authentified"). A client registered with
    ///   `client_secret_basic` gets a secret and signs in; the tests register that way;
    /// - registration answers `200`, not `201 Created` (RFC 7591 §3.2.1), and sends
    ///   `client_secret_expires_at` `0` for a public client that has no secret;
    /// - RFC 7592's read answers `token_endpoint_auth_method` as a list, not a string, and
    ///   leaves out `registration_access_token` and `registration_client_uri` (RFC 7592 §3 asks
    ///   for both); the client keeps the ones it has;
    /// - deletion answers `200` with an empty body, not `204 No Content` (RFC 7592 §2.3);
    /// - a registration without an initial access token, where one is required, and one with a
    ///   token it does not know, are both a bare `401`: no `WWW-Authenticate` and no RFC 6750
    ///   error, so the client cannot tell "missing" from "refused" but by what it sent;
    /// - it registers the redirect URIs exactly, so a loopback redirect URI's port is fixed
    ///   (RFC 8252 §7.3 asks for any port), and it takes `http://localhost` as loopback, which
    ///   RFC 8252 §8.3 advises against.
    public static func withRegistration<Result>(
        _ mode: RegistrationMode, isolation: isolated (any Actor)? = #isolation,
        _ body: (GlewlwydProvider) async throws -> Result
    ) async throws -> Result {
        let provider = try await start(launchEnvironment: ["WEBAUTH_GLEWLWYD_REGISTRATION": mode.rawValue])
        return try await withShutdown(of: provider, shutdown: { await $0.stop() }, body)
    }
}
