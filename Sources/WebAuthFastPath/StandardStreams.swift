// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// Whole reads and writes on the process's descriptors, retrying after `EINTR`: one
/// implementation for the fast path and the full program's commands, so that both read git's
/// input and write their answers the same way.
///
/// ```swift
/// let input = StandardStreams.readInput(limit: GitCredential.maximumInputLength)
/// StandardStreams.write(to: Descriptor.standardOutput, Array("password=…\n".utf8))
/// ```
package enum StandardStreams {
    /// Writes all of `bytes` to `descriptor`; returns whether it all went.
    @discardableResult
    package static func write(to descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        (try? Descriptor.writeAll(descriptor, bytes)) != nil
    }

    /// Standard input up to its end or `limit` bytes; what was read before an error is the
    /// input.
    package static func readInput(limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            guard let count = try? Descriptor.read(Descriptor.standardInput, into: &buffer), count > 0 else { break }
            bytes += buffer[..<min(count, limit - bytes.count)]
        }
        return bytes
    }
}
