// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform
import WebAuthTokenFiles
import WebAuthTokenStore

/// Secret bytes the agent holds for long — a held profile's encoded entry, the answer line that
/// hands out its access token — kept in memory of their own that is locked (`mlock`, best
/// effort: the system may limit locked memory) so that it is not swapped out, and overwritten
/// with zeros before it is given back. Copies taken from it live only while a request or a
/// refresh runs.
final class SealedBytes: Sendable {
    // Written only in `init` and `deinit` (which no other reference can see); read-only between.
    nonisolated(unsafe) private let buffer: UnsafeMutableRawBufferPointer
    private let count: Int
    /// Whether the memory is locked.
    let isLocked: Bool

    /// Seals a copy of `bytes`.
    init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        isLocked = SecretMemory.lock(UnsafeRawBufferPointer(buffer))
        buffer.copyBytes(from: bytes)
    }

    /// A copy of the bytes.
    var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<count]))
    }

    deinit {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        if isLocked { SecretMemory.unlock(UnsafeRawBufferPointer(buffer)) }
        buffer.deallocate()
    }
}

extension SealedBytes {
    /// Seals `entry` in the token store's entry format; `nil` when it cannot be encoded.
    convenience init?(sealing entry: StoredTokens) {
        guard let encoded = try? TokenEntryFormat.encoder().encode(entry) else { return nil }
        self.init(encoded)
    }

    /// The sealed entry, decoded; `nil` when the bytes are not one.
    var entry: StoredTokens? {
        try? TokenEntryFormat.decoder().decode(StoredTokens.self, from: Data(bytes))
    }
}
