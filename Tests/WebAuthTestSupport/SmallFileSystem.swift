// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small `tmpfs` mounted on a fresh directory, for tests of what happens when the disk fills
/// up or turns read-only under a program that is storing something: real `ENOSPC` and `EROFS`
/// from the kernel, not a stand-in.
///
/// Mounting needs root (`CAP_SYS_ADMIN`); ``isAvailable`` says whether it can be done here, and
/// tests that need it are enabled only then (permission bits alone cannot make a directory
/// read-only for root, who ignores them).
///
/// ```swift
/// let disk = try SmallFileSystem(size: 512 * 1024)
/// defer { disk.remove() }
/// try disk.fill()                 // every block taken: the next write fails with ENOSPC
/// try disk.makeReadOnly()         // or: every write fails with EROFS
/// ```
package struct SmallFileSystem: Sendable {
    /// The mount point: an empty directory, 0700, on the new file system.
    package let path: String

    /// Whether this process can mount a `tmpfs` here: it runs as root, `mount` is installed,
    /// and a trial mount worked (a container may withhold the capability).
    package static let isAvailable: Bool = {
        guard geteuid() == 0, access("/bin/mount", X_OK) == 0, access("/bin/umount", X_OK) == 0,
            let trial = try? SmallFileSystem(size: 64 * 1024)
        else { return false }
        trial.remove()
        return true
    }()

    /// Mounts a `tmpfs` of `size` bytes on a new temporary directory.
    package init(size: Int) throws {
        var template = Array("/tmp/webauth-fs-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SmallFileSystemError("mkdtemp failed") }
        path = String(cString: made)
        do {
            try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path])
        } catch {
            rmdir(path)
            throw error
        }
    }

    /// Takes every free block with a filler file, so that the next write fails with `ENOSPC`.
    package func fill() throws {
        let descriptor = open(path + "/.filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SmallFileSystemError("cannot create the filler file") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 4096)
        while write(descriptor, block, block.count) > 0 {}
        guard errno == ENOSPC else { throw SmallFileSystemError("filling stopped on errno \(errno), not ENOSPC") }
    }

    /// Frees what ``fill()`` took.
    package func empty() { unlink(path + "/.filler") }

    /// Remounts the file system read-only: every write fails with `EROFS`, for root too.
    package func makeReadOnly() throws {
        try Self.run("/bin/mount", ["-o", "remount,ro", path])
    }

    /// Remounts the file system writable again.
    package func makeWritable() throws {
        try Self.run("/bin/mount", ["-o", "remount,rw", path])
    }

    /// A way the file system refuses writes: full (`ENOSPC`) or read-only (`EROFS`).
    package enum WriteFault: String, CaseIterable, Sendable {
        case full
        case readOnly

        /// What the system says of a write it refused, as error messages quote it.
        package var message: String {
            switch self {
            case .full: "No space left on device"
            case .readOnly: "Read-only file system"
            }
        }
    }

    /// Makes every later write fail with `fault`: ``fill()`` or ``makeReadOnly()``.
    package func inflict(_ fault: WriteFault) throws {
        switch fault {
        case .full: try fill()
        case .readOnly: try makeReadOnly()
        }
    }

    /// Undoes ``inflict(_:)``: ``empty()`` or ``makeWritable()``.
    package func mend(_ fault: WriteFault) throws {
        switch fault {
        case .full: empty()
        case .readOnly: try makeWritable()
        }
    }

    /// Unmounts the file system (and what is on it) and removes the mount point.
    package func remove() {
        _ = try? Self.run("/bin/umount", ["-l", path])
        rmdir(path)
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let completion = try Subprocess.runToCompletion(
            executable, arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"])
        guard Subprocess.exitCode(of: completion.status) == 0 else {
            throw SmallFileSystemError(
                "\(executable) \(arguments.joined(separator: " ")) failed: \(completion.standardError)")
        }
    }
}

/// A ``SmallFileSystem`` that could not be made or changed.
package struct SmallFileSystemError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
