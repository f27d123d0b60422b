#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whole reads and writes on the process's descriptors, retrying after `EINTR`: one
/// implementation for the fast path and the full program's commands, so that both read git's
/// input and write their answers the same way.
///
/// ```swift
/// let input = StandardStreams.readInput(limit: GitCredential.maximumInputLength)
/// StandardStreams.write(to: STDOUT_FILENO, Array("password=…\n".utf8))
/// ```
package enum StandardStreams {
    /// Writes all of `bytes` to `descriptor`; returns whether it all went.
    @discardableResult
    package static func write(to descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { writeBytes(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                offset += count
            } else if !(count < 0 && errno == EINTR) {
                return false
            }
        }
        return true
    }

    /// Standard input up to its end or `limit` bytes; what was read before an error is the
    /// input.
    package static func readInput(limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let count = read(STDIN_FILENO, &buffer, min(buffer.count, limit - bytes.count))
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return bytes
    }
}

// The C library's `write`, under a name the method does not shadow.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
