// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
import WebAuthPlatform

/// Private files that readers see whole — the old contents or the new, never a part — however
/// the writer ends: ``FileTokenStore``'s entries and the command-line tool's profile index.
package enum PrivateFile {
    /// Replaces the file at `path` with `data`: a new temporary file beside it
    /// (`.<name>.tmp-<digits>`), created 0600 (`O_EXCL`, then `fchmod`, so no umask can widen
    /// it) and `fsync`ed, renamed over `path`, then the directory `fsync`ed.
    ///
    /// Temporary files a writer killed mid-write left behind for this `path` are removed first;
    /// call it with the file's lock held, so no live writer's file is among them.
    ///
    /// `durably: false` leaves out both `fsync`s, for a record that only running processes
    /// read (after a crash, nothing waits for it): it is still replaced whole, but after a
    /// crash may be the old contents, or empty, so its readers must take an unreadable one
    /// for none.
    package static func write(_ data: Data, to path: String, durably: Bool = true) throws(TokenStoreError) {
        try Reservation(for: path, bytes: 0).commit(data, durably: durably)
    }

    /// A replacement for a file, made and given its disk space before the new contents exist:
    /// what cannot be stored (a full disk, a read-only directory) fails here, before anything
    /// whose result would then be lost — such as a refresh that rotates the refresh token —
    /// has been done. ``commit(_:)`` writes and renames it over the file; ``discard()`` removes
    /// it. Either must be called once.
    package struct Reservation: Sendable {
        private let path: String
        private let temporary: String
        private let descriptor: Int32

        /// Removes the stale temporary files of `path` (call it with the file's lock held),
        /// creates a new one 0600 and allocates `bytes` for it (`posix_fallocate`).
        ///
        /// - Throws: ``TokenStoreError/Code/fileSystem`` naming the cause, such as "No space
        ///   left on device" or "Read-only file system".
        package init(for path: String, bytes: Int) throws(TokenStoreError) {
            removeStaleTemporaryFiles(of: path)
            let temporary = temporaryPrefix(of: path) + String(UInt64.random(in: 0...UInt64.max))
            let descriptor: Int32
            do {
                descriptor = try Descriptor.open(temporary, .write, [.create, .exclusive, .noFollow], mode: 0o600)
            } catch {
                throw TokenStoreError.system("cannot create \(temporary)", error)
            }
            do {
                try Descriptor.setPermissions(descriptor, 0o600)
            } catch {
                Descriptor.close(descriptor)
                try? FileSystem.removeFile(temporary)
                throw TokenStoreError.system("cannot fchmod \(temporary)", error)
            }
            if bytes > 0 {
                do {
                    try Descriptor.reserve(descriptor, bytes: bytes)
                } catch {
                    Descriptor.close(descriptor)
                    try? FileSystem.removeFile(temporary)
                    throw TokenStoreError.system("cannot set aside \(bytes) bytes for \(temporary)", error)
                }
            }
            self.path = path
            self.temporary = temporary
            self.descriptor = descriptor
        }

        /// Writes `data` into the reserved file, cuts it to that length, `fsync`s it, renames it
        /// over the file and `fsync`s the directory (without the `fsync`s when `durably` is
        /// false: see ``PrivateFile/write(_:to:durably:)``). On failure the temporary file is
        /// removed and the old file stays as it was.
        package func commit(_ data: Data, durably: Bool = true) throws(TokenStoreError) {
            var renamed = false
            defer { if !renamed { try? FileSystem.removeFile(temporary) } }
            do {
                defer { Descriptor.close(descriptor) }
                do {
                    try Descriptor.writeAll(descriptor, [UInt8](data))
                } catch {
                    throw TokenStoreError.system("cannot write \(temporary)", error)
                }
                do {
                    try Descriptor.truncate(descriptor, to: data.count)
                } catch {
                    throw TokenStoreError.system("cannot truncate \(temporary)", error)
                }
                if durably {
                    do {
                        try Descriptor.synchronize(descriptor)
                    } catch {
                        throw TokenStoreError.system("cannot fsync \(temporary)", error)
                    }
                }
            }
            do {
                try FileSystem.rename(temporary, to: path)
            } catch {
                throw TokenStoreError.system("cannot rename \(temporary) to \(path)", error)
            }
            renamed = true
            if durably { try syncDirectory(of: path) }
        }

        /// Removes the reserved file; the old file stays as it was.
        package func discard() {
            Descriptor.close(descriptor)
            try? FileSystem.removeFile(temporary)
        }
    }

    /// Removes the file at `path` and what killed writers left beside it; `false` when there was
    /// no file. Call it with the file's lock held.
    package static func remove(_ path: String) throws(TokenStoreError) -> Bool {
        removeStaleTemporaryFiles(of: path)
        do {
            try FileSystem.removeFile(path)
        } catch {
            if error == .noSuchEntry { return false }
            throw TokenStoreError.system("cannot remove \(path)", error)
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
            try? FileSystem.removeFile("\(directory)/\(name)")
        }
    }

    private static func syncDirectory(of path: String) throws(TokenStoreError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileSystem.synchronizeDirectory(directory)
        } catch {
            throw TokenStoreError.system("cannot fsync \(directory)", error)
        }
    }
}
