import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Private files that readers see whole — the old contents or the new, never a part — however
/// the writer ends: ``FileTokenStore``'s entries and the command-line tool's profile index.
package enum PrivateFile {
    /// Replaces the file at `path` with `data`: a new temporary file beside it
    /// (`.<name>.tmp-<digits>`), created 0600 (`O_EXCL`, then `fchmod`, so no umask can widen
    /// it) and `fsync`ed, renamed over `path`, then the directory `fsync`ed.
    ///
    /// Temporary files a writer killed mid-write left behind for this `path` are removed first;
    /// call it with the file's lock held, so no live writer's file is among them.
    package static func write(_ data: Data, to path: String) throws(TokenStoreError) {
        removeStaleTemporaryFiles(of: path)
        let temporary = temporaryPrefix(of: path) + String(UInt64.random(in: 0...UInt64.max))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw TokenStoreError.system("cannot create \(temporary)") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o600) == 0 else { throw TokenStoreError.system("cannot fchmod \(temporary)") }
            if let number = writeAll(descriptor, data) {
                throw TokenStoreError.system("cannot write \(temporary)", errno: number)
            }
            guard fsync(descriptor) == 0 else { throw TokenStoreError.system("cannot fsync \(temporary)") }
        }
        guard rename(temporary, path) == 0 else {
            throw TokenStoreError.system("cannot rename \(temporary) to \(path)")
        }
        renamed = true
        try syncDirectory(of: path)
    }

    /// Removes the file at `path` and what killed writers left beside it; `false` when there was
    /// no file. Call it with the file's lock held.
    package static func remove(_ path: String) throws(TokenStoreError) -> Bool {
        removeStaleTemporaryFiles(of: path)
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw TokenStoreError.system("cannot remove \(path)")
        }
        try syncDirectory(of: path)
        return true
    }

    /// `<directory>/.<name>.tmp-`.
    private static func temporaryPrefix(of path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + ".tmp-"
    }

    /// Removes `.<name>.tmp-<digits>` files — exactly that shape, so the temporary file of
    /// another file whose name merely starts the same way is never touched.
    private static func removeStaleTemporaryFiles(of path: String) {
        let prefix = URL(fileURLWithPath: temporaryPrefix(of: path))
        let directory = prefix.deletingLastPathComponent().path
        let namePrefix = prefix.lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(namePrefix) {
            let suffix = name.dropFirst(namePrefix.count)
            guard !suffix.isEmpty, suffix.allSatisfy({ $0.isASCII && $0.isNumber }) else { continue }
            unlink("\(directory)/\(name)")
        }
    }

    private static func syncDirectory(of path: String) throws(TokenStoreError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TokenStoreError.system("cannot open \(directory)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw TokenStoreError.system("cannot fsync \(directory)") }
    }
}
