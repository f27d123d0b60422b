// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import WebAuthPlatform

/// The one way the stores' small files (the profile index, a cached entry in the fast path) are
/// read: opened without following a final link and without waiting (`O_NOFOLLOW | O_NONBLOCK`,
/// so a FIFO or a device at the path never hangs the read, nor a link redirects it), checked
/// with `fstat`, and only then read.
///
/// ```swift
/// let bytes = TrustedFile.read(layout.indexPath, limit: 1 << 20, trusted: TokenFileLayout.isTrustedIndex)
/// ```
package enum TrustedFile {
    /// The whole file at `path`, if it opens as described above, its `fstat` passes `trusted`
    /// and it holds at most `limit` bytes; else `nil`.
    package static func read(_ path: String, limit: Int, trusted: (FileStatus) -> Bool) -> [UInt8]? {
        // `union`, not an array literal, whose array costs a runtime lookup of its type at first use.
        guard let descriptor = try? Descriptor.open(path, .read, Descriptor.Options.noFollow.union(.nonBlocking)) else {
            return nil
        }
        defer { Descriptor.close(descriptor) }
        guard let status = try? Descriptor.status(descriptor), trusted(status),
            let bytes = try? Descriptor.readAll(descriptor, limit: limit + 1), bytes.count <= limit
        else { return nil }
        return bytes
    }
}
