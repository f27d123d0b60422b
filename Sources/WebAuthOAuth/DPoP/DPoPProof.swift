// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import WebAuthCore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One DPoP proof (RFC 9449 §4.2): a JWT signed with a ``DPoPKey`` that binds one HTTP request
/// — its method and URI, at one time — to the key, and to an access token when one is sent.
///
/// ```swift
/// let proof = DPoPProof(method: "GET", url: api, accessToken: tokens.accessToken)
/// request.headerFields[.authorization] = "DPoP \(tokens.accessToken)"
/// request.headerFields[HTTPField.Name("DPoP")!] = proof.signed(with: key)
/// ```
///
/// Every proof has a fresh `jti` (256 random bits), so no two proofs are alike.
public struct DPoPProof: Sendable, Hashable {
    /// `htm`: the request's method.
    public let method: String
    /// `htu`: the request's URI without query and fragment (RFC 9449 §4.2).
    public let targetURI: String
    /// `iat`: when the proof was made, in whole seconds.
    public let issuedAt: Date
    /// `jti`: the proof's unique identifier.
    public let identifier: String
    /// `nonce`: the server's latest `DPoP-Nonce`, if it gave one.
    public let nonce: String?
    /// `ath`: the base64url SHA-256 of the access token, on requests that carry one.
    public let accessTokenHash: String?

    /// Makes a proof for one request.
    ///
    /// - Parameters:
    ///   - method: The HTTP method, such as `POST`.
    ///   - url: The request's URL; its query and fragment are left out of `htu`.
    ///   - accessToken: The access token the request carries, for `ath`; `nil` at the token endpoint.
    ///   - nonce: The server's nonce, if it gave one.
    ///   - issuedAt: The time. Default now.
    public init(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, issuedAt: Date = Date()) {
        self.method = method.uppercased()
        targetURI = Self.targetURI(of: url)
        self.issuedAt = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        identifier = RandomToken.make()
        self.nonce = nonce
        accessTokenHash = accessToken.map { Self.hash(ofAccessToken: $0) }
    }

    /// The compact JWS for the `DPoP` header field, signed with `key` (ES256).
    public func signed(with key: DPoPKey) -> String {
        struct Header: Encodable {
            let typ = "dpop+jwt"
            let alg = "ES256"
            let jwk: [String: String]
        }
        struct Claims: Encodable {
            let jti: String
            let htm: String
            let htu: String
            let iat: Int
            let nonce: String?
            let ath: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let claims = Claims(
            jti: identifier, htm: method, htu: targetURI, iat: Int(issuedAt.timeIntervalSince1970), nonce: nonce,
            ath: accessTokenHash)
        // Encoding these plain structs cannot fail.
        guard let header = try? encoder.encode(Header(jwk: key.publicJWK)), let payload = try? encoder.encode(claims)
        else { preconditionFailure("JSON for a DPoP proof") }
        let signingInput = header.base64URLEncodedString() + "." + payload.base64URLEncodedString()
        return signingInput + "." + key.sign(Data(signingInput.utf8)).base64URLEncodedString()
    }

    /// `htu` for `url`: scheme and host in lower case, the port only when it is not the
    /// scheme's default, the path (`/` when empty); no user, query or fragment.
    public static func targetURI(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let scheme = (components?.scheme ?? "").lowercased()
        var host = (components?.percentEncodedHost ?? "").lowercased()
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        var authority = host
        if let port = components?.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            authority += ":\(port)"
        }
        let path = components?.percentEncodedPath ?? ""
        return "\(scheme)://\(authority)\(path.isEmpty ? "/" : path)"
    }

    /// `ath`: base64url(SHA-256(ASCII(access token))) (RFC 9449 §4.2).
    public static func hash(ofAccessToken token: String) -> String {
        Data(SHA256.hash(data: Data(token.utf8))).base64URLEncodedString()
    }
}
