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
    /// The index's contents in `bytes`, or `nil` when `JSONDecoder` must decide.
    package static func contents(_ bytes: UnsafeRawBufferPointer) -> ProfileIndexFormat.Contents? {
        var profiles: [String: String] = [:]
        var bindings: [String: ProfileIndexFormat.Bindings] = [:]
        guard
            let read = read(
                bytes, profile: { profiles[$0] = $1 }, bindings: { bindings[$0] = $1 })
        else { return nil }
        var contents = ProfileIndexFormat.Contents()
        contents.version = read.version
        contents.profiles = profiles
        contents.bindings = read.hasBindings ? bindings : nil
        return contents
    }

    /// Reads the index in `bytes` as ``contents(_:)`` does, handing each profile's store kind
    /// to `profile` and each profile's bindings to `bindings` in the order written (each key
    /// once, as the reader takes an object) rather than gathering them into dictionaries, which
    /// the fast path does not make (see ``ProfileIndexFormat/storeKind(of:reading:)``). The
    /// version, and whether `bindings` is there (not absent or `null`); `nil` where
    /// ``contents(_:)`` is `nil`, after handing over what came before the fault.
    package static func read(
        _ bytes: UnsafeRawBufferPointer, profile: (String, String) -> Void,
        bindings: (String, ProfileIndexFormat.Bindings) -> Void
    ) -> (version: Int, hasBindings: Bool)? {
        var reader = CachedEntryReader.Reader(bytes: bytes.bindMemory(to: UInt8.self))
        var version: Int?
        var hasProfiles = false
        var hasBindings = false
        let read = reader.object { reader, key in
            switch key {
            case "version":
                version = reader.integer()
                return version != nil
            case "profiles":
                hasProfiles = true
                return reader.object { reader, name in
                    guard let kind = reader.string() else { return false }
                    profile(name, kind)
                    return true
                }
            case "bindings":
                if reader.null() { return true }
                hasBindings = true
                return reader.object { reader, name in
                    guard let hosts = reader.gitHosts(depth: 2) else { return false }
                    bindings(name, ProfileIndexFormat.Bindings(gitHosts: hosts))
                    return true
                }
            default:
                return reader.skipValue(depth: 1)
            }
        }
        guard read, reader.atEnd(), let version, hasProfiles else { return nil }
        return (version, hasBindings)
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
