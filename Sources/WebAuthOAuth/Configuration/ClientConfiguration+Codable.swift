// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
import WebAuthTokenFiles

extension ClientConfiguration: Codable {
    /// The keys of a configuration file and of a stored entry's configuration
    /// (``TokenEntryFormat``), shared with the fast path's reader.
    private typealias Key = TokenEntryFormat.ConfigurationKey

    /// Decodes the full form or the short `{ "id", "secret", "name", "redirectURL" }` form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let clientID: String
        if let id = try container.decodeIfPresent(String.self, forKey: .clientID) {
            clientID = id
        } else if let id = try? container.decode(String.self, forKey: .id) {
            clientID = id
        } else if let id = try? container.decode(Int.self, forKey: .id) {
            clientID = String(id)
        } else {
            throw DecodingError.keyNotFound(
                Key.clientID, .init(codingPath: container.codingPath, debugDescription: "clientID (or id) is missing"))
        }
        let scopes: [String]
        if let list = try? container.decodeIfPresent([String].self, forKey: .scopes) {
            scopes = list
        } else if let string = try container.decodeIfPresent(String.self, forKey: .scopes) {
            scopes = string.split(separator: " ").map(String.init)
        } else {
            scopes = []
        }
        self.init(
            issuer: try container.decodeIfPresent(URL.self, forKey: .issuer),
            endpoints: Endpoints(
                authorization: try container.decodeIfPresent(URL.self, forKey: .authorizationEndpoint),
                token: try container.decodeIfPresent(URL.self, forKey: .tokenEndpoint),
                revocation: try container.decodeIfPresent(URL.self, forKey: .revocationEndpoint),
                userInfo: try container.decodeIfPresent(URL.self, forKey: .userInfoEndpoint),
                deviceAuthorization: try container.decodeIfPresent(URL.self, forKey: .deviceAuthorizationEndpoint),
                jwks: try container.decodeIfPresent(URL.self, forKey: .jwksURI),
                pushedAuthorization: try container.decodeIfPresent(
                    URL.self, forKey: .pushedAuthorizationRequestEndpoint)),
            clientID: clientID,
            clientSecret: try container.decodeIfPresent(String.self, forKey: .clientSecret)
                ?? container.decodeIfPresent(String.self, forKey: .secret),
            name: try container.decodeIfPresent(String.self, forKey: .name),
            scopes: scopes,
            redirectURI: try container.decodeIfPresent(URL.self, forKey: .redirectURI)
                ?? container.decodeIfPresent(URL.self, forKey: .redirectURL) ?? ClientConfiguration.defaultRedirectURI,
            clientAuthentication: try container.decodeIfPresent(
                ClientAuthenticationMethod.self, forKey: .clientAuthentication),
            responseType: try container.decodeIfPresent(ResponseType.self, forKey: .responseType) ?? .code,
            idTokenSigningAlgorithms: try container.decodeIfPresent([String].self, forKey: .idTokenSigningAlgorithms)
                ?? ["RS256"],
            additionalAuthorizationParameters: try container.decodeIfPresent(
                [String: String].self, forKey: .additionalAuthorizationParameters) ?? [:],
            usePushedAuthorization: try container.decodeIfPresent(
                PushedAuthorizationUse.self, forKey: .usePushedAuthorization)
                ?? .automatic,
            dpop: try container.decodeIfPresent(DPoPKey.Storage.self, forKey: .dpop),
            allowsDPoPDowngrade: try container.decodeIfPresent(Bool.self, forKey: .allowsDPoPDowngrade) ?? false,
            allowedTenants: try container.decodeIfPresent(Set<String>.self, forKey: .allowedTenants),
            grant: try container.decodeIfPresent(ClientGrant.self, forKey: .grant) ?? .person,
            clientKeyFile: try container.decodeIfPresent(String.self, forKey: .clientKeyFile).map {
                URL(fileURLWithPath: $0)
            },
            clientAssertionAudience: try container.decodeIfPresent(
                ClientAssertionAudience.self, forKey: .clientAssertionAudience) ?? .issuer,
            promptsConsentForOfflineAccess: try container.decodeIfPresent(
                Bool.self, forKey: .promptsConsentForOfflineAccess) ?? true)
    }

    /// Encodes the full form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(endpoints.authorization, forKey: .authorizationEndpoint)
        try container.encodeIfPresent(endpoints.token, forKey: .tokenEndpoint)
        try container.encodeIfPresent(endpoints.revocation, forKey: .revocationEndpoint)
        try container.encodeIfPresent(endpoints.userInfo, forKey: .userInfoEndpoint)
        try container.encodeIfPresent(endpoints.deviceAuthorization, forKey: .deviceAuthorizationEndpoint)
        try container.encodeIfPresent(endpoints.jwks, forKey: .jwksURI)
        try container.encodeIfPresent(endpoints.pushedAuthorization, forKey: .pushedAuthorizationRequestEndpoint)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(scopes, forKey: .scopes)
        try container.encode(redirectURI, forKey: .redirectURI)
        try container.encodeIfPresent(clientAuthentication, forKey: .clientAuthentication)
        try container.encode(responseType, forKey: .responseType)
        try container.encode(idTokenSigningAlgorithms, forKey: .idTokenSigningAlgorithms)
        if !additionalAuthorizationParameters.isEmpty {
            try container.encode(additionalAuthorizationParameters, forKey: .additionalAuthorizationParameters)
        }
        if usePushedAuthorization != .automatic {
            try container.encode(usePushedAuthorization, forKey: .usePushedAuthorization)
        }
        try container.encodeIfPresent(dpop, forKey: .dpop)
        if allowsDPoPDowngrade { try container.encode(allowsDPoPDowngrade, forKey: .allowsDPoPDowngrade) }
        if let allowedTenants { try container.encode(allowedTenants.sorted(), forKey: .allowedTenants) }
        if grant != .person { try container.encode(grant, forKey: .grant) }
        // The key's file, never the key (clientKey is not encoded).
        try container.encodeIfPresent(clientKeyFile?.path, forKey: .clientKeyFile)
        if clientAssertionAudience != .issuer {
            try container.encode(clientAssertionAudience, forKey: .clientAssertionAudience)
        }
        if !promptsConsentForOfflineAccess {
            try container.encode(promptsConsentForOfflineAccess, forKey: .promptsConsentForOfflineAccess)
        }
    }
}
