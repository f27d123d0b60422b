// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Ready-made configurations for well-known providers, with their quirks handled or written
/// down. Register your own app with the provider first; these need only your client ID (and
/// secret where the provider insists on one).
extension ClientConfiguration {
    /// GitHub (OAuth apps and GitHub Apps). Not OpenID Connect: no ID token, no discovery.
    ///
    /// Quirks: the token endpoint answers in form encoding unless asked for JSON (this layer
    /// always asks) and reports errors with status 200 (handled). OAuth apps need the client
    /// secret even with PKCE. Loopback redirects may use any port when the app registers
    /// `http://127.0.0.1/…`. There is no RFC 7009 revocation endpoint (tokens are revoked in
    /// the account settings or through GitHub's REST API). The device flow must be enabled in
    /// the app's settings.
    public static func github(clientID: String, clientSecret: String? = nil, scopes: [String] = ["read:user"])
        -> ClientConfiguration
    {
        ClientConfiguration(
            endpoints: Endpoints(
                authorization: URL(string: "https://github.com/login/oauth/authorize"),
                token: URL(string: "https://github.com/login/oauth/access_token"),
                deviceAuthorization: URL(string: "https://github.com/login/device/code")),
            clientID: clientID, clientSecret: clientSecret, name: "GitHub", scopes: scopes,
            clientAuthentication: clientSecret == nil ? ClientAuthenticationMethod.none : .clientSecretPost)
    }

    /// Google (OpenID Connect, discovered from `https://accounts.google.com`).
    ///
    /// Quirks: "Desktop app" clients get a client secret that is not secret but must be sent
    /// (`client_secret_post`). A refresh token comes only with `access_type=offline` (set
    /// here) and, after the first consent, only with `prompt=consent`. Loopback redirects use
    /// any port. Revocation is at `https://oauth2.googleapis.com/revoke` (in the metadata).
    public static func google(
        clientID: String, clientSecret: String? = nil, scopes: [String] = ["openid", "email", "profile"]
    ) -> ClientConfiguration {
        ClientConfiguration(
            issuer: URL(string: "https://accounts.google.com"), clientID: clientID, clientSecret: clientSecret,
            name: "Google", scopes: scopes,
            clientAuthentication: clientSecret == nil ? ClientAuthenticationMethod.none : .clientSecretPost,
            additionalAuthorizationParameters: ["access_type": "offline"])
    }

    /// GitLab.com or a self-managed GitLab (OpenID Connect).
    ///
    /// Quirks: refresh tokens rotate on every refresh (the provider keeps the new one for
    /// you through ``AccessTokenProvider``); access tokens live two hours. Register the
    /// application as non-confidential for a program on someone's machine.
    public static func gitlab(
        clientID: String, instance: URL = URL(string: "https://gitlab.com")!,
        scopes: [String] = ["openid", "profile", "email", "read_user"]
    ) -> ClientConfiguration {
        ClientConfiguration(issuer: instance, clientID: clientID, name: "GitLab", scopes: scopes)
    }

    /// Microsoft identity platform (Entra ID), OpenID Connect with the v2.0 endpoints.
    ///
    /// `tenant` is a tenant ID (a GUID, or a verified domain) for one organization's accounts, or
    /// one of the multi-tenant aliases: `common` (work, school and personal accounts),
    /// `organizations` (work and school) or `consumers` (personal). An alias's discovery document
    /// names the issuer template `https://login.microsoftonline.com/{tenantid}/v2.0`: an ID token
    /// is then accepted when its `iss` is that template with the token's own `tid`, and, when
    /// `allowedTenants` is given, when `tid` is one of them. A refreshed token must keep its tenant.
    ///
    /// Quirks: `offline_access` is needed for a refresh token, and is granted without
    /// `prompt=consent`, which Entra takes as asking the person to consent at every sign-in: this
    /// preset turns ``promptsConsentForOfflineAccess`` off. There is no revocation endpoint.
    ///
    /// ```swift
    /// let anyone = ClientConfiguration.microsoft(clientID: "…", tenant: "common")
    /// let twoOrganizations = ClientConfiguration.microsoft(
    ///     clientID: "…", tenant: "organizations", allowedTenants: ["0f1e…", "9a8b…"])
    /// ```
    public static func microsoft(
        clientID: String, tenant: String, allowedTenants: Set<String>? = nil,
        scopes: [String] = ["openid", "profile", "email", "offline_access"]
    ) -> ClientConfiguration {
        ClientConfiguration(
            issuer: URL(string: "https://login.microsoftonline.com/\(tenant)/v2.0"), clientID: clientID,
            name: "Microsoft", scopes: scopes, allowedTenants: allowedTenants, promptsConsentForOfflineAccess: false)
    }

