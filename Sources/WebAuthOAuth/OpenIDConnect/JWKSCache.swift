import Foundation
import JWTKit

/// The provider's JSON Web Key Set, fetched on first use and kept; fetched again once when a
/// token names a key it does not have (the provider rotated its keys).
actor JWKSCache {
    private let url: URL
    private let client: EndpointClient
    private var keys: [SigningKey]?
    /// How many times the set was fetched, for logs and tests.
    private(set) var fetchCount = 0

    init(url: URL, client: EndpointClient) {
        self.url = url
        self.client = client
    }

    /// The key for a token with this `kid` (or none) and `alg`: from the cached set, else from
    /// one fresh fetch. `nil` when neither has it.
    func key(kid: String?, algorithm: String) async throws(OAuthError) -> JWK? {
        if let keys, let key = Self.select(from: keys, kid: kid, algorithm: algorithm) { return key }
        // A token with no kid can only name "the single key"; a fetch will not change what
        // that means unless nothing was fetched yet.
        if keys != nil, kid == nil { return nil }
        let fresh = try await fetch()
        return Self.select(from: fresh, kid: kid, algorithm: algorithm)
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
        fetchCount += 1
        let set: KeySet = try await client.getJSON(url, endpoint: .jwks)
        let keys = set.keys.compactMap(\.key)
        self.keys = keys
        return keys
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
