// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthCore
public import WebAuthOAuth
import WebAuthTokenFiles

/// What a profile's access token is exchanged for (RFC 8693): an audience, a resource, or both,
/// and the scopes asked for. Two targets are the same when these are, whatever order the scopes
/// were given in.
///
/// ```swift
/// let target = ExchangeTarget(audience: "https://api.example.com", scopes: ["read"])
/// let tokens = try await TokenStores().freshTokens(profile: "work", exchangedFor: target)
/// ```
public struct ExchangeTarget: Sendable, Hashable, CustomStringConvertible {
    /// The `audience` parameter: where the new token is to be used, as the provider names it.
    public let audience: String?
    /// The `resource` parameter: where the new token is to be used, as an absolute URI.
    public let resource: URL?
    /// The scopes asked for, sorted, without repeats; none asks for what the provider decides.
    public let scopes: [String]

    /// A target; at least one of `audience` and `resource` should be given.
    public init(audience: String? = nil, resource: URL? = nil, scopes: [String] = []) {
        self.audience = audience
        self.resource = resource
        self.scopes = Set(scopes).sorted()
    }

    /// The target as a person would name it, such as `audience deploy, scopes read`, safe to
    /// print (see `UntrustedText`).
    public var description: String {
        var parts: [String] = []
        if let audience { parts.append("audience \(audience)") }
        if let resource { parts.append("resource \(resource.absoluteString)") }
        if !scopes.isEmpty { parts.append("scopes \(scopes.joined(separator: " "))") }
        return UntrustedText(parts.isEmpty ? "no target" : parts.joined(separator: ", ")).displayed(limit: 300)
    }
}

/// A token a profile's access token was exchanged for, kept in the profile's entry
/// (``StoredTokens/exchangedTokens``) until it expires, so that asking again for the same
/// ``target`` needs no request.
public struct StoredExchange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the token was asked for.
    public var target: ExchangeTarget
    /// The issued token (in `accessToken`), its type, expiry and scopes.
    public var tokens: TokenSet
    /// `issued_token_type`: what kind of token was issued.
    public var issuedTokenType: TokenTypeIdentifier

    /// An exchanged token for `target`.
    public init(target: ExchangeTarget, tokens: TokenSet, issuedTokenType: TokenTypeIdentifier) {
        self.target = target
        self.tokens = tokens
        self.issuedTokenType = issuedTokenType
    }

    /// The most exchanged tokens an entry keeps; asking for another target drops the oldest.
    public static let limitPerProfile = 16

    /// A summary with no token value.
    public var description: String { "StoredExchange(\(target), \(tokens.description))" }

    private typealias CodingKeys = TokenEntryFormat.ExchangeKey

    /// Decodes one exchanged token of an entry.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let resource = try container.decodeIfPresent(String.self, forKey: .resource)
        target = ExchangeTarget(
            audience: try container.decodeIfPresent(String.self, forKey: .audience),
            resource: try resource.map { text in
                guard let url = URL(string: text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .resource, in: container, debugDescription: "not a URI")
                }
                return url
            },
            scopes: try container.decode([String].self, forKey: .scopes))
        tokens = try container.decode(TokenSet.self, forKey: .tokens)
        issuedTokenType = try container.decode(TokenTypeIdentifier.self, forKey: .issuedTokenType)
    }

    /// Encodes it as one of an entry's exchanged tokens.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(target.audience, forKey: .audience)
        try container.encodeIfPresent(target.resource?.absoluteString, forKey: .resource)
        try container.encode(target.scopes, forKey: .scopes)
        try container.encode(tokens, forKey: .tokens)
        try container.encode(issuedTokenType, forKey: .issuedTokenType)
    }
}

extension StoredTokens {
    /// The exchanged token kept for `target`, if it is valid for more than `minimumValidity`
    /// after `now`.
    public func exchangedToken(
        for target: ExchangeTarget, now: Date = Date(), minimumValidity: Duration = .seconds(60)
    ) -> StoredExchange? {
        exchangedTokens.first { $0.target == target && !$0.tokens.isExpired(at: now, margin: minimumValidity) }
    }

    /// Keeps `exchange` in place of any token for its target, drops the expired ones, and keeps
    /// at most ``StoredExchange/limitPerProfile``, the newest.
    public mutating func keep(_ exchange: StoredExchange, now: Date = Date()) {
        var kept = exchangedTokens.filter { $0.target != exchange.target && !$0.tokens.isExpired(at: now) }
        kept.append(exchange)
        exchangedTokens = Array(
            kept.sorted { $0.tokens.receivedAt < $1.tokens.receivedAt }.suffix(StoredExchange.limitPerProfile))
    }
}
