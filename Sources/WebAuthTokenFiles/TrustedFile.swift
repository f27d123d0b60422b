#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
    package static func read(_ path: String, limit: Int, trusted: (stat) -> Bool) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, trusted(info) else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= limit {
            let count = readBytes(descriptor, &buffer, buffer.count)
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

// The C library's `read`, under a name the method does not shadow.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
