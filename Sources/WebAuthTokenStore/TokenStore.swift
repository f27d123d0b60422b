// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import WebAuthCore
public import WebAuthOAuth
import WebAuthTokenFiles

/// Where signed-in tokens live between runs, one entry per profile name.
///
/// Two implementations ship: ``FileTokenStore`` (0600 JSON files in a 0700 directory under
/// `$XDG_STATE_HOME`) and ``SecretServiceTokenStore`` (the desktop keyring, through
/// `secret-tool`). ``TokenStoreSelection`` picks one. Every method that changes an entry takes
/// the profile's lock, which excludes other tasks and other processes alike.
///
/// Refresh through ``update(profile:_:)`` so that two processes refreshing at once keep the
/// rotated refresh token: the second one, once it holds the lock, sees what the first one wrote.
///
/// ```swift
/// let store = try await TokenStoreSelection.automatic.makeStore()
/// let current = try await store.update(profile: "default") { stored in
///     guard var stored, stored.tokens.isExpired(margin: .seconds(60)) else { return stored }
///     stored.tokens = try await client.refresh(stored.tokens)  // the rotated refresh token
///     return stored
/// }
/// ```
///
/// For signed-in profiles, ``TokenStores`` does this and more — which store holds a profile,
/// the fallback from the keyring to files, an `AccessTokenProvider` that refreshes under the
/// lock — and keeps them where the `webauth` tool does.
///
/// Store failures are ``TokenStoreError``s; their messages never contain a token.
public protocol TokenStore: Sendable {
    /// Which kind of store this is, for `webauth status`.
    var kind: TokenStoreKind { get }

    /// Where the entries live, for people: a directory path, or the keyring and its attributes.
    var location: String { get }

    /// The entry stored under `profile`, or `nil` when there is none.
    func load(profile: String) async throws -> StoredTokens?

    /// Stores `tokens` under `profile`, replacing any entry, under the profile's lock.
    func save(_ tokens: StoredTokens, profile: String) async throws

    /// Removes the entry under `profile`, under the profile's lock. Returns whether there was one.
    @discardableResult
    func delete(profile: String) async throws -> Bool

    /// The names of the profiles that have an entry, sorted.
    func profiles() async throws -> [String]

    /// Reads, changes and writes the entry under `profile` while holding the profile's lock, so
    /// no other task or process reads or writes it in between.
    ///
    /// - Parameters:
    ///   - profile: The profile name (see ``ProfileName``).
    ///   - body: Given the current entry (or `nil`), returns the new one; returning `nil` removes
    ///     the entry, returning the argument unchanged writes nothing. An error thrown by `body`
    ///     leaves the entry as it was and is rethrown.
    /// - Returns: What `body` returned.
    @discardableResult
    func update(
        profile: String, _ body: (StoredTokens?) async throws -> StoredTokens?
    ) async throws -> StoredTokens?
}

/// The kinds of ``TokenStore``.
public enum TokenStoreKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// 0600 files in a 0700 directory: ``FileTokenStore``.
    case file
    /// The desktop keyring over D-Bus (Secret Service): ``SecretServiceTokenStore``.
    case keyring

    /// `file` or `keyring`, as `--store` spells it.
    public var description: String { rawValue }
}