    /// Microsoft's multi-tenant aliases: their issuer is a template (see
    /// ``microsoft(clientID:tenant:allowedTenants:scopes:)``).
    public static let microsoftTenantAliases: Set<String> = ["common", "organizations", "consumers"]

    /// AniList (the implicit flow, as AniList offers for apps without a server).
    ///
    /// Quirks: the access token comes back in the redirect URI's fragment
    /// (`#access_token=…&token_type=Bearer&expires_in=…`), valid for a year, with no refresh
    /// token; the redirect must be a custom scheme (a fragment never reaches a loopback
    /// listener). The code flow needs the client secret (use `ClientConfiguration.init(issuer:endpoints:clientID:clientSecret:name:scopes:redirectURI:clientAuthentication:responseType:idTokenSigningAlgorithms:additionalAuthorizationParameters:)`
    /// with the same endpoints and ``ResponseType/code``).
    public static func anilist(clientID: String, redirectURI: URL) -> ClientConfiguration {
        ClientConfiguration(
            endpoints: Endpoints(
                authorization: URL(string: "https://anilist.co/api/v2/oauth/authorize"),
                token: URL(string: "https://anilist.co/api/v2/oauth/token")),
            clientID: clientID, name: "AniList", redirectURI: redirectURI, responseType: .token)
    }

    /// The preset named `name` (`github`, `google`, `gitlab`, `microsoft`, `anilist`), for
    /// command-line tools. `tenant` is required for `microsoft` (with `allowedTenants`, as in
    /// ``microsoft(clientID:tenant:allowedTenants:scopes:)``); `redirectURI` for `anilist`.
    public static func preset(
        named name: String, clientID: String, clientSecret: String? = nil, tenant: String? = nil,
        allowedTenants: Set<String>? = nil, redirectURI: URL? = nil
    ) throws(OAuthError) -> ClientConfiguration {
        switch name.lowercased() {
        case "github": return github(clientID: clientID, clientSecret: clientSecret)
        case "google": return google(clientID: clientID, clientSecret: clientSecret)
        case "gitlab": return gitlab(clientID: clientID)
        case "microsoft":
            guard let tenant else {
                throw OAuthError(code: .invalidConfiguration, message: "the microsoft preset needs a tenant ID")
            }
            guard TenantIssuerTemplate.isTenantSegment(Substring(tenant)) else {
                throw OAuthError(
                    code: .invalidConfiguration, message: "'\(tenant.safeForDisplay)' is not a Microsoft tenant")
            }
            return microsoft(clientID: clientID, tenant: tenant, allowedTenants: allowedTenants)
        case "anilist":
            guard let redirectURI else {
                throw OAuthError(
                    code: .invalidConfiguration, message: "the anilist preset needs a custom-scheme redirect URI")
            }
            return anilist(clientID: clientID, redirectURI: redirectURI)
        default:
            throw OAuthError(
                code: .invalidConfiguration,
                message: "unknown preset '\(name.safeForDisplay)'; known: \(presetNames.joined(separator: ", "))")
        }
    }

    /// The names ``preset(named:clientID:clientSecret:tenant:allowedTenants:redirectURI:)`` knows.
    public static let presetNames = ["github", "google", "gitlab", "microsoft", "anilist"]
}
