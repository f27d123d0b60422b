#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The profile index file's format (`{"profiles":{"default":"file","work":"keyring"},"version":1}`):
/// how its bytes are read, by the token store's `ProfileIndex` and by the cached-token fast path
/// alike.
package enum ProfileIndexFormat {
    /// The store kinds an index names: `file` and `keyring`.
    package static let storeKinds: Set<String> = ["file", "keyring"]

    /// The store kind of each profile in `data`; `nil` when the bytes are not an index (not
    /// JSON of that shape, no `version`, or a store kind other than ``storeKinds``).
    package static func storeKinds(decoding data: Data) -> [String: String]? {
        struct Contents: Decodable {
            var version: Int
            var profiles: [String: String]
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: data),
            contents.profiles.values.allSatisfy(storeKinds.contains)
        else { return nil }
        return contents.profiles
    }
}
