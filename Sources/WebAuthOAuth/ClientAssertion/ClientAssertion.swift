// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One client assertion (RFC 7523 §2.2 and §3, OpenID Connect Core §9): a short-lived JWT
/// that proves the client's identity at the token, pushed authorization, revocation and device
/// authorization endpoints, sent as `client_assertion` with `client_assertion_type`
/// ``type``.
///
/// `iss` and `sub` are the client ID, `aud` the authorization server (its issuer identifier by
/// default, see ``ClientAssertionAudience``), `jti` 256 fresh random bits, `iat` now and `exp`
/// a minute later. ``OAuthClient`` makes a new one for every request; an assertion is never
/// sent twice.
///
/// ```swift
/// let assertion = ClientAssertion(clientID: "my-cli", audience: "https://id.example.com")
/// let jwt = try assertion.signed(with: key)            // private_key_jwt
/// let hmac = try assertion.signed(withSecret: secret)  // client_secret_jwt
/// ```
public struct ClientAssertion: Sendable, Hashable {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    public static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// How long an assertion is valid: 60 seconds.
    public static let defaultLifetime: Duration = .seconds(60)

    /// `iss` and `sub`: the client ID.
    public let clientID: String
    /// `aud`: who the assertion is for.
    public let audience: String
    /// `jti`: the assertion's unique identifier.
    public let identifier: String
    /// `iat`: when it was made, in whole seconds.
    public let issuedAt: Date
    /// `exp`: when it expires.
    public let expiresAt: Date

    /// Makes an assertion with a fresh `jti`.
    ///
    /// - Parameters:
    ///   - clientID: The client ID (`iss` and `sub`).
    ///   - audience: The `aud`: the issuer identifier, or what the provider wants.
    ///   - issuedAt: The time (from the client's ``OAuthClock``). Default now.
    ///   - lifetime: How long until `exp`. Default ``defaultLifetime``; at least one second.
    public init(
        clientID: String, audience: String, issuedAt: Date = Date(),
        lifetime: Duration = ClientAssertion.defaultLifetime
    ) {
        self.clientID = clientID
        self.audience = audience
        identifier = RandomToken.make()
        let now = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        self.issuedAt = now
        expiresAt = now.addingTimeInterval(TimeInterval(max(lifetime.components.seconds, 1)))
    }

    /// The compact JWS for `private_key_jwt`, signed with `key` (its algorithm and `kid`).
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` when the key cannot sign.
    public func signed(with key: ClientAssertionKey) throws(OAuthError) -> String {
        let input = signingInput(algorithm: key.algorithm, keyID: key.keyID)
        return input + "." + (try key.sign(Data(input.utf8))).base64URLEncodedString()
    }

    /// The compact JWS for `client_secret_jwt`: HS256, keyed with the client secret's UTF-8
    /// bytes (OpenID Connect Core §9).
    ///
    /// - Throws: ``OAuthError/Code/invalidConfiguration`` for a secret shorter than
    ///   ``minimumSecretLength`` bytes: an HS256 key of fewer than 256 bits is refused by
    ///   RFC 7518 §3.2, and a short one is recovered from a single assertion.
    public func signed(withSecret secret: String) throws(OAuthError) -> String {
        if let problem = Self.secretProblem(secret) {
            throw OAuthError(code: .invalidConfiguration, message: problem)
        }
        let input = signingInput(algorithm: .hs256, keyID: nil)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return input + "." + Data(mac).base64URLEncodedString()
    }

    /// The shortest client secret `client_secret_jwt` signs with, in UTF-8 bytes: 32, the 256
    /// bits RFC 7518 §3.2 requires of an HS256 key.
    public static let minimumSecretLength = 32

    /// Why `secret` cannot key `client_secret_jwt`; `nil` when it can.
    static func secretProblem(_ secret: String?) -> String? {
        guard let secret, !secret.isEmpty else { return "client_secret_jwt needs a client secret" }
        let length = secret.utf8.count
        guard length >= minimumSecretLength else {
            return "client_secret_jwt needs a client secret of at least \(minimumSecretLength) bytes (256 bits, "
                + "RFC 7518 §3.2); this one has \(length): use client_secret_basic or client_secret_post with it, "
                + "or ask the provider for a longer secret"
        }
        return nil
    }

    private func signingInput(algorithm: ClientAssertionKey.Algorithm, keyID: String?) -> String {
        struct Header: Encodable {
            let alg: String
            let typ = "JWT"
            let kid: String?
        }
        struct Claims: Encodable {
            let iss: String
            let sub: String
            let aud: String
            let jti: String
            let iat: Int
            let exp: Int
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = Claims(
            iss: clientID, sub: clientID, aud: audience, jti: identifier, iat: Int(issuedAt.timeIntervalSince1970),
            exp: Int(expiresAt.timeIntervalSince1970))
        // Encoding these plain structs cannot fail.
        guard let header = try? encoder.encode(Header(alg: algorithm.rawValue, kid: keyID)),
            let payload = try? encoder.encode(claims)
        else { preconditionFailure("JSON for a client assertion") }
        return header.base64URLEncodedString() + "." + payload.base64URLEncodedString()
    }
}

/// Who a client assertion is for: its `aud` claim.
///
/// The default, ``issuer``, follows the current guidance (RFC 7523bis, OpenID Connect Core
/// errata): the authorization server's issuer identifier. Some providers still want their
/// token endpoint's URL (``tokenEndpoint``), the URL of each endpoint the assertion is sent to
/// (``endpoint``, as glewlwyd does), or another value (``url(_:)``). In a configuration file
/// and on the command line: `issuer`, `token-endpoint`, `endpoint`, or the URL.
public enum ClientAssertionAudience: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The issuer identifier (the token endpoint's URL when no issuer is known).
    case issuer
    /// The token endpoint's URL, for every endpoint the assertion goes to.
    case tokenEndpoint
    /// The URL of the endpoint each assertion is sent to: the token endpoint's for a token
    /// request, the revocation endpoint's for a revocation, and so on.
    case endpoint
    /// This exact value.
    case url(URL)

    /// `issuer`, `token-endpoint`, `endpoint` or an absolute URL; `nil` for anything else.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "issuer": self = .issuer
        case "token-endpoint", "token_endpoint": self = .tokenEndpoint
        case "endpoint": self = .endpoint
        default:
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else { return nil }
            self = .url(url)
        }
    }

    /// `issuer`, `token-endpoint`, `endpoint` or the URL.
    public var description: String {
        switch self {
        case .issuer: "issuer"
        case .tokenEndpoint: "token-endpoint"
        case .endpoint: "endpoint"
        case .url(let url): url.absoluteString
        }
    }

    /// Reads the text form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let audience = ClientAssertionAudience(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "issuer, token-endpoint, endpoint or a URL"))
        }
        self = audience
    }

    /// Writes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
