// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The reading of the profile index with `JSONDecoder`, which defines the indexes
/// ``ProfileIndexReader`` may take: here, beside the store, and not in the fast path's program.
extension ProfileIndexFormat {
    /// The contents of the index in `data`; `nil` when the bytes are not an index (not JSON of
    /// that shape, no `version`, or a store kind other than ``storeKinds``). ``ProfileIndexReader``
    /// reads it first, without `JSONDecoder`; what it leaves goes to ``decodedWithFoundation(_:)``,
    /// so the result is that reading's either way.
    package static func contents(decoding data: Data) -> Contents? {
        guard let contents = data.withUnsafeBytes({ ProfileIndexReader.contents($0) }) ?? decodedWithFoundation(data),
            contents.profiles.values.allSatisfy(storeKinds.contains)
        else { return nil }
        return contents
    }

    /// The contents `JSONDecoder` reads from `data`, before the store kinds are checked; `nil`
    /// when it reads none.
    package static func decodedWithFoundation(_ data: Data) -> Contents? {
        try? JSONDecoder().decode(Contents.self, from: data)
    }

    /// The store kind of each profile in `data`; `nil` when the bytes are not an index (see
    /// ``contents(decoding:)``).
    package static func storeKinds(decoding data: Data) -> [String: String]? {
        contents(decoding: data)?.profiles
    }

    /// The bindings of `profile` in `data`: empty when the index records none, or is not an
    /// index.
    package static func bindings(of profile: String, decoding data: Data) -> Bindings {
        contents(decoding: data)?.bindings?[profile] ?? Bindings()
    }
}
