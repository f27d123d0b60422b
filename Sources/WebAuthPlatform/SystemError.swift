// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call's error number (`errno`), with its text.
///
/// Every call of the platform layer that can fail throws one of these; callers compare with the
/// named cases they act on and show ``description`` for the rest.
///
/// ```swift
/// do {
///     try FileSystem.removeFile(path)
/// } catch where error == .noSuchEntry {
///     // already gone
/// }
/// ```
package struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error number.
    package let number: Int32

    /// The error numbered `number`.
    package init(number: Int32) { self.number = number }

    /// The calling thread's last error (`errno`).
    package static var last: SystemError { SystemError(number: errno) }

    /// The C library's text for the error ("No such file or directory").
    package var description: String { String(cString: strerror(number)) }

    /// `ENOENT`: no such file or directory.
    package static let noSuchEntry = SystemError(number: ENOENT)
    /// `EEXIST`: the file exists.
    package static let alreadyExists = SystemError(number: EEXIST)
    /// `EINTR`: a signal interrupted the call.
    package static let interrupted = SystemError(number: EINTR)
    /// `EAGAIN` (`EWOULDBLOCK`): the call would block.
    package static let wouldBlock = SystemError(number: EAGAIN)
    /// `EPERM`: not permitted.
    package static let notPermitted = SystemError(number: EPERM)
    /// `ESRCH`: no such process.
    package static let noSuchProcess = SystemError(number: ESRCH)
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` allows none (or too many links).
    package static let symbolicLink = SystemError(number: ELOOP)
    /// `ECONNREFUSED`: nobody accepts connections at the address.
    package static let connectionRefused = SystemError(number: ECONNREFUSED)
    /// `ENAMETOOLONG`: a name longer than the system takes (such as a socket path).
    package static let nameTooLong = SystemError(number: ENAMETOOLONG)
    /// `EIO`: an input/output error, also what is reported when nothing better is known.
    package static let inputOutput = SystemError(number: EIO)
}