/// What a ``TokenStore`` keeps per profile: the tokens, who issued them to which client, and —
/// when saved with ``init(tokens:configuration:savedAt:)`` — the whole client configuration, so
/// later runs can refresh and revoke without being told the provider and client again
/// (`webauth token`, `webauth logout`).
///
/// Encoded as JSON with a ``version`` field; dates are ISO 8601. Printing it never shows a token
/// or the client secret.
///
/// The ``configuration`` includes the client secret of a confidential client. It is stored with
/// the tokens it guards — in a 0600 file in a 0700 directory, or in the keyring — and anyone who
/// can read the entry can already use its refresh token, so keeping the secret there adds no
/// exposure. Entries written before ``configuration`` existed decode with it `nil`; they can be
/// shown and deleted, but refreshing them needs a new sign-in.
///
/// ```swift
/// let stored = StoredTokens(tokens: tokenSet, configuration: configuration)
/// try await store.save(stored, profile: "work")
/// let client = try OAuthClient(configuration: try #require(stored.configuration))
/// ```
public struct StoredTokens: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The format version written by this code.
    public static let currentVersion = TokenEntryFormat.version

    /// The format version this entry was written with.
    public var version: Int
    /// The tokens.
    public var tokens: TokenSet
    /// The provider's issuer identifier, when the configuration names one.
    public var issuer: String?
    /// The token endpoint the tokens came from, when known: with ``clientID``, what identifies
    /// the client for a refresh.
    public var tokenEndpoint: String?
    /// The client identifier the tokens were issued to.
    public var clientID: String
    /// When the entry was last written.
    public var savedAt: Date
    /// The client configuration the tokens were obtained with (secret included, see above), for
    /// refreshing and revoking later; `nil` in entries written without one.
    public var configuration: ClientConfiguration?
    /// The client's dynamic registration (RFC 7591), when the profile registered its own client:
    /// its client ID, any client secret and — where the provider offers RFC 7592 — the
    /// registration access token and URI that delete it (`webauth logout --unregister`). Kept
    /// with the tokens for the reason the client secret is (see above); `nil` otherwise.
    public var registration: ClientRegistration?
    /// The tokens ``tokens``' access token was exchanged for (RFC 8693), at most one per
    /// target, kept until they expire (see ``keep(_:now:)``); `webauth token --audience` prints
    /// them again.
    public var exchangedTokens: [StoredExchange]

    /// Creates an entry.
    public init(
        tokens: TokenSet, clientID: String, issuer: String? = nil, tokenEndpoint: String? = nil,
        savedAt: Date = Date(), configuration: ClientConfiguration? = nil, exchangedTokens: [StoredExchange] = []
    ) {
        self.version = Self.currentVersion
        self.tokens = tokens
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.savedAt = savedAt
        self.configuration = configuration
        self.registration = nil
        self.exchangedTokens = exchangedTokens
    }

    /// Creates an entry for tokens issued to the client `configuration` describes, keeping the
    /// configuration (its client secret included) in ``configuration`` so the tokens can be
    /// refreshed and revoked later. ``issuer``, ``tokenEndpoint`` and ``clientID`` come from it.
    public init(tokens: TokenSet, configuration: ClientConfiguration, savedAt: Date = Date()) {
        self.init(
            tokens: tokens, clientID: configuration.clientID, issuer: configuration.issuer?.absoluteString,
            tokenEndpoint: configuration.endpoints.token?.absoluteString, savedAt: savedAt,
            configuration: configuration)
    }

    /// The entry's keys (``TokenEntryFormat``), shared with the fast path's reader.
    private typealias CodingKeys = TokenEntryFormat.EntryKey

    /// Decodes an entry; one written without exchanged tokens has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        tokens = try container.decode(TokenSet.self, forKey: .tokens)
        issuer = try container.decodeIfPresent(String.self, forKey: .issuer)
        tokenEndpoint = try container.decodeIfPresent(String.self, forKey: .tokenEndpoint)
        clientID = try container.decode(String.self, forKey: .clientID)
        savedAt = try container.decode(Date.self, forKey: .savedAt)
        configuration = try container.decodeIfPresent(ClientConfiguration.self, forKey: .configuration)
        registration = try container.decodeIfPresent(ClientRegistration.self, forKey: .registration)
        exchangedTokens = try container.decodeIfPresent([StoredExchange].self, forKey: .exchangedTokens) ?? []
    }

    /// Encodes the entry, writing ``exchangedTokens`` only when there is one: an entry without
    /// them reads the same as before they existed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(tokens, forKey: .tokens)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encodeIfPresent(tokenEndpoint, forKey: .tokenEndpoint)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(savedAt, forKey: .savedAt)
        try container.encodeIfPresent(configuration, forKey: .configuration)
        try container.encodeIfPresent(registration, forKey: .registration)
        if !exchangedTokens.isEmpty { try container.encode(exchangedTokens, forKey: .exchangedTokens) }
    }

    /// A summary with no token values.
    public var description: String {
        var parts = ["client \(clientID)"]
        if let issuer { parts.append("issuer \(issuer)") }
        parts.append(tokens.description)
        return "StoredTokens(" + parts.joined(separator: ", ") + ")"
    }

    /// Encodes the entry as compact JSON (no newlines, so it can go through a line-based tool).
    package func encoded() throws(TokenStoreError) -> Data {
        do {
            return try TokenEntryFormat.encoder().encode(self)
        } catch {
            throw TokenStoreError(.encodingFailed, "the token entry could not be encoded")
        }
    }

    /// Decodes an entry; `profile` and `location` (the file, or the keyring item) name it in
    /// the error. An entry whose access token, token type or ID token holds a character outside
    /// RFC 6749's `%x20-7E` (``TokenCharacters``) is refused as corrupt: whatever a store holds
    /// is checked again before it reaches a terminal or another program.
    package static func decode(_ data: Data, profile: String, location: String) throws(TokenStoreError)
        -> StoredTokens
    {
        let entry: StoredTokens
        do {
            entry = try TokenEntryFormat.decoder().decode(StoredTokens.self, from: data)
        } catch {
            // The decoder's message can quote the input: say only where it broke.
            throw TokenStoreError(
                .corrupt,
                "the stored entry for profile \"\(profile)\" is unreadable: \(location) is not a valid entry "
                    + "(\(data.count) bytes)")
        }
        // Checked again, whichever store it came from: the tokens are printed and handed on.
        guard
            TokenCharacters.areAllowed(
                accessToken: entry.tokens.accessToken, tokenType: entry.tokens.tokenType,
                idToken: entry.tokens.idToken)
        else {
            throw TokenStoreError(
                .corrupt,
                "the stored entry for profile \"\(profile)\" is unusable: a token in \(location) holds characters "
                    + "RFC 6749 does not allow")
        }
        return entry
    }
}
