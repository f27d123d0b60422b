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
        var reader = CachedEntryReader.Reader(bytes: bytes.bindMemory(to: UInt8.self))
        var version: Int?
        var profiles: [String: String]?
        var bindings: [String: ProfileIndexFormat.Bindings]??
        let read = reader.object { reader, key in
            switch key {
            case "version":
                version = reader.integer()
                return version != nil
            case "profiles":
                var kinds: [String: String] = [:]
                let read = reader.object { reader, profile in
                    guard let kind = reader.string() else { return false }
                    kinds[profile] = kind
                    return true
                }
                profiles = kinds
                return read
            case "bindings":
                if reader.null() {
                    bindings = .some(nil)
                    return true
                }
                var all: [String: ProfileIndexFormat.Bindings] = [:]
                let read = reader.object { reader, profile in
                    guard let hosts = reader.gitHosts(depth: 2) else { return false }
                    all[profile] = ProfileIndexFormat.Bindings(gitHosts: hosts)
                    return true
                }
                bindings = .some(all)
                return read
            default:
                return reader.skipValue(depth: 1)
            }
        }
        guard read, reader.atEnd(), let version, let profiles else { return nil }
        var contents = ProfileIndexFormat.Contents()
        contents.version = version
        contents.profiles = profiles
        contents.bindings = bindings ?? nil
        return contents
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
