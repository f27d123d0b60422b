// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The profile index file's format: how its bytes are read, by the token store's `ProfileIndex`
/// and by the cached-token fast path alike.
///
/// ```json
/// {"bindings":{"work":{"gitHosts":["github.com"]}},"profiles":{"default":"file","work":"keyring"},"version":1}
/// ```
///
/// `profiles` names each profile's store; `bindings` (absent when empty) records where each
/// profile's helpers may send its token (see ``Bindings``).
package enum ProfileIndexFormat {
    /// The store kinds an index names: `file` and `keyring`.
    package static let storeKinds: Set<String> = ["file", "keyring"]

    /// What the index records about where a profile's token may go through the credential
    /// helpers: the hosts `webauth git-credential setup` was run for with the profile.
    package struct Bindings: Sendable, Hashable, Codable {
        /// The git hosts (`host` or `host:port`, in lower case) the profile answers for.
        package var gitHosts: [String]

        /// Bindings with `gitHosts`.
        package init(gitHosts: [String] = []) {
            self.gitHosts = gitHosts
        }

        /// Whether nothing is recorded.
        package var isEmpty: Bool { gitHosts.isEmpty }
    }

    /// The contents of an index.
    package struct Contents: Sendable, Hashable, Codable {
        /// The format's version: 1.
        package var version = 1
        /// Each profile's store kind.
        package var profiles: [String: String] = [:]
        /// Each profile's bindings; `nil` when none is recorded (and then not written).
        package var bindings: [String: Bindings]?

        /// Empty contents.
        package init() {}
    }

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
