import WebAuthTokenFiles

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds a profile's entry in the file store exactly where, and only when, the token store would
/// read it with nothing else to do: `--store file`, or `automatic` with the profile index naming
/// the file store; the token directory already there and 0700, this user's, not a link; the entry
/// a trusted file (see ``TokenFileLayout``) that ``CachedEntry`` reads. Each other case — the
/// keyring, an index that does not know the profile (the store would look and record it), a
/// directory it would create or repair, a missing, unsafe or unknown entry — is `nil`, for the
/// full program to handle and report.
package struct CachedTokenLookup: Sendable {
    /// Where the files are.
    package let layout: TokenFileLayout

    /// The largest entry read; a bigger one is left to the full program.
    package static let maximumEntrySize = 1024 * 1024

    /// A lookup in `layout`.
    package init(layout: TokenFileLayout) {
        self.layout = layout
    }

    /// The entry of `profile` for `--store store` (`automatic`, `file` or `keyring`), or `nil`.
    package func entry(profile: String, store: String) -> CachedEntry? {
        switch store {
        case "file":
            break
        case "automatic":
            guard let index = Self.readFile(layout.indexPath, limit: Self.maximumEntrySize, trusted: nil),
                ProfileIndexFormat.storeKinds(decoding: Data(index))?[profile] == "file"
            else { return nil }
        default:
            return nil
        }
        let directory = layout.tokenDirectory
        var info = stat()
        guard directory.hasPrefix("/"), lstat(directory, &info) == 0, TokenFileLayout.isReadyTokenDirectory(info),
            let bytes = Self.readFile(
                layout.entryPath(profile: profile), limit: Self.maximumEntrySize,
                trusted: TokenFileLayout.isTrustedEntry)
        else { return nil }
        return CachedEntry(decoding: Data(bytes))
    }

    /// The whole file at `path`, opened without following a final link, if it is at most
    /// `limit` bytes and (when `trusted` is given) its `fstat` passes `trusted`.
    static func readFile(_ path: String, limit: Int, trusted: ((stat) -> Bool)?) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (trusted == nil ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if let trusted {
            var info = stat()
            guard fstat(descriptor, &info) == 0, trusted(info) else { return nil }
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                return nil
            }
        }
        return nil
    }
}
