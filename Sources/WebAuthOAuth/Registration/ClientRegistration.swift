// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthCore

/// The client metadata a dynamic registration asks for (RFC 7591 §2): by default a native
/// public client, as RFC 8252 describes one — `application_type` `native`, loopback redirect
/// URIs, `token_endpoint_auth_method` `none` (PKCE protects its codes), the grant types
/// `authorization_code` and `refresh_token`, and the response type `code`.
///
/// ```swift
/// let request = ClientRegistrationRequest(
///     redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "my-cli")
/// ```
public struct ClientRegistrationRequest: Sendable, Hashable {
    /// `redirect_uris`: where the provider may send the browser back to. Loopback ones
    /// (`http://127.0.0.1/…`, `http://[::1]/…`) leave the port open where the provider follows
    /// RFC 8252 §7.3.
    public var redirectURIs: [URL]
    /// `client_name`: what the provider's consent page shows.
    public var clientName: String?
    /// `application_type` (OpenID Connect Dynamic Client Registration §2): `native`.
    public var applicationType: String
    /// `token_endpoint_auth_method`: ``ClientAuthenticationMethod/none`` for a public client.
    public var tokenEndpointAuthMethod: ClientAuthenticationMethod
    /// `grant_types`: `authorization_code` and `refresh_token`.
    public var grantTypes: [String]
    /// `response_types`: `code`.
    public var responseTypes: [String]
    /// `scope`: the scopes the client will ask for; empty to leave them to the provider.
    public var scopes: [String]
    /// `jwks`: the public keys the client signs its `private_key_jwt` assertions with, as JWKs
    /// (``ClientAssertionKey/publicJWK``); empty (the default) to send none.
    public var publicKeys: [[String: String]] = []

    /// Creates the metadata of a native public client; every parameter has the default its
    /// property describes.
    public init(
        redirectURIs: [URL], clientName: String? = nil, applicationType: String = "native",
        tokenEndpointAuthMethod: ClientAuthenticationMethod = .none,
        grantTypes: [String] = ["authorization_code", "refresh_token"], responseTypes: [String] = ["code"],
        scopes: [String] = []
    ) {
        self.redirectURIs = redirectURIs
        self.clientName = clientName
        self.applicationType = applicationType
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.scopes = scopes
    }

    /// The JSON body of the registration request (RFC 7591 §3.1).
    func body() -> Data {
        struct Body: Encodable {
            var redirectURIs: [String]
            var clientName: String?
            var applicationType: String
            var tokenEndpointAuthMethod: String
            var grantTypes: [String]
            var responseTypes: [String]
            var scope: String?
            var jwks: KeySet?

            struct KeySet: Encodable {
                var keys: [[String: String]]
            }

            private enum CodingKeys: String, CodingKey {
                case redirectURIs = "redirect_uris"
                case clientName = "client_name"
                case applicationType = "application_type"
                case tokenEndpointAuthMethod = "token_endpoint_auth_method"
                case grantTypes = "grant_types"
                case responseTypes = "response_types"
                case scope, jwks
            }
        }
        let body = Body(
            redirectURIs: redirectURIs.map(\.absoluteString), clientName: clientName, applicationType: applicationType,
            tokenEndpointAuthMethod: tokenEndpointAuthMethod.rawValue, grantTypes: grantTypes,
            responseTypes: responseTypes, scope: scopes.isEmpty ? nil : scopes.joined(separator: " "),
            jwks: publicKeys.isEmpty ? nil : Body.KeySet(keys: publicKeys))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)) ?? Data("{}".utf8)
    }
}

