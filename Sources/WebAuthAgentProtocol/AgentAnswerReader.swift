// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

/// The first reader of an agent's answer in the fast path, on the terms of the store's small
/// readers (`CachedEntryReader`): plain code over bytes that answers only when it is sure that
/// `JSONDecoder`'s reading of ``AgentAnswer`` would give the same answer, and otherwise `nil`,
/// leaving the line to it. It takes a token answer as the agent writes one — `ok`, `v` and a
/// `token` whose keys are ``AgentAnswer/Token``'s — and leaves anything with an `error` or a
/// `status`, a key given twice, or any JSON it does not accept to `JSONDecoder`.
/// `FuzzCachedEntryReader` checks it against `JSONDecoder`'s reading.
///
/// ```swift
/// let answer = line.withUnsafeBytes { AgentAnswerReader.answer($0) }
/// ```
package enum AgentAnswerReader {
    /// The answer in `bytes` (a line without its `\n`), or `nil` when `JSONDecoder` must decide.
    package static func answer(_ bytes: UnsafeRawBufferPointer) -> AgentAnswer? {
        var reader = CachedEntryReader.Reader(bytes: bytes.bindMemory(to: UInt8.self))
        var version: Int?
        var ok: Bool?
        var token: AgentAnswer.Token??
        let read = reader.object { reader, key in
            switch key {
            case "v":
                version = reader.integer()
                return version != nil
            case "ok":
                ok = reader.bool()
                return ok != nil
            case "token":
                if reader.null() {
                    token = .some(nil)
                    return true
                }
                guard let read = reader.agentToken() else { return false }
                token = .some(read)
                return true
            default:
                return false
            }
        }
        guard read, reader.atEnd(), let version, let ok else { return nil }
        var answer = AgentAnswer(ok: ok, token: token ?? nil)
        answer.version = version
        return answer
    }
}

extension CachedEntryReader.Reader {
    /// An answer's token (``AgentAnswer/Token``): its keys, each once; any other key, which
    /// `JSONDecoder`'s reading ignores, holds well-formed JSON.
    fileprivate mutating func agentToken() -> AgentAnswer.Token? {
        var accessToken: String?
        var tokenType: String?
        var idToken: String??
        var providerName: String??
        var tokenEndpointHost: String??
        var issuer: String??
        var clientID: String??
        var expiresAt: Double??
        var idTokenExpiresAt: Double??
        var scopes: [String]??
        var claims: AgentAnswer.Token.IDClaims??
        let read = object { reader, key in
            switch key {
            case "access_token":
                accessToken = reader.string()
                return accessToken != nil
            case "token_type":
                tokenType = reader.string()
                return tokenType != nil
            case "id_token":
                idToken = reader.optional { $0.string() }
                return idToken != nil
            case "provider_name":
                providerName = reader.optional { $0.string() }
                return providerName != nil
            case "token_endpoint_host":
                tokenEndpointHost = reader.optional { $0.string() }
                return tokenEndpointHost != nil
            case "issuer":
                issuer = reader.optional { $0.string() }
                return issuer != nil
            case "client_id":
                clientID = reader.optional { $0.string() }
                return clientID != nil
            case "expires_at":
                expiresAt = reader.optional { $0.double() }
                return expiresAt != nil
            case "id_token_expires_at":
                idTokenExpiresAt = reader.optional { $0.double() }
                return idTokenExpiresAt != nil
            case "scopes":
                scopes = reader.optional { $0.strings(depth: 2) }
                return scopes != nil
            case "id_token_claims":
                claims = reader.optional { $0.agentClaims() }
                return claims != nil
            default:
                return reader.skipValue(depth: 2)
            }
        }
        guard read, let accessToken, let tokenType else { return nil }
        return AgentAnswer.Token(
            accessToken: accessToken, tokenType: tokenType, expiresAt: expiresAt ?? nil, idToken: idToken ?? nil,
            idTokenExpiresAt: idTokenExpiresAt ?? nil, providerName: providerName ?? nil,
            tokenEndpointHost: tokenEndpointHost ?? nil, idTokenClaims: claims ?? nil, scopes: scopes ?? nil,
            issuer: issuer ?? nil, clientID: clientID ?? nil)
    }

    /// A token's ID token claims (``AgentAnswer/Token/IDClaims``).
    fileprivate mutating func agentClaims() -> AgentAnswer.Token.IDClaims? {
        var issuer: String?
        var subject: String?
        var audience: [String]?
        var issuedAt: Double?
        let read = object { reader, key in
            switch key {
            case "iss":
                issuer = reader.string()
                return issuer != nil
            case "sub":
                subject = reader.string()
                return subject != nil
            case "aud":
                audience = reader.strings(depth: 3)
                return audience != nil
            case "iat":
                issuedAt = reader.double()
                return issuedAt != nil
            default:
                return reader.skipValue(depth: 3)
            }
        }
        guard read, let issuer, let subject, let audience, let issuedAt else { return nil }
        return AgentAnswer.Token.IDClaims(issuer: issuer, subject: subject, audience: audience, issuedAt: issuedAt)
    }
}
