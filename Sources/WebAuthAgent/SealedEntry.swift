import Foundation
import WebAuthPlatform
import WebAuthTokenFiles
import WebAuthTokenStore

/// A held profile's entry, kept as its encoded bytes in memory of its own that is locked
/// (`mlock`, best effort: the system may limit locked memory) so that it is not swapped out,
/// and overwritten with zeros before it is given back. This is the long-lived copy of the
/// tokens; the decoded values a request or a refresh works with live only while it runs.
final class SealedEntry: Sendable {
    // Written only in `init` and `deinit` (which no other reference can see); read-only between.
    nonisolated(unsafe) private let buffer: UnsafeMutableRawBufferPointer
    private let count: Int
    /// Whether the memory is locked.
    let isLocked: Bool

    /// Seals `entry`; `nil` when it cannot be encoded.
    init?(_ entry: StoredTokens) {
        guard let data = try? TokenEntryFormat.encoder().encode(entry) else { return nil }
        count = data.count
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        isLocked = SecretMemory.lock(UnsafeRawBufferPointer(buffer))
        data.withUnsafeBytes { buffer.copyMemory(from: $0) }
    }

    /// The entry, decoded.
    var entry: StoredTokens? {
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count])
        let data = Data(
            bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: count, deallocator: .none)
        return try? TokenEntryFormat.decoder().decode(StoredTokens.self, from: data)
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        if isLocked { SecretMemory.unlock(UnsafeRawBufferPointer(buffer)) }
        buffer.deallocate()
    }
}
