// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

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

    /// Whether `kind` is one of ``storeKinds``, asked without the set (the fast path makes no
    /// `Set` or `Dictionary` of strings: see ``storeKind(of:reading:)``).
    package static func isStoreKind(_ kind: String) -> Bool {
        kind == "file" || kind == "keyring"
    }

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

    /// The contents of the index in `bytes` as ``ProfileIndexReader`` reads them, the fast
    /// path's reading: `nil` when the bytes are not an index (see `contents(decoding:)`, the
    /// token store's reading), and also when the reader leaves them to `JSONDecoder`.
    package static func contents(reading bytes: [UInt8]) -> Contents? {
        guard let contents = bytes.withUnsafeBytes({ ProfileIndexReader.contents($0) }),
            contents.profiles.values.allSatisfy(isStoreKind)
        else { return nil }
        return contents
    }

    /// `profile`'s store kind in the index in `bytes`: what `contents(reading: bytes)?.profiles[profile]`
    /// gives, read without making its dictionaries. The first `Set` or `Dictionary` of strings
    /// a program makes costs the Swift runtime a walk over every protocol conformance in the
    /// binary (`String: Hashable`), which the fast path does not pay.
    package static func storeKind(of profile: String, reading bytes: [UInt8]) -> String? {
        record(of: profile, reading: bytes)?.kind
    }

    /// `profile`'s bindings in the index in `bytes`: what `contents(reading: bytes)?.bindings?[profile]`
    /// gives, read without making its dictionaries (see ``storeKind(of:reading:)``).
    package static func bindings(of profile: String, reading bytes: [UInt8]) -> Bindings? {
        record(of: profile, reading: bytes)?.bindings
    }

    /// What the index records of one profile.
    private struct ProfileRecord {
        var kind: String?
        var bindings: Bindings?
    }

    /// What the index in `bytes` records of `profile`, read with callbacks rather than into
    /// dictionaries; `nil` when `contents(reading: bytes)` is `nil`.
    private static func record(of profile: String, reading bytes: [UInt8]) -> ProfileRecord? {
        var record = ProfileRecord()
        var allKnown = true
        let read = bytes.withUnsafeBytes { bytes in
            ProfileIndexReader.read(
                bytes,
                profile: { name, store in
                    if !isStoreKind(store) { allKnown = false }
                    if name == profile { record.kind = store }
                },
                bindings: { name, bindings in if name == profile { record.bindings = bindings } })
        }
        guard read != nil, allKnown else { return nil }
        return record
    }
}
