// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import JWTKit
import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The provider's JSON Web Key Set, fetched on first use and kept for a day at most; fetched
/// again once when a token names a key it does not have (the provider rotated its keys).
/// Callers that need the set while a fetch is under way share that fetch.
///
/// A sign-in fetches the set ahead (``prefetch()``) while the person is in the browser, so that
/// only the token request stands between the callback and the result. The first key lookup
/// takes what that fetch brought; a prefetch that failed or was cancelled is forgotten and the
/// set is fetched again as if none had been made.
actor JWKSCache {
    /// How long a fetched set is trusted: a key the provider withdraws stops being accepted
    /// after this, even in a long-lived client.
    static let maximumAge: Duration = .seconds(86_400)

    private let url: URL
    private let client: EndpointClient
    private var keys: [SigningKey]?
    private var fetchedAt: ContinuousClock.Instant?
    private var fetching: Task<[SigningKey], any Error>?
    /// A fetch made ahead of need, until a lookup takes its result.
    private var prefetching: Task<[SigningKey], any Error>?

    init(url: URL, client: EndpointClient) {
        self.url = url
        self.client = client
    }

    /// The key for a token with this `kid` (or none) and `alg`: from the cached set, else from
    /// one fresh fetch. `nil` when neither has it.
    func key(kid: String?, algorithm: String) async throws(OAuthError) -> JWK? {
        if let prefetched = prefetching {
            let fresh = try? await prefetched.value
            if prefetching == prefetched {
                prefetching = nil
                if let fresh {
                    keys = fresh
                    fetchedAt = .now
                }
            }
        }
        if let fetchedAt, ContinuousClock.now - fetchedAt > Self.maximumAge { keys = nil }
        if let keys, let key = Self.select(from: keys, kid: kid, algorithm: algorithm) { return key }
        // A token with no kid can only name "the single key"; a fetch will not change what
        // that means unless nothing was fetched yet.
        if keys != nil, kid == nil { return nil }
        let fresh = try await sharedFetch()
        return Self.select(from: fresh, kid: kid, algorithm: algorithm)
    }

    /// Starts fetching the set now, unless a fresh one is cached or a fetch is under way.
    ///
    /// - Returns: The fetch, for the caller to cancel once the set can no longer be needed
    ///   (the sign-in ended); `nil` when none was started.
    func prefetch() -> Task<[SigningKey], any Error>? {
        if let fetchedAt, keys != nil, ContinuousClock.now - fetchedAt <= Self.maximumAge { return nil }
        guard fetching == nil, prefetching == nil else { return nil }
        let task = Task { try await self.fetch() }
        prefetching = task
        return task
    }

    /// The fetch under way, or a new one; its result replaces the cached set.
    private func sharedFetch() async throws(OAuthError) -> [SigningKey] {
        let task: Task<[SigningKey], any Error>
        if let fetching {
            task = fetching
        } else {
            task = Task { try await self.fetch() }
            fetching = task
        }
        do {
            let fresh = try await task.value
            if fetching == task {
                fetching = nil
                keys = fresh
                fetchedAt = .now
            }
            return fresh
        } catch {
            if fetching == task { fetching = nil }
            throw error as? OAuthError ?? OAuthError(code: .transportFailed, message: "the JWKS could not be fetched")
        }
    }

    private func fetch() async throws(OAuthError) -> [SigningKey] {
        struct KeySet: Decodable {
            var keys: [LenientKey]
        }
        // One malformed or unsupported key must not make the others unusable.
        struct LenientKey: Decodable {
            var key: SigningKey?
            init(from decoder: any Decoder) throws {
                struct Use: Decodable { var use: String? }
                key = (try? JWK(from: decoder)).map { SigningKey(jwk: $0, use: (try? Use(from: decoder))?.use) }
            }
        }
        let set: KeySet = try await client.getJSON(url, endpoint: .jwks)
        return set.keys.compactMap(\.key)
    }

    /// A key from the set with its `use` member, which jwt-kit's `JWK` does not model.
    struct SigningKey: Sendable {
        var jwk: JWK
        var use: String?
    }

    /// The signing key for `kid`/`algorithm`: the key type must fit the algorithm, its `alg`
    /// (if given) must be the algorithm, and its `use` (if given) must be `sig`. Without a
    /// `kid`, only a set with exactly one such key names one.
    static func select(from keys: [SigningKey], kid: String?, algorithm: String) -> JWK? {
        let candidates = keys.filter { key in
            guard key.jwk.keyType == keyType(for: algorithm) else { return false }
            if let keyAlgorithm = key.jwk.algorithm, keyAlgorithm.rawValue != algorithm { return false }
            if let use = key.use, use != "sig" { return false }
            if algorithm == "ES256", key.jwk.curve != .ecdsa(.p256) { return false }
            return true
        }.map(\.jwk)
        if let kid {
            return candidates.first { $0.keyIdentifier?.string == kid }
        }
        return candidates.count == 1 ? candidates[0] : nil
    }

    static func keyType(for algorithm: String) -> JWK.KeyType {
        algorithm.hasPrefix("ES") ? .ecdsa : algorithm.hasPrefix("Ed") ? .octetKeyPair : .rsa
    }
}