/// What a provider registered (RFC 7591 §3.2.1): the client ID, any client secret, and — where
/// the provider offers RFC 7592's management — the registration access token and the
/// registration's own URI, with which the registration can be read or deleted later.
///
/// The client secret and the registration access token are secrets: printing, interpolating or
/// dumping a registration never shows them, and no error quotes them. Keep a registration
/// where the tokens go (the token store's `StoredTokens` does), not in plain configuration.
public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// `client_id`: the identifier the provider gave the client.
    public var clientID: String
    /// `client_secret`, when the provider issued one (it may, even to a client that asked for
    /// `none`). Secret.
    public var clientSecret: String?
    /// `client_secret_expires_at`: when the secret expires; `nil` when it does not (`0`) or
    /// there is no secret.
    public var clientSecretExpiresAt: Date?
    /// `client_id_issued_at`, when sent.
    public var clientIDIssuedAt: Date?
    /// `registration_access_token` (RFC 7592 §3): what reads, changes or deletes the
    /// registration at ``registrationClientURI``. Secret.
    public var registrationAccessToken: String?
    /// `registration_client_uri` (RFC 7592 §3): the registration's own address.
    public var registrationClientURI: URL?
    /// `token_endpoint_auth_method` as registered: how the client authenticates at the token
    /// endpoint. A provider may register another method than the one asked for.
    public var tokenEndpointAuthMethod: ClientAuthenticationMethod?
    /// `redirect_uris` as registered; empty when the answer did not repeat them.
    public var redirectURIs: [URL]
    /// The registration endpoint the client was registered at.
    public var registrationEndpoint: URL?
    /// What was odd in the provider's answer and how it was taken, one sentence each: an
    /// informational field that was malformed and left out (`client_id_issued_at` as a string,
    /// say), or another authentication method registered than the one asked for. Never a secret;
    /// not kept when the registration is stored.
    public var notes: [String] = []

    private enum CodingKeys: String, CodingKey {
        case clientID, clientSecret, clientSecretExpiresAt, clientIDIssuedAt, registrationAccessToken
        case registrationClientURI, tokenEndpointAuthMethod, redirectURIs, registrationEndpoint
    }

    /// Creates a registration.
    public init(
        clientID: String, clientSecret: String? = nil, clientSecretExpiresAt: Date? = nil,
        clientIDIssuedAt: Date? = nil, registrationAccessToken: String? = nil, registrationClientURI: URL? = nil,
        tokenEndpointAuthMethod: ClientAuthenticationMethod? = nil, redirectURIs: [URL] = [],
        registrationEndpoint: URL? = nil, notes: [String] = []
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientSecretExpiresAt = clientSecretExpiresAt
        self.clientIDIssuedAt = clientIDIssuedAt
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.redirectURIs = redirectURIs
        self.registrationEndpoint = registrationEndpoint
        self.notes = notes
    }

    /// Whether the registration can be read and deleted (RFC 7592): it has both a
    /// registration access token and a registration client URI.
    public var isManageable: Bool { registrationAccessToken != nil && registrationClientURI != nil }

    /// The client ID, whether there is a secret, and where the registration is managed; never
    /// a secret or a token.
    public var description: String {
        var parts = ["clientID: \(clientID)", "clientSecret: \(clientSecret == nil ? "none" : "<redacted>")"]
        parts.append("registrationAccessToken: \(registrationAccessToken == nil ? "none" : "<redacted>")")
        if let registrationClientURI { parts.append("registrationClientURI: \(registrationClientURI.redactedForLogs)") }
        return "ClientRegistration(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the secret and the registration access token, so `dump` shows neither.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientID": clientID, "hasClientSecret": clientSecret != nil,
                "clientSecretExpiresAt": clientSecretExpiresAt as Any,
                "hasRegistrationAccessToken": registrationAccessToken != nil,
                "registrationClientURI": registrationClientURI.map(\.redactedForLogs) as Any,
                "tokenEndpointAuthMethod": tokenEndpointAuthMethod as Any, "redirectURIs": redirectURIs,
            ], displayStyle: .struct)
    }

    /// The secrets a registration carries, for withholding them from error descriptions.
    var secrets: [String] { [clientSecret, registrationAccessToken].compactMap { $0 } }

    /// A client configuration for this registration: `base` (provider, scopes, redirect URI…)
    /// with this client ID, secret and authentication method.
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` when the provider registered a way of
    ///   authenticating this package does not offer (``ClientConfiguration/validated()``).
    public func configuration(from base: ClientConfiguration) throws(OAuthError) -> ClientConfiguration {
        var configuration = base
        configuration.clientID = clientID
        configuration.clientSecret = clientSecret
        configuration.clientAuthentication = tokenEndpointAuthMethod
        return try configuration.validated()
    }
}

/// The JSON a registration endpoint answers with (RFC 7591 §3.2.1), and RFC 7592's read, read
/// field by field: what the client needs must be well formed (a malformed one is a
/// ``problems`` entry), what is only information is taken when it can be and otherwise left out
/// with a ``notes`` entry.
struct RegistrationResponse: Decodable {
    var clientID: String?
    var clientSecret: String?
    var clientSecretExpiresAt: Double?
    var clientIDIssuedAt: Double?
    var registrationAccessToken: String?
    var registrationClientURI: String?
    var tokenEndpointAuthMethod: String?
    var redirectURIs: [String]?
    /// The fields the client needs that are malformed, one sentence each: the answer cannot be used.
    var problems: [String] = []
    /// The informational fields that were malformed or read with allowance, one sentence each.
    var notes: [String] = []

    private enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientSecretExpiresAt = "client_secret_expires_at"
        case clientIDIssuedAt = "client_id_issued_at"
        case registrationAccessToken = "registration_access_token"
        case registrationClientURI = "registration_client_uri"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case redirectURIs = "redirect_uris"
    }

    /// Throws only when the answer is not a JSON object.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var problems: [String] = []
        var notes: [String] = []
        /// A string the client needs: absent or `null` is `nil`, another type a problem.
        func string(_ key: CodingKeys) -> String? {
            guard container.contains(key), (try? container.decodeNil(forKey: key)) == false else { return nil }
            if let value = try? container.decode(String.self, forKey: key) { return value }
            problems.append("its \(key.stringValue) is not a string")
            return nil
        }
        /// A time (RFC 7591 §3.2.1: seconds since 1970, a JSON number), only informational: a
        /// number in a string is read as the number, anything else is left out.
        func seconds(_ key: CodingKeys) -> Double? {
            guard container.contains(key), (try? container.decodeNil(forKey: key)) == false else { return nil }
            if let value = try? container.decode(Double.self, forKey: key) { return value }
            if let text = try? container.decode(String.self, forKey: key),
                let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite
            {
                notes.append("its \(key.stringValue) is a string, not a number (RFC 7591 §3.2.1): read as the number")
                return value
            }
            notes.append("its \(key.stringValue) is not a number (RFC 7591 §3.2.1): ignored")
            return nil
        }
        clientID = string(.clientID)
        clientSecret = string(.clientSecret)
        registrationAccessToken = string(.registrationAccessToken)
        registrationClientURI = string(.registrationClientURI)
        clientSecretExpiresAt = seconds(.clientSecretExpiresAt)
        clientIDIssuedAt = seconds(.clientIDIssuedAt)
        // Some providers (glewlwyd) answer RFC 7592's read with a list here.
        if let method = try? container.decodeIfPresent(String.self, forKey: .tokenEndpointAuthMethod) {
            tokenEndpointAuthMethod = method
        } else if let methods = try? container.decodeIfPresent([String].self, forKey: .tokenEndpointAuthMethod) {
            tokenEndpointAuthMethod = methods.count == 1 ? methods.first : nil
        } else if container.contains(.tokenEndpointAuthMethod),
            (try? container.decodeNil(forKey: .tokenEndpointAuthMethod)) == false
        {
            problems.append("its token_endpoint_auth_method is not a string")
        }
        if container.contains(.redirectURIs), (try? container.decodeNil(forKey: .redirectURIs)) == false {
            if let uris = try? container.decode([String].self, forKey: .redirectURIs) {
                redirectURIs = uris
            } else {
                problems.append("its redirect_uris is not a list of strings")
            }
        }
        self.problems = problems
        self.notes = notes
    }
}
