// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The first reader of the profile index, for the same reason and on the same terms as
/// ``CachedEntryReader``: plain code over bytes, answering only when it is sure that
/// `JSONDecoder`'s reading of ``ProfileIndexFormat/Contents`` would give the same contents, and
/// otherwise `nil`, leaving the bytes to `JSONDecoder`.
///
/// It takes the index as the store writes it: `version` as plain digits, `profiles` an object
/// of strings, `bindings` absent, `null` or an object of objects with `gitHosts`; any other key
/// (which `JSONDecoder`'s reading ignores) holds well-formed JSON. A key given twice, a number
/// written otherwise, nesting deeper than 32 or anything it does not accept is `nil`.
/// `FuzzCachedEntryReader` checks it against `JSONDecoder`'s reading.
///
/// ```swift
/// let contents = bytes.withUnsafeBytes { ProfileIndexReader.contents($0) }
/// ```
package enum ProfileIndexReader {
    /// An index as read, each of its objects as an array in the order written (each key once,
    /// as the reader takes an object): no `Dictionary` made, which the fast path avoids (see
    /// ``ProfileIndexFormat/storeKind(of:reading:)``).
    package struct Entries: Sendable {
        /// `version`.
        package var version: Int
        /// `profiles`: each profile's store kind.
        package var profiles: [(name: String, store: String)]
        /// `bindings`: each profile's bindings; `nil` when absent or `null`.
        package var bindings: [(name: String, bindings: ProfileIndexFormat.Bindings)]?
    }

    /// The index's contents in `bytes`, or `nil` when `JSONDecoder` must decide.
    package static func contents(_ bytes: UnsafeRawBufferPointer) -> ProfileIndexFormat.Contents? {
        guard let entries = entries(bytes) else { return nil }
        var contents = ProfileIndexFormat.Contents()
        contents.version = entries.version
        contents.profiles = Dictionary(uniqueKeysWithValues: entries.profiles.map { ($0.name, $0.store) })
        contents.bindings = entries.bindings.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.name, $0.bindings) }) }
        return contents
    }

    /// The index in `bytes` as ``contents(_:)`` reads it, its objects as arrays; `nil` where
    /// that is `nil`.
    package static func entries(_ bytes: UnsafeRawBufferPointer) -> Entries? {
        var reader = CachedEntryReader.Reader(bytes: bytes.bindMemory(to: UInt8.self))
        var version: Int?
        var profiles: [(name: String, store: String)]?
        var bindings: [(name: String, bindings: ProfileIndexFormat.Bindings)]??
        let read = reader.object { reader, key in
            switch key {
            case "version":
                version = reader.integer()
                return version != nil
            case "profiles":
                var kinds: [(name: String, store: String)] = []
                let read = reader.object { reader, profile in
                    guard let kind = reader.string() else { return false }
                    kinds.append((profile, kind))
                    return true
                }
                profiles = kinds
                return read
            case "bindings":
                if reader.null() {
                    bindings = .some(nil)
                    return true
                }
                var all: [(name: String, bindings: ProfileIndexFormat.Bindings)] = []
                let read = reader.object { reader, profile in
                    guard let hosts = reader.gitHosts(depth: 2) else { return false }
                    all.append((profile, ProfileIndexFormat.Bindings(gitHosts: hosts)))
                    return true
                }
                bindings = .some(all)
                return read
            default:
                return reader.skipValue(depth: 1)
            }
        }
        guard read, reader.atEnd(), let version, let profiles else { return nil }
        return Entries(version: version, profiles: profiles, bindings: bindings ?? nil)
    }
}

extension CachedEntryReader.Reader {
    /// A profile's bindings: an object with `gitHosts`, an array of strings (other keys, which
    /// `JSONDecoder`'s reading ignores, must hold well-formed JSON).
    mutating func gitHosts(depth: Int) -> [String]? {
        guard depth < Self.maximumDepth else { return nil }
        var hosts: [String]?
        let read = object { reader, key in
            guard key == "gitHosts" else { return reader.skipValue(depth: depth + 1) }
            hosts = reader.strings(depth: depth + 1)
            return hosts != nil
        }
        return read ? hosts : nil
    }
}
